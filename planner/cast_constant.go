package planner

import "freshet/repr"

// A cast of a constant is folded to the constant of its type while a
// statement is planned. For the values of a long INSERT … VALUES that is
// a cast per value, so it is done on the value itself, not by building
// the cast's expression (scalarToExpr) and evaluating that: apply is
// what that expression does when it runs, and
// TestCastApplyMatchesExpression holds the two together.

// usedZone is the zone the cast runs with: its session zone if the cast
// depends on one, else nil.
func (c hCast) usedZone() *repr.Zone { return usedZone(c.arg.typ().Type, c.to, c.zone) }

func usedZone(from, to repr.Type, zone *repr.Zone) *repr.Zone {
	if repr.CastUsesZone(from, to) {
		return zone
	}
	return nil
}

// assignsLength reports whether the cast is an assignment to a type with
// a length (varchar(n), bit(n) and the like), which refuses a value too
// long for it where an explicit cast would cut it.
func (c hCast) assignsLength() bool { return assignsLength(c.to, c.assign) }

func assignsLength(to repr.Type, assign bool) bool {
	_, ok := to.Length()
	return ok && assign
}

// apply casts v, a value of the cast's argument, as the cast's
// expression does.
func (c hCast) apply(v repr.Datum) (repr.Datum, error) {
	return castValue(v, c.arg.typ().Type, c.to, c.assign, c.zone, c.labels)
}

// castValue is apply for a cast from type from with the other fields
// given: the cast of a constant, with no cast built for it.
func castValue(v repr.Datum, from, to repr.Type, assign bool, zone *repr.Zone, labels *repr.EnumLabels) (repr.Datum, error) {
	if v.IsNull() {
		return repr.Null, nil
	}
	zone = usedZone(from, to, zone)
	switch {
	case assignsLength(to, assign):
		return repr.AssignCastIn(v, to, zone)
	case labels != nil:
		return labels.CastTo(v, to)
	}
	return repr.CastIn(v, to, zone)
}

// castConstant folds c, whose argument is the constant l.
func castConstant(c hCast, l hLiteral) (hLiteral, error) {
	v, err := c.apply(l.v)
	if err != nil {
		return hLiteral{}, err
	}
	return hLiteral{v: v, t: c.to}, nil
}
