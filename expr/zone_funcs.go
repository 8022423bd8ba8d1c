package expr

import (
	"freshet/repr"
	"freshet/sqlerr"
)

// The time zone functions. The planner writes the session time zone
// into a statement's plan as a literal argument of these wherever
// PostgreSQL would read the TimeZone setting, so that a plan (and a
// view) means the same whichever session later runs it:
//
//   - Timezone(zone, ts) is timezone(zone, ts), which AT TIME ZONE
//     calls: a timestamptz becomes the wall-clock timestamp in zone,
//     and a timestamp is read as a wall-clock time there.
//   - DateAdd(ts, interval, zone) and DateSubtract(ts, interval, zone)
//     add or subtract an interval to a timestamptz with days and months
//     counted on the wall clock of zone, as timestamptz + interval does
//     in a session of that zone (PostgreSQL 16 has them by these names).
//   - TimestampTZJSON(zone, ts) is a timestamptz as the json functions
//     write it in a session of zone: "2024-01-01T09:00:00+09:00". The
//     planner wraps the timestamptz arguments of to_json and its kin in
//     it; users cannot call it.

func (f VariadicFunc) isZone() bool { return f >= Timezone && f <= TimestampTZJSON }

func (c CallVariadic) zoneTyp(input []ColumnType) ColumnType {
	t := ColumnType{}
	for _, a := range c.Args {
		t.Nullable = t.Nullable || a.Typ(input).Nullable
	}
	switch c.Func {
	case TimestampTZJSON:
		t.Type = repr.JSON
	case Timezone:
		if len(c.Args) == 2 && c.Args[1].Typ(input).Type.Kind() == repr.KindTimestamp {
			t.Type = repr.TimestampTZ
		} else {
			t.Type = repr.Timestamp
		}
	default:
		t.Type = repr.TimestampTZ
	}
	return t
}

func (c CallVariadic) evalZone(row []repr.Datum) (repr.Datum, error) {
	args := make([]repr.Datum, len(c.Args))
	for i, a := range c.Args {
		v, err := a.Eval(row)
		if err != nil || v.IsNull() {
			return repr.Null, err
		}
		args[i] = v
	}
	if len(args) < 2 {
		return repr.Null, sqlerr.AssertionFailedf("%s with %d arguments", c.Func, len(args))
	}
	switch c.Func {
	case Timezone:
		z, err := repr.LoadZone(args[0].Text())
		if err != nil {
			return repr.Null, err
		}
		return repr.AtTimeZone(z, args[1])
	case TimestampTZJSON:
		z, err := repr.LoadZone(args[0].Text())
		if err != nil {
			return repr.Null, err
		}
		return repr.NewJSON(string(repr.AppendJSONIn(nil, args[1], z))), nil
	case DateAdd, DateSubtract:
		if len(args) != 3 {
			return repr.Null, sqlerr.AssertionFailedf("%s with %d arguments", c.Func, len(args))
		}
		z, err := repr.LoadZone(args[2].Text())
		if err != nil {
			return repr.Null, err
		}
		if c.Func == DateSubtract {
			return repr.SubIntervalIn(z, args[0], args[1].Interval())
		}
		return repr.AddIntervalIn(z, args[0], args[1].Interval())
	}
	return repr.Null, sqlerr.AssertionFailedf("unknown zone function %d", c.Func)
}
