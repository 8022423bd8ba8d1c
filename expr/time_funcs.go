package expr

import (
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"

	"freshet/repr"
	"freshet/sqlerr"
)

// datePart extracts a field of a timestamp or timestamptz (in UTC), as
// date_part (float8) or EXTRACT (numeric) do.
func datePart(field string, ts repr.Datum, numeric bool) (repr.Datum, error) {
	if ts.Kind() == repr.KindTime {
		return timePart(field, ts.Time(), numeric)
	}
	us := ts.Timestamp()
	t := repr.TimeFromTimestamp(us)
	var v float64
	switch strings.ToLower(field) {
	case "microseconds":
		v = float64(t.Second()*1_000_000 + t.Nanosecond()/1000)
	case "milliseconds":
		v = float64(t.Second())*1000 + float64(t.Nanosecond())/1e6
	case "second":
		v = float64(t.Second()) + float64(t.Nanosecond())/1e9
	case "minute":
		v = float64(t.Minute())
	case "hour":
		v = float64(t.Hour())
	case "day":
		v = float64(t.Day())
	case "dow":
		v = float64(t.Weekday())
	case "isodow":
		v = float64((int(t.Weekday())+6)%7 + 1)
	case "doy":
		v = float64(t.YearDay())
	case "week":
		_, w := t.ISOWeek()
		v = float64(w)
	case "month":
		v = float64(t.Month())
	case "quarter":
		v = float64((int(t.Month())-1)/3 + 1)
	case "year":
		v = float64(t.Year())
	case "decade":
		v = float64(floorDiv(t.Year(), 10))
	case "century":
		if y := t.Year(); y > 0 {
			v = float64((y + 99) / 100)
		} else {
			v = -float64((99 - y) / 100)
		}
	case "epoch":
		v = float64(t.Unix()) + float64(t.Nanosecond())/1e9
	default:
		return repr.Null, sqlerr.New(sqlerr.InvalidParameterValue, "unit %q not recognized for type timestamp", field)
	}
	if !numeric {
		return repr.NewFloat8(v), nil
	}
	d, _, err := apd.NewFromString(strconv.FormatFloat(v, 'f', extractScale(field), 64))
	if err != nil {
		return repr.Null, sqlerr.AssertionFailedf("extract: %v", err)
	}
	return repr.NewNumeric(d), nil
}

// extractScale returns the display scale of EXTRACT(field FROM ts), as
// PostgreSQL gives it: milliseconds have 3 fractional digits, second
// and epoch 6 (microseconds), the other fields none.
func extractScale(field string) int {
	unit := strings.ToLower(field)
	if u, ok := timeUnits[unit]; ok {
		unit = u
	}
	switch unit {
	case "milliseconds":
		return 3
	case "second", "epoch":
		return 6
	}
	return 0
}

// dateTrunc truncates a timestamp or timestamptz (in UTC) to a field.
func dateTrunc(field string, ts repr.Datum) (repr.Datum, error) {
	if ts.Kind() == repr.KindTime {
		return timeTrunc(field, ts.Time())
	}
	t := repr.TimeFromTimestamp(ts.Timestamp())
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	ns := t.Nanosecond()
	switch strings.ToLower(field) {
	case "microseconds":
		ns = ns / 1000 * 1000
	case "milliseconds":
		ns = ns / 1_000_000 * 1_000_000
	case "second":
		ns = 0
	case "minute":
		s, ns = 0, 0
	case "hour":
		mi, s, ns = 0, 0, 0
	case "day":
		h, mi, s, ns = 0, 0, 0, 0
	case "week":
		back := (int(t.Weekday()) + 6) % 7
		d -= back
		h, mi, s, ns = 0, 0, 0, 0
	case "month":
		d, h, mi, s, ns = 1, 0, 0, 0, 0
	case "quarter":
		mo = time.Month((int(mo)-1)/3*3 + 1)
		d, h, mi, s, ns = 1, 0, 0, 0, 0
	case "year":
		mo, d, h, mi, s, ns = 1, 1, 0, 0, 0, 0
	case "decade":
		y = floorDiv(y, 10) * 10
		mo, d, h, mi, s, ns = 1, 1, 0, 0, 0, 0
	case "century":
		y = floorDiv(y-1, 100)*100 + 1
		mo, d, h, mi, s, ns = 1, 1, 0, 0, 0, 0
	default:
		return repr.Null, sqlerr.New(sqlerr.InvalidParameterValue, "unit %q not recognized for type timestamp", field)
	}
	us := repr.TimestampFromTime(time.Date(y, mo, d, h, mi, s, ns, time.UTC))
	if ts.Kind() == repr.KindTimestampTZ {
		return repr.NewTimestampTZ(us), nil
	}
	return repr.NewTimestamp(us), nil
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
