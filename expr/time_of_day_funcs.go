package expr

import (
	"strings"

	"github.com/cockroachdb/apd/v3"

	"freshet/repr"
	"freshet/sqlerr"
)

// The fields of time without time zone, as PostgreSQL 15's time_part and
// date_trunc (through interval) read them.

// timeUnits maps the spellings of a unit PostgreSQL accepts to the unit.
var timeUnits = map[string]string{
	"microsecond": "microseconds", "microseconds": "microseconds", "us": "microseconds", "usec": "microseconds", "usecs": "microseconds",
	"millisecond": "milliseconds", "milliseconds": "milliseconds", "ms": "milliseconds", "msec": "milliseconds", "msecs": "milliseconds",
	"second": "second", "seconds": "second", "s": "second", "sec": "second", "secs": "second",
	"minute": "minute", "minutes": "minute", "m": "minute", "min": "minute", "mins": "minute",
	"hour": "hour", "hours": "hour", "h": "hour", "hr": "hour", "hrs": "hour",
	"day": "day", "days": "day", "d": "day",
	"week": "week", "weeks": "week", "w": "week",
	"month": "month", "months": "month", "mon": "month", "mons": "month",
	"quarter": "quarter", "qtr": "quarter",
	"year": "year", "years": "year", "y": "year", "yr": "year", "yrs": "year",
	"decade": "decade", "decades": "decade", "dec": "decade", "decs": "decade",
	"century": "century", "centuries": "century", "c": "century", "cent": "century",
	"millennium": "millennium", "millennia": "millennium", "mil": "millennium", "mils": "millennium",
	"epoch": "epoch", "dow": "dow", "isodow": "isodow", "doy": "doy", "isoyear": "isoyear",
	"timezone": "timezone", "timezone_h": "timezone_hour", "timezone_hour": "timezone_hour",
	"timezone_m": "timezone_minute", "timezone_minute": "timezone_minute", "julian": "julian", "j": "julian",
}

// timePart is date_part (float8) and EXTRACT (numeric, exact) of a time,
// us microseconds since midnight. 24:00:00 has hour 24 and second 0, as
// in PostgreSQL.
func timePart(field string, us int64, numeric bool) (repr.Datum, error) {
	lower := strings.ToLower(field)
	unit, ok := timeUnits[lower]
	if !ok {
		return repr.Null, sqlerr.New(sqlerr.InvalidParameterValue, "unit \"%s\" not recognized for type time without time zone", lower)
	}
	inMinute := us % 60_000_000
	var coeff int64
	var exp int32
	switch unit {
	case "microseconds":
		coeff = inMinute
	case "milliseconds":
		coeff, exp = inMinute, -3
	case "second":
		coeff, exp = inMinute, -6
	case "minute":
		coeff = us / 60_000_000 % 60
	case "hour":
		coeff = us / 3_600_000_000
	case "epoch":
		coeff, exp = us, -6
	default:
		return repr.Null, sqlerr.New(sqlerr.FeatureNotSupported, "unit \"%s\" not supported for type time without time zone", lower)
	}
	if !numeric {
		// date_part computes in float8 as PostgreSQL's time_part does,
		// so that the last bits agree: seconds plus the fraction divided.
		sec, frac := float64(inMinute/1_000_000), float64(inMinute%1_000_000)
		var f float64
		switch unit {
		case "microseconds":
			f = sec*1_000_000 + frac
		case "milliseconds":
			f = sec*1000 + frac/1000
		case "second":
			f = sec + frac/1_000_000
		case "epoch":
			f = float64(us) / 1_000_000
		default:
			f = float64(coeff)
		}
		return repr.NewFloat8(f), nil
	}
	return repr.NewNumeric(apd.New(coeff, exp)), nil
}

// timeTrunc is date_trunc(field, time): PostgreSQL has no date_trunc of
// time and casts it to interval, so the result is an interval of the
// truncated time of day (zero for a day or longer).
func timeTrunc(field string, us int64) (repr.Datum, error) {
	lower := strings.ToLower(field)
	unit, ok := timeUnits[lower]
	if !ok {
		return repr.Null, sqlerr.New(sqlerr.InvalidParameterValue, "unit \"%s\" not recognized for type interval", lower)
	}
	var step int64
	switch unit {
	case "microseconds":
		step = 1
	case "milliseconds":
		step = 1000
	case "second":
		step = 1_000_000
	case "minute":
		step = 60_000_000
	case "hour":
		step = 3_600_000_000
	case "day", "month", "quarter", "year", "decade", "century", "millennium":
		return repr.NewInterval(repr.IntervalValue{}), nil
	case "week":
		return repr.Null, sqlerr.New(sqlerr.FeatureNotSupported, "unit \"%s\" not supported for type interval", lower).
			WithDetail("Months usually have fractional weeks.")
	default:
		return repr.Null, sqlerr.New(sqlerr.FeatureNotSupported, "unit \"%s\" not supported for type interval", lower)
	}
	return repr.NewInterval(repr.IntervalValue{Micros: us / step * step}), nil
}
