package repr

import (
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"freshet/sqlerr"
)

// Cast converts d to type to as PostgreSQL's explicit cast d::to does:
// integers narrow with a range check, floats round to the nearest
// integer (ties to even, as rint), numerics round half away from zero,
// numeric(p,s) rounds and checks its precision, strings convert through
// the input and output functions, varchar(n) and char(n) truncate
// silently, and dates and timestamps convert in the session zone (UTC).
// NULL casts to NULL. A conversion that PostgreSQL has no cast for is
// 42846. Whether a cast may be applied implicitly is the planner's
// question; see CastContextOf.
func Cast(d Datum, to Type) (Datum, error) { return cast(d, to, false, UTC) }

// CastIn is Cast in the session time zone z, which casts between a
// timestamp with time zone and text, timestamp and date go through.
func CastIn(d Datum, to Type, z *Zone) (Datum, error) { return cast(d, to, false, z) }

// AssignCast converts d to type to as PostgreSQL converts a value stored
// into a column of that type (INSERT, UPDATE): like Cast, except that a
// string too long for varchar(n) or char(n) is an error (22001) unless
// the excess is spaces.
func AssignCast(d Datum, to Type) (Datum, error) { return cast(d, to, true, UTC) }

// AssignCastIn is AssignCast in the session time zone z.
func AssignCastIn(d Datum, to Type, z *Zone) (Datum, error) { return cast(d, to, true, z) }

func cast(d Datum, to Type, assign bool, z *Zone) (Datum, error) {
	if !d.valid {
		return Null, nil
	}
	from := d.kind
	switch {
	case from == KindArray && to.kind == KindArray:
		return castArray(d, to, assign, z)
	case from == to.kind && (from == KindJSON || from == KindUUID || from == KindBytea || from == KindJSONB):
		return d, nil
	case from == KindEnum && to.kind == KindEnum:
		// The planner casts only between values of one enum.
		return d, nil
	case from == KindJSON && to.kind == KindJSONB:
		return ParseTextIn(to, d.str(), z)
	case from == KindJSONB && !to.kind.IsString():
		return castFromJSONB(d, to, assign, z)
	case to.kind.IsOIDKind() && !from.IsString():
		return castToOID(d, to.kind)
	case from.IsOIDKind() && (to.kind == KindInt8 || to.kind == KindInt4):
		return oidToInt(d, to.kind)
	case from == KindChar && to.kind == KindInt4:
		// The byte as a signed integer, as PostgreSQL's int4(char).
		if d.str() == "" {
			return NewInt4(0), nil
		}
		return NewInt4(int32(int8(d.str()[0]))), nil
	case from == KindInt4 && to.kind == KindChar:
		if d.i < -128 || d.i > 127 {
			return Null, sqlerr.New(sqlerr.NumericValueOutOfRange, "\"char\" out of range")
		}
		if d.i == 0 {
			return NewString(KindChar, ""), nil
		}
		return NewString(KindChar, string([]byte{byte(int8(d.i))})), nil
	case to.kind.IsString():
		return castToString(d, to, assign, z)
	case from.IsString():
		return ParseTextIn(to, d.str(), z)
	}
	switch to.kind {
	case KindBool:
		switch from {
		case KindBool:
			return d, nil
		case KindInt4:
			return NewBool(d.i != 0), nil
		}
	case KindInt2, KindInt4, KindInt8:
		return castToInt(d, to.kind)
	case KindFloat4, KindFloat8:
		return castToFloat(d, to.kind)
	case KindNumeric:
		return castToNumeric(d, to)
	case KindDate:
		switch from {
		case KindDate:
			return d, nil
		case KindTimestamp, KindTimestampTZ:
			switch d.i {
			case TimestampNegInfinity:
				return NewDate(DateNegInfinity), nil
			case TimestampPosInfinity:
				return NewDate(DatePosInfinity), nil
			}
			us := d.i
			if from == KindTimestampTZ {
				us = z.ToLocal(us)
			}
			days, _ := splitTimestamp(us)
			return NewDate(int32(days)), nil
		}
	case KindTimestamp, KindTimestampTZ:
		var us int64
		switch from {
		case KindTimestamp, KindTimestampTZ:
			us = d.i
			switch {
			case from == KindTimestampTZ && to.kind == KindTimestamp:
				us = z.ToLocal(us)
			case from == KindTimestamp && to.kind == KindTimestampTZ:
				us = z.FromLocal(us)
			}
			if !validTimestamp(us) && !isInfiniteStamp(us) {
				return Null, errTimestampRange
			}
		case KindDate:
			switch days := int64(d.Date()); days {
			case DateNegInfinity:
				us = TimestampNegInfinity
			case DatePosInfinity:
				us = TimestampPosInfinity
			default:
				// Check in days: the product overflows for late dates.
				if days < minDate || days >= endTimestamp/usPerDay {
					return Null, errDateRangeForStamp
				}
				us = days * usPerDay
				if to.kind == KindTimestampTZ {
					us = z.FromLocal(us)
				}
			}
		default:
			return Null, errCannotCast(from, to)
		}
		us, err := roundTimestamp(us, to)
		if err != nil {
			return Null, err
		}
		return Datum{head: head{kind: to.kind, valid: true}, i: us}, nil
	case KindInterval:
		switch from {
		case KindInterval:
			return d, nil
		case KindTime:
			return NewInterval(IntervalValue{Micros: d.i}), nil
		}
	case KindTime:
		return castToTime(d, to, z)
	}
	return Null, errCannotCast(from, to)
}

func errCannotCast(from Kind, to Type) error {
	return sqlerr.New(sqlerr.CannotCoerce, "cannot cast type %s to %s", kinds[from].display, to.String())
}

// castToString converts d to text, varchar or bpchar: bool prints as
// "true" or "false" (PostgreSQL's bool-to-text cast, not boolout's "t"),
// char(n) loses its trailing spaces, other types use FormatText. Then
// the target's length applies.
func castToString(d Datum, to Type, assign bool, z *Zone) (Datum, error) {
	var s string
	switch {
	case d.kind == KindBpchar:
		s = strings.TrimRight(d.str(), " ")
	case d.kind.IsString():
		s = d.str()
	case d.kind == KindBool:
		s = strconv.FormatBool(d.Bool())
	default:
		s = FormatTextIn(d, z)
	}
	if assign || to.kind == KindName || to.kind == KindChar {
		return stringInput(to, s)
	}
	n, ok := to.Length()
	if !ok {
		return NewString(to.kind, s), nil
	}
	cut, count := charPrefix(s, n)
	s = s[:cut]
	if to.kind == KindBpchar && count < n {
		s += strings.Repeat(" ", n-count)
	}
	return NewString(to.kind, s), nil
}

// castToInt converts d to an integer kind: integers with a range check,
// floats rounded to nearest even (rint), numerics rounded half away from
// zero, bool (to integer only) as 0 or 1.
func castToInt(d Datum, to Kind) (Datum, error) {
	lo, hi := intRange(to)
	switch {
	case d.kind.IsInt():
		if d.i < lo || d.i > hi {
			return Null, errIntOutOfRange(to)
		}
		return newInt(to, d.i), nil
	case d.kind.IsFloat():
		f := math.RoundToEven(d.Float())
		// float64(hi) rounds up to 2^63 for int8, so compare with <.
		if math.IsNaN(f) || f < float64(lo) || f >= float64(hi)+1 {
			return Null, errIntOutOfRange(to)
		}
		return newInt(to, int64(f)), nil
	case d.kind == KindNumeric:
		if c, s, ok := d.SmallNumeric(); ok {
			if v, ok := roundSmall(c, s, 0); ok {
				if v < lo || v > hi {
					return Null, errIntOutOfRange(to)
				}
				return newInt(to, v), nil
			}
		}
		switch d.decimal().Form {
		case apd.NaN, apd.NaNSignaling:
			return Null, sqlerr.New(sqlerr.FeatureNotSupported, "cannot convert NaN to %s", kinds[to].display)
		case apd.Infinite:
			return Null, sqlerr.New(sqlerr.FeatureNotSupported, "cannot convert infinity to %s", kinds[to].display)
		}
		r := roundToScale(d.decimal(), 0)
		if !r.Coeff.IsInt64() {
			return Null, errIntOutOfRange(to)
		}
		v := r.Coeff.Int64()
		if r.Negative {
			v = -v
		}
		if v < lo || v > hi {
			return Null, errIntOutOfRange(to)
		}
		return newInt(to, v), nil
	case d.kind == KindBool && to == KindInt4:
		return newInt(to, d.i), nil
	}
	return Null, errCannotCast(d.kind, Type{kind: to})
}

// intRange returns the bounds of an integer kind.
func intRange(k Kind) (lo, hi int64) {
	switch k {
	case KindInt2:
		return math.MinInt16, math.MaxInt16
	case KindInt4:
		return math.MinInt32, math.MaxInt32
	case KindOID, KindRegclass, KindRegtype, KindRegproc, KindRegnamespace, KindRegrole:
		return 0, math.MaxUint32
	}
	return math.MinInt64, math.MaxInt64
}

// castToFloat converts d to float4 or float8. float8 to float4 fails on
// overflow and underflow; numerics convert through their text, as
// PostgreSQL's numeric_float8 does.
func castToFloat(d Datum, to Kind) (Datum, error) {
	var f float64
	switch {
	case d.kind.IsInt():
		f = float64(d.i)
	case d.kind.IsFloat():
		f = d.Float()
	case d.kind == KindNumeric:
		bits := 64
		if to == KindFloat4 {
			bits = 32
		}
		return parseFloat(Type{kind: to}, FormatText(d), bits)
	default:
		return Null, errCannotCast(d.kind, Type{kind: to})
	}
	if to == KindFloat4 {
		f4 := float64(float32(f))
		if math.IsInf(f4, 0) && !math.IsInf(f, 0) {
			return Null, errFloatOverflow
		}
		if f4 == 0 && f != 0 {
			return Null, errFloatUnderflow
		}
		f = f4
	}
	return newFloat(to, f), nil
}

// castToNumeric converts d to numeric and applies to's precision and
// scale. Floats convert through %g text with 15 (float8) or 6 (float4)
// significant digits, as PostgreSQL's float8_numeric does, so
// 0.1::float8::numeric is 0.1.
func castToNumeric(d Datum, to Type) (Datum, error) {
	var n *apd.Decimal
	switch {
	case d.kind == KindNumeric:
		if c, s, ok := d.SmallNumeric(); ok {
			if r, ok, err := smallTypmod(c, s, to); ok {
				return r, err
			}
		}
		n = d.decimal()
	case d.kind.IsInt():
		if d.i != math.MinInt64 {
			if r, ok, err := smallTypmod(d.i, 0, to); ok {
				return r, err
			}
		}
		n = numericFromInt(d.i)
	case d.kind.IsFloat():
		f := d.Float()
		switch {
		case math.IsNaN(f):
			n = numericNaN
		case math.IsInf(f, 1):
			n = numericPosInf
		case math.IsInf(f, -1):
			n = numericNegInf
		default:
			digits := 15
			if d.kind == KindFloat4 {
				digits = 6
			}
			var err error
			if n, err = parseDecimal(strconv.FormatFloat(f, 'g', digits, 64)); err != nil {
				return Null, err
			}
		}
	default:
		return Null, errCannotCast(d.kind, to)
	}
	n, err := applyNumericTypmod(n, to)
	if err != nil {
		return Null, err
	}
	return NewNumeric(n), nil
}
