package repr

import (
	"math"
	"strconv"
	"strings"

	"freshet/sqlerr"
)

// time without time zone: microseconds since midnight, 0 to 24:00:00
// inclusive, as PostgreSQL stores it. Input follows PostgreSQL's
// DecodeTimeOnly for the forms clients send:
//
//	13:45, 13:45:10, 13:45:10.123456, 1:02 PM, 12:30 am
//	0405 (hhmm), 040506[.5] (hhmmss), allballs (midnight), T10:00
//	10:00.5 (minutes and seconds, as PostgreSQL reads a fraction after
//	two fields)
//	a date first (2024-01-01 13:45), checked and ignored
//	a zone after the time (+05, -08:00, Z, UTC, PST, …), checked and
//	ignored, as PostgreSQL ignores it for time; a full zone name
//	(America/New_York) is refused, as PostgreSQL refuses it without a date
//
// 24:00:00 is a value of its own (the end of the day); anything past it
// is 22008.

// timeZoneAbbrevs are the zone abbreviations time input accepts (and
// ignores): those of PostgreSQL's Default set that clients commonly
// write. Others are 22007, where PostgreSQL knows some more.
var timeZoneAbbrevs = map[string]bool{
	"pst": true, "pdt": true, "mst": true, "mdt": true, "cst": true, "cdt": true,
	"est": true, "edt": true, "akst": true, "akdt": true, "hst": true, "ast": true,
	"adt": true, "nst": true, "ndt": true, "bst": true, "cet": true, "cest": true,
	"eet": true, "eest": true, "wet": true, "west": true, "msk": true, "ist": true,
	"jst": true, "kst": true, "aest": true, "aedt": true, "acst": true, "acdt": true,
	"awst": true, "nzst": true, "nzdt": true, "sgt": true, "hkt": true,
}

// parseTime reads a time as time_in does, then rounds it to t's
// precision.
func parseTime(t Type, s string) (Datum, error) {
	bad := func() (Datum, error) { return Null, errInvalidSyntax(t, s) }
	var toks []string
	for _, f := range strings.Fields(s) {
		// ISO 8601's T may lead the clock: T10:00.
		if len(f) > 1 && (f[0] == 'T' || f[0] == 't') && f[1] >= '0' && f[1] <= '9' {
			f = f[1:]
		}
		// A zone or AM/PM may follow the clock without a space.
		if f[0] >= '0' && f[0] <= '9' {
			k := strings.IndexFunc(f, func(r rune) bool { return r == '+' || r == '-' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' })
			// A '-' splits off a zone only after a colon or a fraction:
			// 2024-01-01 is a date, and PostgreSQL refuses 0405-08.
			if k > 0 && (f[k] != '-' || strings.ContainsAny(f[:k], ":.")) {
				toks = append(toks, f[:k], f[k:])
				continue
			}
		}
		toks = append(toks, f)
	}
	if len(toks) == 0 {
		return bad()
	}
	var (
		f                       dateTime
		hasDate, hasZone, hasAP bool
		pm, allballs            bool
		// zoneName is a full zone name, refused once the fields are
		// checked, as PostgreSQL refuses it without a date.
		zoneName bool
	)
	for i, tok := range toks {
		lower := strings.ToLower(tok)
		switch {
		case lower == "now" || lower == "today" || lower == "tomorrow" || lower == "yesterday":
			return Null, sqlerr.New(sqlerr.FeatureNotSupported, "date/time value \"%s\" is not supported", lower)
		case i == 0 && !strings.Contains(tok, ":") && strings.ContainsAny(tok, "-/") && tok[0] >= '0' && tok[0] <= '9':
			if !parseDateField(&f, tok) {
				return bad()
			}
			hasDate = true
		case i == 0 && len(tok) > 1 && (tok[0] == 'J' || tok[0] == 'j') && allDigits(tok[1:]):
			// A Julian day, as PostgreSQL reads it; ignored.
		case !f.hasTime && !hasDate && lower == "allballs":
			f.hasTime, allballs = true, true
		case !f.hasTime && tok[0] >= '0' && tok[0] <= '9':
			if hasDate && !strings.Contains(tok, ":") {
				// After a date PostgreSQL reads digits alone otherwise.
				return bad()
			}
			if !parseTimeClock(&f, tok) {
				return bad()
			}
			// PostgreSQL checks the minutes, seconds and fraction as it
			// reads the clock, before what follows it.
			if f.min > 59 || f.sec > 60 || f.us > usPerSecond {
				return Null, errFieldOverflow(s)
			}
		case f.hasTime && !hasAP && (lower == "am" || lower == "pm"):
			hasAP, pm = true, lower == "pm"
		case f.hasTime && !hasZone:
			hasZone = true
			if timeZoneAbbrevs[lower] {
				if allballs {
					// PostgreSQL takes no zone after allballs.
					return bad()
				}
				break
			}
			if strings.Contains(tok, "/") {
				// A full zone name needs a date to give an offset.
				zoneName = true
				break
			}
			var z dateTime
			if err := parseZone(&z, t, s, tok); err != nil {
				return Null, err
			}
			if allballs {
				return bad()
			}
		default:
			return bad()
		}
	}
	if !f.hasTime {
		return bad()
	}
	if hasDate {
		// The date is checked as date input checks it, then ignored.
		d := f
		d.hour, d.min, d.sec, d.us = 0, 0, 0, 0
		if err := validateDateTime(&d, s); err != nil {
			return Null, err
		}
	}
	if hasAP {
		if f.hour > 12 {
			return Null, errFieldOverflow(s)
		}
		switch {
		case !pm && f.hour == 12:
			f.hour = 0
		case pm && f.hour != 12:
			f.hour += 12
		}
	}
	if f.hour > 24 || f.min > 59 || f.sec > 60 || f.us > usPerSecond ||
		f.hour == 24 && (f.min > 0 || f.sec > 0 || f.us > 0) {
		return Null, errFieldOverflow(s)
	}
	us := int64(f.hour)*usPerHour + int64(f.min)*usPerMinute + int64(f.sec)*usPerSecond + f.us
	if us > usPerDay {
		return Null, errFieldOverflow(s)
	}
	if zoneName {
		return bad()
	}
	return NewTime(roundTime(us, t)), nil
}

func allDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// parseTimeClock reads the clock of time input: h:m[:s[.frac]], m:s.frac
// (a fraction after two fields), or hhmm and hhmmss[.frac] written without
// colons.
func parseTimeClock(f *dateTime, tok string) bool {
	if !strings.Contains(tok, ":") {
		digits, frac, hasDot := strings.Cut(tok, ".")
		switch {
		case len(digits) == 4 && !hasDot:
			tok = digits[:2] + ":" + digits[2:]
		case len(digits) == 6 && hasDot:
			tok = digits[:2] + ":" + digits[2:4] + ":" + digits[4:] + "." + frac
		case len(digits) == 6:
			tok = digits[:2] + ":" + digits[2:4] + ":" + digits[4:]
		default:
			return false
		}
	}
	parts := strings.Split(tok, ":")
	if len(parts) == 2 {
		if m, frac, ok := strings.Cut(parts[1], "."); ok {
			// Minutes and seconds, as PostgreSQL reads "mm:ss.fff".
			return parseClock(f, "0:"+parts[0]+":"+m+"."+frac)
		}
	}
	return parseClock(f, tok)
}

// roundTime rounds a time half up to t's fractional-second precision, as
// PostgreSQL's AdjustTimeForTypmod does. 24:00:00 is a multiple of every
// scale, so the result stays in range.
func roundTime(us int64, t Type) int64 {
	p, ok := t.TimePrecision()
	if !ok || p >= MaxTimePrecision {
		return us
	}
	scale := int64(math.Pow10(MaxTimePrecision - p))
	return (us + scale/2) / scale * scale
}

// appendTime appends a time as time_out does: hh:mm:ss with the
// fraction trimmed of trailing zeros, 24:00:00 for the end of the day.
func appendTime(buf []byte, us int64) []byte {
	return appendClock(buf, uint64(us/usPerHour), us%usPerHour/usPerMinute, us%usPerMinute)
}

// timeOfDay returns the microseconds since midnight of a count of
// microseconds, which may be negative or past a day.
func timeOfDay(us int64) int64 {
	us %= usPerDay
	if us < 0 {
		us += usPerDay
	}
	return us
}

// castToTime converts d to time as PostgreSQL's casts do: a timestamp's
// time of day (a timestamptz's in the session zone z; NULL for the
// infinities, as PostgreSQL 15 gives), an interval's time part modulo a
// day, a time rounded to to's precision.
func castToTime(d Datum, to Type, z *Zone) (Datum, error) {
	var us int64
	switch d.kind {
	case KindTime:
		us = d.i
	case KindTimestamp, KindTimestampTZ:
		if isInfiniteStamp(d.i) {
			return Null, nil
		}
		us = d.i
		if d.kind == KindTimestampTZ {
			us = z.ToLocal(us)
		}
		us = timeOfDay(us)
	case KindInterval:
		us = timeOfDay(d.Interval().Micros)
	default:
		return Null, errCannotCast(d.kind, to)
	}
	return NewTime(roundTime(us, to)), nil
}

// timeOfDayArith handles the operators on time: time ± interval and
// interval + time (the interval's time part, wrapping around midnight;
// its months and days are ignored, as in PostgreSQL), time - time (an
// interval of microseconds), and date + time, time + date and date - time
// (a timestamp).
func timeOfDayArith(op ArithOp, a, b Datum) (Datum, error) {
	switch {
	case a.kind == KindTime && b.kind == KindInterval && (op == OpAdd || op == OpSub):
		span := b.Interval().Micros % usPerDay
		if op == OpSub {
			span = -span
		}
		return NewTime(timeOfDay(a.i + span)), nil
	case a.kind == KindInterval && b.kind == KindTime && op == OpAdd:
		return timeOfDayArith(op, b, a)
	case a.kind == KindTime && b.kind == KindTime && op == OpSub:
		return NewInterval(IntervalValue{Micros: a.i - b.i}), nil
	case a.kind == KindDate && b.kind == KindTime && (op == OpAdd || op == OpSub):
		ts, err := Cast(a, Timestamp)
		if err != nil || isInfiniteStamp(ts.i) {
			return ts, err
		}
		us := ts.i + b.i
		if op == OpSub {
			us = ts.i - b.i
		}
		if !validTimestamp(us) {
			return Null, errTimestampRange
		}
		return NewTimestamp(us), nil
	case a.kind == KindTime && b.kind == KindDate && op == OpAdd:
		return timeOfDayArith(op, b, a)
	}
	return Null, errNoOperator(opNames[op], a, b)
}

// MakeTime returns make_time(hour, min, sec) as PostgreSQL computes it:
// the fields may reach 24:00:00 and sec 60, nothing past; 22008
// otherwise.
func MakeTime(hour, min int64, sec float64) (Datum, error) {
	bad := func() (Datum, error) {
		// PostgreSQL prints the seconds with %02g.
		s := strconv.FormatFloat(sec, 'g', 6, 64)
		switch {
		case math.IsNaN(sec):
			s = "NaN"
		case len(s) < 2:
			s = "0" + s
		}
		return Null, sqlerr.New(sqlerr.DatetimeFieldOverflow, "time field value out of range: %d:%02d:%s", hour, min, s)
	}
	if hour < 0 || hour > 24 || min < 0 || min >= 60 || math.IsNaN(sec) {
		return bad()
	}
	us := math.RoundToEven(sec * usPerSecond)
	if us < 0 || us > 60*usPerSecond {
		return bad()
	}
	total := (hour*60+min)*usPerMinute + int64(us)
	if total > usPerDay {
		return bad()
	}
	return NewTime(total), nil
}
