package expr

import (
	"math"

	"freshet/repr"
	"freshet/sqlerr"
)

// The template functions (repr/datetime_format.go):
//
//   - ToChar(ts, template[, zone]) is to_char of a timestamp, or of a
//     timestamptz on the wall clock of zone (the planner writes the
//     session's);
//   - ToTimestamp(text, template, zone) is to_timestamp(text, text):
//     the wall-clock time the text gives, in zone;
//   - ToDate(text, template) is to_date;
//   - EpochToTimestamp(seconds) is to_timestamp(double precision):
//     seconds since 1970-01-01 UTC.

func (f VariadicFunc) isTemplate() bool { return f >= ToChar && f <= EpochToTimestamp }

func (c CallVariadic) templateTyp(input []ColumnType) ColumnType {
	t := ColumnType{}
	for _, a := range c.Args {
		t.Nullable = t.Nullable || a.Typ(input).Nullable
	}
	switch c.Func {
	case ToChar:
		t.Type, t.Nullable = repr.Text, true
	case ToDate:
		t.Type = repr.Date
	default:
		t.Type = repr.TimestampTZ
	}
	return t
}

func (c CallVariadic) evalTemplate(row []repr.Datum) (repr.Datum, error) {
	args := make([]repr.Datum, len(c.Args))
	for i, a := range c.Args {
		v, err := a.Eval(row)
		if err != nil || v.IsNull() {
			return repr.Null, err
		}
		args[i] = v
	}
	zone := func(i int) (*repr.Zone, error) {
		if i >= len(args) {
			return repr.UTC, nil
		}
		return repr.LoadZone(args[i].Text())
	}
	switch c.Func {
	case ToChar:
		us := args[0].Timestamp()
		if args[0].Kind() == repr.KindDate {
			d, err := repr.Cast(args[0], repr.Timestamp)
			if err != nil {
				return repr.Null, err
			}
			us = d.Timestamp()
		}
		if args[0].Kind() == repr.KindTimestampTZ {
			z, err := zone(2)
			if err != nil {
				return repr.Null, err
			}
			us = z.ToLocal(us)
		}
		s, ok := repr.FormatDateTime(us, args[1].Text())
		if !ok {
			return repr.Null, nil
		}
		return repr.NewText(s), nil
	case ToTimestamp:
		local, err := repr.ParseDateTime(args[0].Text(), args[1].Text())
		if err != nil {
			return repr.Null, err
		}
		z, err := zone(2)
		if err != nil {
			return repr.Null, err
		}
		return repr.NewTimestampTZ(z.FromLocal(local)), nil
	case ToDate:
		local, err := repr.ParseDateTime(args[0].Text(), args[1].Text())
		if err != nil {
			return repr.Null, err
		}
		return repr.Cast(repr.NewTimestamp(local), repr.Date)
	case EpochToTimestamp:
		f := args[0].Float()
		switch {
		case math.IsInf(f, 1):
			return repr.NewTimestampTZ(repr.TimestampPosInfinity), nil
		case math.IsInf(f, -1):
			return repr.NewTimestampTZ(repr.TimestampNegInfinity), nil
		case math.IsNaN(f):
			return repr.Null, sqlerr.New(sqlerr.InvalidParameterValue, "timestamp cannot be NaN")
		}
		us := math.Round((f - 946684800) * 1e6)
		if math.Abs(us) > 1<<62 || !repr.ValidTimestamp(int64(us)) {
			return repr.Null, sqlerr.New(sqlerr.DatetimeFieldOverflow, "timestamp out of range: %q", repr.FormatText(args[0]))
		}
		return repr.NewTimestampTZ(int64(us)), nil
	}
	return repr.Null, sqlerr.AssertionFailedf("unknown template function %d", c.Func)
}
