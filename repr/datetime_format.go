package repr

import (
	"strconv"
	"strings"

	"freshet/sqlerr"
)

// The template patterns of to_char, to_timestamp and to_date, as
// PostgreSQL reads them: the date and time fields (YYYY, MM, DD, HH24,
// MI, SS, MS, US, ...), month and day names in three casings (MONTH,
// Month, month; MON, Mon, mon; DAY, Day, day; DY, Dy, dy), AM and PM,
// the FM prefix (no padding), double-quoted literal text and backslash
// escapes. Other characters are copied on output and, on input, match
// any one separator character.

type fmtToken struct {
	pattern string // upper case; "" for literal text
	orig    string // the pattern as the template spells it (its casing)
	text    string // the literal text
	fill    bool   // FM: no padding
}

// fmtPatterns are the patterns, matched without regard to case (the
// casing of a name pattern is that of its output), longest first where
// one is a prefix of another.
var fmtPatterns = []string{
	"HH24", "HH12", "HH", "MI", "SS", "MS", "US",
	"A.M.", "P.M.", "AM", "PM",
	"YYYY", "YYY", "YY", "Y",
	"MONTH", "MON", "MM",
	"DAY", "DDD", "DD", "DY", "D",
	"Q", "J",
}

// fmtWidths are the widths of the number patterns when another pattern
// follows with no separator (YYYYMMDD).
var fmtWidths = map[string]int{"HH24": 2, "HH12": 2, "HH": 2, "MI": 2, "SS": 2, "MS": 3, "US": 6,
	"YYYY": 4, "YYY": 3, "YY": 2, "Y": 1, "MM": 2, "DDD": 3, "DD": 2, "D": 1, "Q": 1}

func tokenizeFormat(f string) []fmtToken {
	var out []fmtToken
	for i := 0; i < len(f); {
		fill := false
		if len(f)-i >= 2 && strings.EqualFold(f[i:i+2], "FM") {
			fill = true
			i += 2
			if i == len(f) {
				break
			}
		}
		matched := false
		for _, p := range fmtPatterns {
			if len(f)-i >= len(p) && strings.EqualFold(f[i:i+len(p)], p) {
				out = append(out, fmtToken{pattern: p, orig: f[i : i+len(p)], fill: fill})
				i += len(p)
				matched = true
				break
			}
		}
		if matched {
			continue
		}
		switch c := f[i]; {
		case c == '"':
			j := i + 1
			var b strings.Builder
			for j < len(f) && f[j] != '"' {
				if f[j] == '\\' && j+1 < len(f) {
					j++
				}
				b.WriteByte(f[j])
				j++
			}
			out = append(out, fmtToken{text: b.String()})
			i = j + 1
		default:
			out = append(out, fmtToken{text: f[i : i+1]})
			i++
		}
	}
	return out
}

var monthNames = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
var dayNames = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}

// cased writes name in the casing of pattern as the template spells
// it: MONTH upper, Month capitalised, month lower; full names are padded
// to 9 characters unless fill.
func cased(name, spelled string, full, fill bool) string {
	if !full {
		name = name[:3]
	}
	switch {
	case spelled == strings.ToUpper(spelled):
		name = strings.ToUpper(name)
	case spelled[:1] == strings.ToLower(spelled[:1]):
		name = strings.ToLower(name)
	}
	if full && !fill {
		name += strings.Repeat(" ", 9-len(name))
	}
	return name
}

func padNum(b *strings.Builder, v int64, width int, fill bool) {
	s := strconv.FormatInt(v, 10)
	if !fill {
		for i := len(s); i < width; i++ {
			b.WriteByte('0')
		}
	}
	b.WriteString(s)
}

// FormatDateTime is to_char of a wall-clock timestamp us (microseconds
// since 2000-01-01) with template f. An infinite timestamp gives NULL's
// place to the caller: ok is false.
func FormatDateTime(us int64, f string) (string, bool) {
	if isInfiniteStamp(us) {
		return "", false
	}
	days, tod := splitTimestamp(us)
	y, m, d := civilFromDays(days)
	hour, min, sec, frac := tod/usPerHour, tod/usPerMinute%60, tod/usPerSecond%60, tod%usPerSecond
	dow := int((days + 6) % 7) // 2000-01-01 was a Saturday
	if dow < 0 {
		dow += 7
	}
	doy := days - daysFromCivil(y, 1, 1) + 1
	var b strings.Builder
	for _, t := range tokenizeFormat(f) {
		switch t.pattern {
		case "":
			b.WriteString(t.text)
		case "HH24":
			padNum(&b, hour, 2, t.fill)
		case "HH12", "HH":
			h := hour % 12
			if h == 0 {
				h = 12
			}
			padNum(&b, h, 2, t.fill)
		case "MI":
			padNum(&b, min, 2, t.fill)
		case "SS":
			padNum(&b, sec, 2, t.fill)
		case "MS":
			padNum(&b, frac/1000, 3, t.fill)
		case "US":
			padNum(&b, frac, 6, t.fill)
		case "AM", "PM", "A.M.", "P.M.":
			s := "AM"
			if hour >= 12 {
				s = "PM"
			}
			if strings.Contains(t.pattern, ".") {
				s = s[:1] + "." + s[1:] + "."
			}
			if t.orig[:1] == strings.ToLower(t.orig[:1]) {
				s = strings.ToLower(s)
			}
			b.WriteString(s)
		case "YYYY":
			padNum(&b, int64(y), 4, t.fill)
		case "YYY":
			padNum(&b, int64(y%1000), 3, t.fill)
		case "YY":
			padNum(&b, int64(y%100), 2, t.fill)
		case "Y":
			padNum(&b, int64(y%10), 1, t.fill)
		case "MONTH":
			b.WriteString(cased(monthNames[m-1], t.orig, true, t.fill))
		case "MON":
			b.WriteString(cased(monthNames[m-1], t.orig, false, t.fill))
		case "MM":
			padNum(&b, int64(m), 2, t.fill)
		case "DAY":
			b.WriteString(cased(dayNames[dow], t.orig, true, t.fill))
		case "DY":
			b.WriteString(cased(dayNames[dow], t.orig, false, t.fill))
		case "DDD":
			padNum(&b, doy, 3, t.fill)
		case "DD":
			padNum(&b, int64(d), 2, t.fill)
		case "D":
			padNum(&b, int64(dow+1), 1, t.fill)
		case "Q":
			padNum(&b, int64((m-1)/3+1), 1, t.fill)
		case "J":
			padNum(&b, days+daysFromCivil(2000, 1, 1)-daysFromCivil(-4713, 11, 24), 1, t.fill)
		}
	}
	return b.String(), true
}

func errFormatInput(s, what string) *sqlerr.Error {
	return sqlerr.New(sqlerr.InvalidDatetimeFormat, "invalid value %q for %q", s, what)
}

// ParseDateTime is to_timestamp(text, template) and to_date: it reads s
// with template f into a wall-clock timestamp (microseconds since
// 2000-01-01). Fields the template lacks are those of 0001-01-01
// 00:00:00, as in PostgreSQL.
func ParseDateTime(s, f string) (int64, error) {
	year, month, day, hour, min, sec := 1, 1, 1, 0, 0, 0
	var frac int64
	pm, hasMeridian, hour12 := false, false, false
	doy := 0
	pos := 0
	skipSpace := func() {
		for pos < len(s) && s[pos] == ' ' {
			pos++
		}
	}
	number := func(max int, what string) (int, error) {
		skipSpace()
		start := pos
		if pos < len(s) && (s[pos] == '-' || s[pos] == '+') && what == "YYYY" {
			pos++
		}
		for pos < len(s) && pos-start < max && s[pos] >= '0' && s[pos] <= '9' {
			pos++
		}
		if start == pos {
			rest := s[pos:]
			if len(rest) > 10 {
				rest = rest[:10]
			}
			return 0, errFormatInput(rest, what).WithDetail("Value must be an integer.")
		}
		return strconv.Atoi(s[start:pos])
	}
	name := func(names []string, abbrev bool, what string) (int, error) {
		skipSpace()
		for i, n := range names {
			if abbrev {
				n = n[:3]
			}
			if len(s)-pos >= len(n) && strings.EqualFold(s[pos:pos+len(n)], n) {
				pos += len(n)
				return i, nil
			}
		}
		return 0, errFormatInput(s[pos:], what)
	}
	tokens := tokenizeFormat(f)
	for ti, t := range tokens {
		var err error
		// A number field read right before another field has its fixed
		// width: YYYYMMDD.
		number := func(max int, what string) (int, error) {
			if w, ok := fmtWidths[t.pattern]; ok && ti+1 < len(tokens) && tokens[ti+1].pattern != "" {
				max = w
			}
			return number(max, what)
		}
		switch t.pattern {
		case "":
			// A literal matches one character of the input, whatever it
			// is, as long as there is one; a space matches any run of
			// spaces.
			if t.text == " " {
				skipSpace()
			} else if pos < len(s) {
				pos++
			}
		case "HH24":
			hour, err = number(2, t.pattern)
		case "HH12", "HH":
			hour, err = number(2, t.pattern)
			hour12 = true
		case "MI":
			min, err = number(2, t.pattern)
		case "SS":
			sec, err = number(2, t.pattern)
		case "MS", "US":
			skipSpace()
			start := pos
			width := 3
			if t.pattern == "US" {
				width = 6
			}
			for pos < len(s) && pos-start < width && s[pos] >= '0' && s[pos] <= '9' {
				pos++
			}
			if start == pos {
				return 0, errFormatInput(s[pos:], t.pattern)
			}
			digits := s[start:pos] + strings.Repeat("0", width-(pos-start))
			v, _ := strconv.ParseInt(digits, 10, 64)
			if t.pattern == "MS" {
				v *= 1000
			}
			frac = v
		case "AM", "PM", "A.M.", "P.M.":
			skipSpace()
			hasMeridian = true
			n := 2
			if strings.Contains(t.pattern, ".") {
				n = 4
			}
			if len(s)-pos < n {
				return 0, errFormatInput(s[pos:], t.pattern)
			}
			w := strings.ToUpper(strings.ReplaceAll(s[pos:pos+n], ".", ""))
			switch w {
			case "AM":
			case "PM":
				pm = true
			default:
				return 0, errFormatInput(s[pos:], t.pattern)
			}
			pos += n
		case "YYYY":
			year, err = number(9, t.pattern)
		case "YYY", "YY", "Y":
			var v int
			v, err = number(len(t.pattern), t.pattern)
			switch t.pattern {
			case "YY":
				if v < 70 {
					v += 2000
				} else if v < 100 {
					v += 1900
				}
			case "YYY":
				if v < 100 {
					v += 2000
				} else {
					v += 1000
				}
			case "Y":
				v += 2000
			}
			year = v
		case "MONTH":
			var i int
			i, err = name(monthNames, false, t.pattern)
			month = i + 1
		case "MON":
			var i int
			i, err = name(monthNames, true, t.pattern)
			month = i + 1
		case "MM":
			month, err = number(2, t.pattern)
		case "DAY":
			_, err = name(dayNames, false, t.pattern)
		case "DY":
			_, err = name(dayNames, true, t.pattern)
		case "DDD":
			doy, err = number(3, t.pattern)
		case "DD":
			day, err = number(2, t.pattern)
		case "D", "Q":
			_, err = number(1, t.pattern)
		case "J":
			var j int
			if j, err = number(9, t.pattern); err == nil {
				days := int64(j) - (daysFromCivil(2000, 1, 1) - daysFromCivil(-4713, 11, 24))
				year, month, day = civilFromDays(days)
			}
		}
		if err != nil {
			return 0, err
		}
	}
	if hour12 || hasMeridian {
		if hour < 1 || hour > 12 {
			return 0, sqlerr.New(sqlerr.InvalidDatetimeFormat, "hour \"%d\" is invalid for the 12-hour clock", hour)
		}
		hour %= 12
		if pm {
			hour += 12
		}
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 24 || min > 59 || sec > 60 {
		return 0, sqlerr.New(sqlerr.DatetimeFieldOverflow, "date/time field value out of range: %q", s)
	}
	days := daysFromCivil(year, month, day)
	if doy > 0 {
		days = daysFromCivil(year, 1, 1) + int64(doy) - 1
	}
	us := days*usPerDay + int64(hour)*usPerHour + int64(min)*usPerMinute + int64(sec)*usPerSecond + frac
	if !validTimestamp(us) {
		return 0, errTimestampRange
	}
	return us, nil
}

// daysIn returns the number of days of month in year.
func daysIn(year, month int) int {
	y2, m2 := year, month+1
	if m2 > 12 {
		y2, m2 = year+1, 1
	}
	return int(daysFromCivil(y2, m2, 1) - daysFromCivil(year, month, 1))
}
