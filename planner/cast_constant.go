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
func (c hCast) usedZone() *repr.Zone {
	if repr.CastUsesZone(c.arg.typ().Type, c.to) {
		return c.zone
	}
	return nil
}

// assignsLength reports whether the cast is an assignment to a type with
// a length (varchar(n), bit(n) and the like), which refuses a value too
// long for it where an explicit cast would cut it.
func (c hCast) assignsLength() bool {
	_, ok := c.to.Length()
	return ok && c.assign
}

// apply casts v, a value of the cast's argument, as the cast's
// expression does.
func (c hCast) apply(v repr.Datum) (repr.Datum, error) {
	if v.IsNull() {
		return repr.Null, nil
	}
	zone := c.usedZone()
	switch {
	case c.assignsLength():
		return repr.AssignCastIn(v, c.to, zone)
	case c.labels != nil:
		return c.labels.CastTo(v, c.to)
	}
	return repr.CastIn(v, c.to, zone)
}

// castConstant folds c, whose argument is the constant l.
func castConstant(c hCast, l hLiteral) (hLiteral, error) {
	v, err := c.apply(l.v)
	if err != nil {
		return hLiteral{}, err
	}
	return hLiteral{v: v, t: c.to}, nil
}
