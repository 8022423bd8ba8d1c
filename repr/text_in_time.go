package repr

import (
	"math"
	"strconv"
	"strings"
	"time"

	"freshet/sqlerr"
)

// Date and timestamp input accepts the forms PostgreSQL accepts under
// DateStyle "ISO, MDY" that clients and tests send:
//
//	2024-01-02, 2024/1/2, 20240102, 01/02/2024 and 01-02-24 (MDY)
//	2024-01-02 03:04[:05[.123456]], or with T between date and time
//	a zone after the time: +05, -0530, +05:30:00, Z, UTC, GMT, or an
//	IANA name (America/New_York), ignored by timestamp without zone
//	BC or AD after the date
//	infinity, -infinity, epoch
//
// Month names ("Jan 2 2024"), Julian days and the special values now,
// today, tomorrow and yesterday are not supported: the last ones need a
// clock, which repr does not have.

// dateTime holds the fields of date/time input.
type dateTime struct {
	year, month, day int
	twoDigitYear     bool // year written with one or two digits
	bc               bool
	hasTime          bool
	hour, min, sec   int
	us               int64 // fraction of the second, rounded to µs
	hasZone          bool
	offset           int64 // zone offset east of UTC, in seconds
	loc              *time.Location
}

// parseDate reads a date as date_in does; a time and zone are allowed
// and ignored.
func parseDate(s string) (Datum, error) {
	switch special(s) {
	case "infinity", "+infinity":
		return NewDate(DatePosInfinity), nil
	case "-infinity":
		return NewDate(DateNegInfinity), nil
	case "epoch":
		return NewDate(int32(daysFromCivil(1970, 1, 1))), nil
	}
	f, err := parseDateTime(Date, s)
	if err != nil {
		return Null, err
	}
	days := daysFromCivil(f.year, f.month, f.day)
	if !validDate(days) {
		return Null, errOutOfRangeInput("date", s)
	}
	return NewDate(int32(days)), nil
}

// parseTimestamp reads a timestamp or timestamptz as timestamp_in and
// timestamptz_in do, then rounds it to t's precision.
func parseTimestamp(t Type, s string, z *Zone) (Datum, error) {
	var us int64
	switch special(s) {
	case "infinity", "+infinity":
		us = TimestampPosInfinity
	case "-infinity":
		us = TimestampNegInfinity
	case "epoch":
		us = daysFromCivil(1970, 1, 1) * usPerDay
	default:
		f, err := parseDateTime(t, s)
		if err != nil {
			return Null, err
		}
		days := daysFromCivil(f.year, f.month, f.day)
		if !validDate(days) {
			return Null, errOutOfRangeInput("timestamp", s)
		}
		us = days*usPerDay + int64(f.hour)*usPerHour + int64(f.min)*usPerMinute + int64(f.sec)*usPerSecond + f.us
		if t.kind == KindTimestampTZ {
			switch {
			case f.loc != nil:
				// The offset of a named zone depends on the date and time.
				us = (&Zone{loc: f.loc}).FromLocal(us)
			case f.hasZone:
				us -= f.offset * usPerSecond
			default:
				us = z.FromLocal(us)
			}
		}
		if !validTimestamp(us) {
			return Null, errOutOfRangeInput("timestamp", s)
		}
	}
	us, err := roundTimestamp(us, t)
	if err != nil {
		return Null, err
	}
	return Datum{head: head{kind: t.kind, valid: true}, i: us}, nil
}

// roundTimestamp rounds a timestamp half away from zero to t's
// fractional-second precision, as PostgreSQL's AdjustTimestampForTypmod.
func roundTimestamp(us int64, t Type) (int64, error) {
	p, ok := t.TimePrecision()
	if !ok || p >= MaxTimePrecision || us == TimestampNegInfinity || us == TimestampPosInfinity {
		return us, nil
	}
	scale := int64(math.Pow10(MaxTimePrecision - p))
	if us >= 0 {
		us = (us + scale/2) / scale * scale
	} else {
		us = -((-us + scale/2) / scale * scale)
	}
	if !validTimestamp(us) {
		return 0, errTimestampRange
	}
	return us, nil
}

// special returns s trimmed and lowercased if it is one of the special
// date/time words, and "" otherwise. The words that need a clock are an
// error of their own, reported by parseDateTime.
func special(s string) string {
	v := strings.ToLower(trimSpace(s))
	switch v {
	case "infinity", "+infinity", "-infinity", "epoch":
		return v
	}
	return ""
}

// parseDateTime splits date/time input into fields and validates them.
func parseDateTime(t Type, s string) (dateTime, error) {
	var f dateTime
	bad := func() (dateTime, error) { return dateTime{}, errInvalidSyntax(t, s) }
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return bad()
	}
	hasDate := false
	for i := 0; i < len(fields); i++ {
		tok := fields[i]
		lower := strings.ToLower(tok)
		switch {
		case lower == "now" || lower == "today" || lower == "tomorrow" || lower == "yesterday":
			return dateTime{}, sqlerr.New(sqlerr.FeatureNotSupported,
				"date/time value \"%s\" is not supported", lower)
		case !hasDate && tok[0] >= '0' && tok[0] <= '9':
			date, rest := tok, ""
			if k := strings.IndexAny(tok, "Tt"); k > 0 {
				date, rest = tok[:k], tok[k+1:]
				if rest == "" {
					return bad()
				}
			}
			if !parseDateField(&f, date) {
				return bad()
			}
			hasDate = true
			if rest != "" {
				fields[i] = rest
				i--
			}
		case hasDate && lower == "bc":
			f.bc = true
		case hasDate && lower == "ad":
		case hasDate && !f.hasTime && tok[0] >= '0' && tok[0] <= '9':
			clock, zone := tok, ""
			if k := strings.IndexAny(tok, "+-Zz"); k > 0 {
				clock, zone = tok[:k], tok[k:]
			}
			if !parseClock(&f, clock) {
				return bad()
			}
			if zone != "" {
				if err := parseZone(&f, t, s, zone); err != nil {
					return dateTime{}, err
				}
			}
		case hasDate && f.hasTime && !f.hasZone:
			if err := parseZone(&f, t, s, tok); err != nil {
				return dateTime{}, err
			}
		default:
			return bad()
		}
	}
	if !hasDate {
		return bad()
	}
	return f, validateDateTime(&f, s)
}

// parseDateField reads the date token: Y-M-D or Y/M/D with a year of
// three or more digits, M-D-Y or M/D/Y otherwise, or YYYYMMDD.
func parseDateField(f *dateTime, tok string) bool {
	var parts []string
	switch {
	case strings.Contains(tok, "-"):
		parts = strings.Split(tok, "-")
	case strings.Contains(tok, "/"):
		parts = strings.Split(tok, "/")
	case len(tok) == 8:
		parts = []string{tok[:4], tok[4:6], tok[6:]}
	default:
		return false
	}
	if len(parts) != 3 {
		return false
	}
	var n [3]int
	for i, p := range parts {
		if p == "" || len(p) > 9 {
			return false
		}
		for _, c := range []byte(p) {
			if c < '0' || c > '9' {
				return false
			}
		}
		n[i], _ = strconv.Atoi(p)
	}
	if len(parts[0]) > 2 {
		f.year, f.month, f.day = n[0], n[1], n[2]
		f.twoDigitYear = false
	} else {
		f.month, f.day, f.year = n[0], n[1], n[2]
		f.twoDigitYear = len(parts[2]) <= 2
	}
	return true
}

// parseClock reads hh:mm[:ss[.fraction]].
func parseClock(f *dateTime, tok string) bool {
	parts := strings.Split(tok, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return false
	}
	frac := ""
	if len(parts) == 3 {
		if k := strings.IndexByte(parts[2], '.'); k >= 0 {
			parts[2], frac = parts[2][:k], parts[2][k:]
		}
	}
	var n [3]int
	for i, p := range parts {
		if p == "" || len(p) > 9 {
			return false
		}
		for _, c := range []byte(p) {
			if c < '0' || c > '9' {
				return false
			}
		}
		n[i], _ = strconv.Atoi(p)
	}
	f.hour, f.min, f.sec = n[0], n[1], n[2]
	if frac != "" {
		us, ok := parseFraction(frac)
		if !ok {
			return false
		}
		f.us = us
	}
	f.hasTime = true
	return true
}

// parseFraction reads ".ddd" as a fraction of a second and rounds it to
// microseconds the way PostgreSQL does: rint of the float product.
func parseFraction(frac string) (int64, bool) {
	if len(frac) < 2 {
		return 0, frac == "."
	}
	for _, c := range []byte(frac[1:]) {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseFloat("0"+frac, 64)
	if err != nil {
		return 0, false
	}
	return int64(math.RoundToEven(v * usPerSecond)), true
}

// parseZone reads a zone: a numeric offset, Z, UTC and friends, or an
// IANA zone name.
func parseZone(f *dateTime, t Type, s, tok string) error {
	f.hasZone = true
	switch strings.ToLower(tok) {
	case "z", "zulu", "utc", "gmt", "ut":
		return nil
	}
	if tok[0] == '+' || tok[0] == '-' {
		body := tok[1:]
		var h, m, sec int
		var ok bool
		switch {
		case strings.Contains(body, ":"):
			parts := strings.Split(body, ":")
			ok = len(parts) <= 3
			for i, p := range parts {
				v, err := strconv.Atoi(p)
				ok = ok && err == nil && len(p) <= 2 && p != "" && v >= 0
				switch i {
				case 0:
					h = v
				case 1:
					m = v
				case 2:
					sec = v
				}
			}
		case len(body) == 1 || len(body) == 2:
			v, err := strconv.Atoi(body)
			h, ok = v, err == nil && v >= 0
		case len(body) == 4:
			v, err := strconv.Atoi(body)
			h, m, ok = v/100, v%100, err == nil && v >= 0
		}
		if !ok {
			return errInvalidSyntax(t, s)
		}
		if h > 15 || m >= 60 || sec >= 60 {
			return sqlerr.New(sqlerr.InvalidTimeZoneDisplacement, "time zone displacement out of range: \"%s\"", s)
		}
		f.offset = int64(h*3600 + m*60 + sec)
		if tok[0] == '-' {
			f.offset = -f.offset
		}
		return nil
	}
	if loc := loadZone(tok); loc != nil {
		f.loc = loc
		return nil
	}
	if strings.Contains(tok, "/") {
		return sqlerr.New(sqlerr.InvalidParameterValue, "time zone \"%s\" not recognized", strings.ToLower(tok))
	}
	return errInvalidSyntax(t, s)
}

// loadZone returns the IANA zone named tok, matching case-insensitively
// as PostgreSQL does, or nil.
func loadZone(tok string) *time.Location {
	if !strings.Contains(tok, "/") || strings.Contains(tok, "..") {
		return nil
	}
	if loc, err := time.LoadLocation(tok); err == nil {
		return loc
	}
	// Retry with each word capitalised: america/new_york.
	b := []byte(strings.ToLower(tok))
	for i := range b {
		if i == 0 || b[i-1] == '/' || b[i-1] == '_' || b[i-1] == '-' {
			b[i] = byte(strings.ToUpper(string(b[i]))[0])
		}
	}
	if loc, err := time.LoadLocation(string(b)); err == nil {
		return loc
	}
	return nil
}

// validateDateTime checks the ranges of the fields and turns the year
// into an astronomical one (1 BC is year 0).
func validateDateTime(f *dateTime, s string) error {
	switch {
	case f.bc:
		if f.year <= 0 {
			return errFieldOverflow(s)
		}
		f.year = 1 - f.year
	case f.twoDigitYear:
		if f.year < 70 {
			f.year += 2000
		} else if f.year < 100 {
			f.year += 1900
		}
	case f.year <= 0:
		return errFieldOverflow(s)
	}
	if f.month < 1 || f.month > 12 || f.day < 1 || f.day > 31 {
		err := errFieldOverflow(s)
		return err.(*sqlerr.Error).WithHint("Perhaps you need a different \"datestyle\" setting.")
	}
	if f.day > daysInMonth(f.year, f.month) {
		return errFieldOverflow(s)
	}
	if f.hour > 24 || f.min > 59 || f.sec > 60 ||
		f.hour == 24 && (f.min != 0 || f.sec != 0 || f.us != 0) {
		return errFieldOverflow(s)
	}
	return nil
}
