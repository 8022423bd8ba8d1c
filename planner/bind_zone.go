package planner

import (
	"strings"

	"freshet/expr"
	"freshet/repr"
)

// The session time zone in plans. Wherever PostgreSQL reads the
// TimeZone setting while it evaluates (a cast between timestamptz and
// text, timestamp or date; date_trunc and extract of a timestamptz;
// timestamptz ± interval), the planner writes the zone of the planning
// session into the plan: a cast carries it (hCast.zone), and the
// functions are rewritten over timezone(zone, ts), which AT TIME ZONE
// calls, and date_add / date_subtract. A plan, and so a view, means
// the same whichever session later runs it: a materialized view keeps
// the zone of the session that created it (catalog.Object.TimeZone).
// In UTC, the zone sessions start in, nothing is rewritten.

// zoneLiteral returns the session zone as a text literal, or nil in UTC.
func (b *binder) zoneLiteral() hscalar {
	z := b.zone()
	if z.IsUTC() {
		return nil
	}
	return hLiteral{v: repr.NewText(z.Name()), t: repr.Text}
}

// zonedDatePart binds date_part, extract or date_trunc (fn) of ts with
// result type t. For a timestamptz in a zone other than UTC, the field
// is taken from the wall-clock time in zone, and date_trunc's result is
// read back as a wall-clock time there; the epoch is the same in every
// zone.
func (b *binder) zonedDatePart(fn expr.VariadicFunc, field, ts hscalar, t repr.Type, zone hscalar) (hscalar, error) {
	call := func(arg hscalar, t repr.Type) hscalar {
		return hVariadic{fn: fn, args: []hscalar{field, arg}, t: expr.ColumnType{Type: t, Nullable: true}}
	}
	if zone == nil || ts.typ().Type.Kind() != repr.KindTimestampTZ {
		return call(ts, t), nil
	}
	if fn != expr.DateTrunc {
		if l, ok := field.(hLiteral); !ok || l.v.IsNull() || strings.EqualFold(strings.TrimSpace(l.v.Text()), "epoch") {
			// A field computed per row might be the epoch: in UTC, which
			// is where the epoch is counted from.
			return call(ts, t), nil
		}
	}
	local := zoneCall(expr.Timezone, repr.Timestamp, zone, ts)
	if fn != expr.DateTrunc {
		return call(local, t), nil
	}
	return zoneCall(expr.Timezone, repr.TimestampTZ, zone, call(local, repr.Timestamp)), nil
}

func zoneCall(fn expr.VariadicFunc, t repr.Type, args ...hscalar) hscalar {
	return hVariadic{fn: fn, args: args, t: expr.ColumnType{Type: t, Nullable: true}}
}

// atTimeZone binds timezone(zone, ts): a timestamptz (an unknown
// literal or a date is read as one, as PostgreSQL prefers) becomes a
// timestamp, a timestamp a timestamptz.
func (b *binder) atTimeZone(zone, ts hscalar) (hscalar, error) {
	z, err := b.coerceTo(zone, repr.Text)
	if err != nil {
		return nil, errNoFunction("timezone", []hscalar{zone, ts})
	}
	switch ts.typ().Type.Kind() {
	case repr.KindTimestamp:
		return zoneCall(expr.Timezone, repr.TimestampTZ, z, ts), nil
	case repr.KindTimestampTZ:
	case repr.KindUnknown, repr.KindDate:
		if ts, err = b.coerceTo(ts, repr.TimestampTZ); err != nil {
			return nil, err
		}
	case repr.KindTime:
		// PostgreSQL gives a time with time zone.
		return nil, unsupported("AT TIME ZONE of time without time zone (its result is a timetz)")
	default:
		return nil, errNoFunction("timezone", []hscalar{zone, ts})
	}
	return zoneCall(expr.Timezone, repr.Timestamp, z, ts), nil
}

// zonedIntervalArith rewrites timestamptz ± interval (op "+" or "-",
// the timestamptz first) in a zone other than UTC as date_add or
// date_subtract in the session zone, which count days and months on
// its wall clock. It returns nil when there is nothing to rewrite.
func (b *binder) zonedIntervalArith(op string, ts, iv hscalar) hscalar {
	zone := b.zoneLiteral()
	if zone == nil || ts.typ().Type.Kind() != repr.KindTimestampTZ || iv.typ().Type.Kind() != repr.KindInterval {
		return nil
	}
	fn := expr.DateAdd
	if op == "-" {
		fn = expr.DateSubtract
	}
	return zoneCall(fn, repr.TimestampTZ, ts, iv, zone)
}

// bindToChar binds to_char(datetime, template): a timestamptz is
// formatted on the session zone's wall clock, a timestamp or date as it
// is. to_char of numbers and intervals is not supported.
func (b *binder) bindToChar(args []hscalar) (hscalar, error) {
	ts := args[0]
	switch ts.typ().Type.Kind() {
	case repr.KindTimestamp, repr.KindTimestampTZ, repr.KindDate:
	case repr.KindUnknown:
		var err error
		if ts, err = b.coerceTo(ts, repr.TimestampTZ); err != nil {
			return nil, err
		}
	default:
		if k := ts.typ().Type.Kind(); isNumeric(k) || k == repr.KindInterval || k == repr.KindTime {
			return nil, unsupported("to_char of %s", typeName(ts.typ().Type))
		}
		return nil, errNoFunction("to_char", args)
	}
	tmpl, err := b.coerceTo(args[1], repr.Text)
	if err != nil {
		return nil, errNoFunction("to_char", args)
	}
	call := []hscalar{ts, tmpl}
	if ts.typ().Type.Kind() == repr.KindTimestampTZ {
		call = append(call, hLiteral{v: repr.NewText(b.zone().Name()), t: repr.Text})
	}
	return zoneCall(expr.ToChar, repr.Text, call...), nil
}

// bindParseTemplate binds to_timestamp(text, template), read as a
// wall-clock time in the session zone, and to_date(text, template).
func (b *binder) bindParseTemplate(name string, args []hscalar) (hscalar, error) {
	var call []hscalar
	for _, a := range args {
		s, err := b.coerceTo(a, repr.Text)
		if err != nil {
			return nil, errNoFunction(name, args)
		}
		call = append(call, s)
	}
	if name == "to_date" {
		return zoneCall(expr.ToDate, repr.Date, call...), nil
	}
	call = append(call, hLiteral{v: repr.NewText(b.zone().Name()), t: repr.Text})
	return zoneCall(expr.ToTimestamp, repr.TimestampTZ, call...), nil
}
