package repr

import (
	"math"
	"strconv"
	"strings"

	"freshet/sqlerr"
)

// Interval input accepts PostgreSQL's postgres-style forms ("1 year 2
// mons", "1 day -02:03:04", "1.5 days", "@ 1 day ago", "10", "1:30.5")
// and ISO 8601 designators ("P1Y2M3DT4H5M6.5S"). A fraction of a unit
// spills into the smaller units as PostgreSQL 15 spills it: fractions of
// years become whole months, of months 30-day days and then
// microseconds, of weeks and days microseconds. The ISO 8601
// alternative format ("P0001-02-03T04:05:06") and SQL-standard
// year-month literals ("1-2") are not supported.

// intervalUnit is what one unit word adds, in PostgreSQL's terms.
type intervalUnit struct {
	mask   uint16 // the field the unit fills; each may appear once
	years  int64  // years per unit (year, decade, century, millennium)
	months bool   // the unit is a month
	days   int64  // days per unit (day, week)
	us     int64  // microseconds per unit (hour down to microsecond)
}

const (
	fieldYear uint16 = 1 << iota
	fieldDecade
	fieldCentury
	fieldMillennium
	fieldMonth
	fieldWeek
	fieldDay
	fieldHour
	fieldMinute
	fieldSecond
	fieldMillisecond
	fieldMicrosecond
	fieldAllSeconds = fieldSecond | fieldMillisecond | fieldMicrosecond
	fieldTime       = fieldHour | fieldMinute | fieldAllSeconds
)

var (
	unitYear        = intervalUnit{mask: fieldYear, years: 1}
	unitDecade      = intervalUnit{mask: fieldDecade, years: 10}
	unitCentury     = intervalUnit{mask: fieldCentury, years: 100}
	unitMillennium  = intervalUnit{mask: fieldMillennium, years: 1000}
	unitMonth       = intervalUnit{mask: fieldMonth, months: true}
	unitWeek        = intervalUnit{mask: fieldWeek, days: 7}
	unitDay         = intervalUnit{mask: fieldDay, days: 1}
	unitHour        = intervalUnit{mask: fieldHour, us: usPerHour}
	unitMinute      = intervalUnit{mask: fieldMinute, us: usPerMinute}
	unitSecond      = intervalUnit{mask: fieldSecond, us: usPerSecond}
	unitMillisecond = intervalUnit{mask: fieldMillisecond, us: 1000}
	unitMicrosecond = intervalUnit{mask: fieldMicrosecond, us: 1}
)

// intervalUnits are PostgreSQL's unit words for interval input.
var intervalUnits = map[string]intervalUnit{
	"y": unitYear, "year": unitYear, "years": unitYear, "yr": unitYear, "yrs": unitYear,
	"dec": unitDecade, "decs": unitDecade, "decade": unitDecade, "decades": unitDecade,
	"c": unitCentury, "cent": unitCentury, "century": unitCentury, "centuries": unitCentury,
	"mil": unitMillennium, "mils": unitMillennium, "millennium": unitMillennium, "millennia": unitMillennium,
	"mon": unitMonth, "mons": unitMonth, "month": unitMonth, "months": unitMonth,
	"w": unitWeek, "week": unitWeek, "weeks": unitWeek,
	"d": unitDay, "day": unitDay, "days": unitDay,
	"h": unitHour, "hour": unitHour, "hours": unitHour, "hr": unitHour, "hrs": unitHour,
	"m": unitMinute, "min": unitMinute, "mins": unitMinute, "minute": unitMinute, "minutes": unitMinute,
	"s": unitSecond, "sec": unitSecond, "secs": unitSecond, "second": unitSecond, "seconds": unitSecond,
	"ms": unitMillisecond, "msec": unitMillisecond, "msecs": unitMillisecond, "mseconds": unitMillisecond,
	"millisecond": unitMillisecond, "milliseconds": unitMillisecond, "millisecon": unitMillisecond,
	"us": unitMicrosecond, "usec": unitMicrosecond, "usecs": unitMicrosecond, "useconds": unitMicrosecond,
	"microsecond": unitMicrosecond, "microseconds": unitMicrosecond, "microsecon": unitMicrosecond,
}

// intervalBuilder accumulates interval fields with PostgreSQL's overflow
// checks: years, months and days must stay within int32, microseconds
// within int64.
type intervalBuilder struct {
	years, months, days int64
	us                  int64
	seen                uint16
	ok                  bool
}

func (b *intervalBuilder) addYears(n int64)  { b.years += n; b.check32(b.years) }
func (b *intervalBuilder) addMonths(n int64) { b.months += n; b.check32(b.months) }
func (b *intervalBuilder) addDays(n int64)   { b.days += n; b.check32(b.days) }

func (b *intervalBuilder) check32(v int64) {
	if v < math.MinInt32 || v > math.MaxInt32 {
		b.ok = false
	}
}

func (b *intervalBuilder) addMicros(n int64) {
	s := b.us + n
	if (n > 0 && s < b.us) || (n < 0 && s > b.us) {
		b.ok = false
	}
	b.us = s
}

// addFractMicros adds frac (|frac| < 1) of scale microseconds, rounding
// the last fraction of a microsecond as rint does.
func (b *intervalBuilder) addFractMicros(frac float64, scale int64) {
	if frac == 0 {
		return
	}
	frac *= float64(scale)
	us := int64(frac)
	b.addMicros(us + int64(math.RoundToEven(frac-float64(us))))
}

// add adds n (the integer part) and frac (the fraction, with n's sign)
// of a unit.
func (b *intervalBuilder) add(u intervalUnit, n int64, frac float64) {
	switch {
	case u.years != 0:
		b.addYears(n * u.years)
		b.addMonths(int64(math.RoundToEven(frac * float64(u.years) * 12)))
	case u.months:
		b.addMonths(n)
		b.addFractDays(frac, 30)
	case u.days != 0:
		b.addDays(n * u.days)
		b.addFractDays(frac, u.days)
	default:
		if n > math.MaxInt64/u.us || n < math.MinInt64/u.us {
			b.ok = false
			return
		}
		b.addMicros(n * u.us)
		b.addFractMicros(frac, u.us)
	}
}

// addFractDays adds frac of scale days: whole days, then microseconds.
func (b *intervalBuilder) addFractDays(frac float64, scale int64) {
	if frac == 0 {
		return
	}
	frac *= float64(scale)
	days := int64(frac)
	b.addDays(days)
	b.addFractMicros(frac-float64(days), usPerDay)
}

// parseInterval reads an interval as interval_in does.
func parseInterval(s string) (Datum, error) {
	bad := func() (Datum, error) { return Null, errInvalidSyntax(Interval, s) }
	b := intervalBuilder{ok: true}
	fields := splitIntervalFields(s)
	if len(fields) == 0 {
		return bad()
	}
	ago := false
	if f := fields[0]; len(fields) == 1 && (f[0] == 'P' || f[0] == 'p') {
		if !parseISOInterval(&b, f[1:]) {
			return bad()
		}
	} else {
		for i := 0; i < len(fields); i++ {
			f := strings.ToLower(fields[i])
			switch {
			case f == "@" && i == 0:
			case f == "ago" && i == len(fields)-1 && i > 0:
				ago = true
			case strings.Contains(f, ":"):
				if b.seen&fieldTime != 0 || !parseIntervalClock(&b, f) {
					return bad()
				}
				b.seen |= fieldTime
			default:
				n, frac, ok := parseIntervalNumber(f)
				if !ok {
					return bad()
				}
				u := unitSecond
				if i+1 < len(fields) {
					if next, isUnit := intervalUnits[strings.ToLower(fields[i+1])]; isUnit {
						u = next
						i++
					}
				}
				mask := u.mask
				if u == unitSecond && frac != 0 {
					mask = fieldAllSeconds
				}
				if b.seen&mask != 0 {
					return bad()
				}
				b.seen |= mask
				if n.overflow {
					b.ok = false
				}
				b.add(u, n.v, frac)
			}
		}
	}
	if !b.ok {
		return Null, sqlerr.New(sqlerr.IntervalFieldOverflow, "interval field value out of range: \"%s\"", s)
	}
	months := b.years*12 + b.months
	if months < math.MinInt32 || months > math.MaxInt32 {
		return Null, errIntervalRange
	}
	v := IntervalValue{Months: int32(months), Days: int32(b.days), Micros: b.us}
	if ago {
		if v.Months == math.MinInt32 || v.Days == math.MinInt32 || v.Micros == math.MinInt64 {
			return Null, sqlerr.New(sqlerr.IntervalFieldOverflow, "interval field value out of range: \"%s\"", s)
		}
		v = IntervalValue{Months: -v.Months, Days: -v.Days, Micros: -v.Micros}
	}
	return NewInterval(v), nil
}

// splitIntervalFields splits interval text at white space, and a number
// from the unit word glued to it ("1day").
func splitIntervalFields(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		if !strings.Contains(f, ":") && f != "" && (f[0] >= '0' && f[0] <= '9' || f[0] == '-' || f[0] == '+' || f[0] == '.') {
			k := strings.IndexFunc(f, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' })
			if k > 0 {
				out = append(out, f[:k], f[k:])
				continue
			}
		}
		out = append(out, f)
	}
	return out
}

// intPart is the integer part of an interval number; overflow is set
// when it does not fit an int32, as PostgreSQL 15 requires.
type intPart struct {
	v        int64
	overflow bool
}

// parseIntervalNumber reads [+-]digits[.digits] into its integer part
// and its fraction, which carries the number's sign.
func parseIntervalNumber(f string) (intPart, float64, bool) {
	neg := false
	body := f
	if body != "" && (body[0] == '-' || body[0] == '+') {
		neg = body[0] == '-'
		body = body[1:]
	}
	whole, frac, hasPoint := strings.Cut(body, ".")
	if whole == "" && (!hasPoint || frac == "") {
		return intPart{}, 0, false
	}
	for _, c := range []byte(whole + frac) {
		if c < '0' || c > '9' {
			return intPart{}, 0, false
		}
	}
	var n intPart
	if whole != "" {
		v, err := strconv.ParseInt(whole, 10, 64)
		if neg {
			v = -v
		}
		n = intPart{v: v, overflow: err != nil || v > math.MaxInt32 || v < math.MinInt32}
	}
	fv := 0.0
	if frac != "" {
		fv, _ = strconv.ParseFloat("0."+frac, 64)
	}
	if neg {
		fv = -fv
	}
	return n, fv, true
}

// parseIntervalClock reads [+-]h:m[:s[.f]], or [+-]m:s.f, and adds it.
func parseIntervalClock(b *intervalBuilder, f string) bool {
	neg := false
	if f[0] == '-' || f[0] == '+' {
		neg = f[0] == '-'
		f = f[1:]
	}
	parts := strings.Split(f, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return false
	}
	frac := ""
	last := &parts[len(parts)-1]
	if k := strings.IndexByte(*last, '.'); k >= 0 {
		*last, frac = (*last)[:k], (*last)[k:]
	}
	if len(parts) == 2 && frac != "" {
		// Minutes and seconds.
		parts = append([]string{"0"}, parts...)
	}
	var n [3]int64
	for i, p := range parts {
		if p == "" || len(p) > 18 {
			return false
		}
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil || v < 0 {
			return false
		}
		n[i] = v
	}
	if n[1] > 59 || n[2] > 60 || n[0] > math.MaxInt64/usPerHour {
		b.ok = false
		return true
	}
	us := n[0]*usPerHour + n[1]*usPerMinute + n[2]*usPerSecond
	if frac != "" {
		f, ok := parseFraction(frac)
		if !ok {
			return false
		}
		us += f
	}
	if neg {
		us = -us
	}
	b.addMicros(us)
	return true
}

// parseISOInterval reads the designators of an ISO 8601 duration after
// its P: nY nM nW nD, then T nH nM nS, each n optionally signed and
// fractional.
func parseISOInterval(b *intervalBuilder, s string) bool {
	if s == "" {
		return false
	}
	inTime := false
	for s != "" {
		if s[0] == 'T' || s[0] == 't' {
			if inTime {
				return false
			}
			inTime = true
			s = s[1:]
			continue
		}
		k := strings.IndexFunc(s, func(r rune) bool { return r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' })
		if k <= 0 {
			return false
		}
		n, frac, ok := parseIntervalNumber(s[:k])
		if !ok {
			return false
		}
		if n.overflow {
			b.ok = false
		}
		var u intervalUnit
		switch d := s[k] | 0x20; {
		case !inTime && d == 'y':
			u = unitYear
		case !inTime && d == 'm':
			u = unitMonth
		case !inTime && d == 'w':
			u = unitWeek
		case !inTime && d == 'd':
			u = unitDay
		case inTime && d == 'h':
			u = unitHour
		case inTime && d == 'm':
			u = unitMinute
		case inTime && d == 's':
			u = unitSecond
		default:
			return false
		}
		if b.seen&u.mask != 0 {
			return false
		}
		b.seen |= u.mask
		b.add(u, n.v, frac)
		s = s[k+1:]
	}
	return true
}
