package repr

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	// The zone database is built in, so that a machine without one
	// (a minimal container) knows the same zones as any other.
	_ "time/tzdata"

	"freshet/sqlerr"
)

// Zone is a session time zone: the zone in which a timestamp with time
// zone is printed, read without an offset, cast to a timestamp, date or
// text, truncated, taken apart by extract and moved by days and months.
// A nil *Zone is UTC, which is what a session starts with, so code that
// knows no session passes nil.
type Zone struct {
	// name is the zone as SHOW TimeZone reports it.
	name string
	loc  *time.Location
}

// UTC is the zone sessions start in.
var UTC *Zone

// Name returns the zone's name as SHOW TimeZone prints it.
func (z *Zone) Name() string {
	if z == nil {
		return "UTC"
	}
	return z.name
}

// IsUTC reports whether the zone is UTC at every instant.
func (z *Zone) IsUTC() bool { return z == nil || z.loc == time.UTC }

// utcNames are the zone names that mean UTC, by lower-case name, with
// PostgreSQL's spelling.
var utcNames = map[string]string{
	"utc": "UTC", "etc/utc": "Etc/UTC", "gmt": "GMT", "etc/gmt": "Etc/GMT", "uct": "UCT", "etc/uct": "Etc/UCT",
	"universal": "Universal", "etc/universal": "Etc/Universal", "zulu": "Zulu", "etc/zulu": "Etc/Zulu",
	"gmt0": "GMT0", "etc/gmt0": "Etc/GMT0", "greenwich": "Greenwich", "etc/greenwich": "Etc/Greenwich",
	"z": "UTC",
}

var zoneCache sync.Map // lower-case name -> *Zone

// LoadZone returns the zone a SET TIME ZONE or AT TIME ZONE names: a
// name from the zone database, matched without regard to case as
// PostgreSQL matches it (America/New_York, europe/berlin, EST5EDT, UTC),
// or a number of hours east of UTC (-7, 5.5), which PostgreSQL's SET
// TIME ZONE takes as a fixed offset. An unknown name is 22023, as in
// PostgreSQL.
func LoadZone(name string) (*Zone, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	if z, ok := zoneCache.Load(key); ok {
		return z.(*Zone), nil
	}
	z, err := loadZoneUncached(strings.TrimSpace(name), key)
	if err != nil {
		return nil, err
	}
	zoneCache.Store(key, z)
	return z, nil
}

func loadZoneUncached(name, key string) (*Zone, error) {
	if n, ok := utcNames[key]; ok {
		return &Zone{name: n, loc: time.UTC}, nil
	}
	if h, err := strconv.ParseFloat(key, 64); err == nil && !math.IsInf(h, 0) && !math.IsNaN(h) && math.Abs(h) < 168 {
		secs := int(math.Round(h * 3600))
		return &Zone{name: fixedZoneName(secs), loc: time.FixedZone("", secs)}, nil
	}
	if secs, ok := parseBracketOffset(key); ok {
		return &Zone{name: fixedZoneName(secs), loc: time.FixedZone("", secs)}, nil
	}
	if key != "" && !strings.Contains(key, "..") && !strings.HasPrefix(key, "/") {
		for _, try := range zoneSpellings(name) {
			if loc, err := time.LoadLocation(try); err == nil {
				return &Zone{name: try, loc: loc}, nil
			}
		}
	}
	return nil, sqlerr.New(sqlerr.InvalidParameterValue, "time zone %q not recognized", name)
}

// parseBracketOffset reads the name fixedZoneName gives, <-07>+07 or
// <+05:30>-05:30, as the offset between the brackets.
func parseBracketOffset(key string) (int, bool) {
	if !strings.HasPrefix(key, "<") {
		return 0, false
	}
	inner, rest, ok := strings.Cut(key[1:], ">")
	if !ok || len(inner) < 2 || (inner[0] != '+' && inner[0] != '-') {
		return 0, false
	}
	secs, mult := 0, 3600
	for _, part := range strings.Split(inner[1:], ":") {
		n, err := strconv.Atoi(part)
		if err != nil || n < 0 || n > 167 || mult == 0 {
			return 0, false
		}
		secs += n * mult
		mult /= 60
	}
	if inner[0] == '-' {
		secs = -secs
	}
	if rest != string(appendOffset(nil, -secs)) {
		return 0, false
	}
	return secs, true
}

// zoneSpellings returns the spellings of a zone name to look up: as
// written, each word capitalised (america/new_york), and upper case
// (est5edt, cet).
func zoneSpellings(name string) []string {
	b := []byte(strings.ToLower(name))
	for i := range b {
		if i == 0 || b[i-1] == '/' || b[i-1] == '_' || b[i-1] == '-' {
			b[i] = byte(strings.ToUpper(string(b[i]))[0])
		}
	}
	return []string{name, string(b), strings.ToUpper(name)}
}

// fixedZoneName names a fixed offset as PostgreSQL shows one set by
// number: <-07>+07 for seven hours west of UTC (a POSIX name, whose sign
// is the other way round).
func fixedZoneName(secs int) string {
	var b []byte
	b = append(b, '<')
	b = appendOffset(b, secs)
	b = append(b, '>')
	return string(appendOffset(b, -secs))
}

// offsetAt returns the zone's offset east of UTC, in seconds, at the
// instant us (microseconds since 2000-01-01 UTC).
func (z *Zone) offsetAt(us int64) int64 {
	if z.IsUTC() {
		return 0
	}
	sec, _ := floorDiv(us, usPerSecond)
	_, off := time.Unix(sec+epochUnix, 0).In(z.loc).Zone()
	return int64(off)
}

// ToLocal returns the wall-clock time in z of the instant us: the
// timestamp that timestamptz AT TIME ZONE gives. Infinities stay.
func (z *Zone) ToLocal(us int64) int64 {
	if isInfiniteStamp(us) {
		return us
	}
	return us + z.offsetAt(us)*usPerSecond
}

// FromLocal returns the instant at which the wall clock in z reads
// local: what timestamp AT TIME ZONE gives. A wall-clock time that a
// transition skips (the spring-forward gap) is read with the offset
// before the transition, and one that happens twice (the fall-back
// overlap) with the offset after it, as PostgreSQL reads them.
func (z *Zone) FromLocal(local int64) int64 {
	if z.IsUTC() || isInfiniteStamp(local) {
		return local
	}
	sec, frac := floorDiv(local, usPerSecond)
	l := sec + epochUnix // the wall clock, in Unix seconds as if UTC
	const window = 2 * 86400
	s := l - window
	for range 8 {
		t := time.Unix(s, 0).In(z.loc)
		_, before := t.Zone()
		_, end := t.ZoneBounds()
		if end.IsZero() || end.Unix() > l+window {
			return z.instant(l-int64(before), frac)
		}
		boundary := end.Unix()
		_, after := time.Unix(boundary, 0).In(z.loc).Zone()
		bt, at := l-int64(before), l-int64(after)
		switch {
		case bt < boundary && at < boundary:
			return z.instant(bt, frac)
		case bt >= boundary && at >= boundary:
			s = boundary // past this transition: look at the next
			continue
		case bt > at:
			return z.instant(bt, frac) // in the gap
		default:
			return z.instant(at, frac) // in the overlap
		}
	}
	_, off := time.Unix(l, 0).In(z.loc).Zone()
	return z.instant(l-int64(off), frac)
}

func (z *Zone) instant(unix, frac int64) int64 { return (unix-epochUnix)*usPerSecond + frac }

// appendOffset appends an offset east of UTC as PostgreSQL prints one:
// +00, -05, +05:30, -04:56:02.
func appendOffset(buf []byte, secs int) []byte {
	if secs < 0 {
		buf = append(buf, '-')
		secs = -secs
	} else {
		buf = append(buf, '+')
	}
	buf = appendPadded(buf, int64(secs/3600), 2)
	if m, s := secs/60%60, secs%60; m != 0 || s != 0 {
		buf = append(buf, ':')
		buf = appendPadded(buf, int64(m), 2)
		if s != 0 {
			buf = append(buf, ':')
			buf = appendPadded(buf, int64(s), 2)
		}
	}
	return buf
}

// AtTimeZone is PostgreSQL's timezone(zone, value), which AT TIME ZONE
// calls: a timestamp with time zone becomes the wall-clock time in z
// (a timestamp), and a timestamp is read as a wall-clock time in z (a
// timestamp with time zone).
func AtTimeZone(z *Zone, d Datum) (Datum, error) {
	if !d.valid {
		return Null, nil
	}
	switch d.kind {
	case KindTimestampTZ:
		us := z.ToLocal(d.i)
		if !isInfiniteStamp(us) && !validTimestamp(us) {
			return Null, errTimestampRange
		}
		return Datum{head: head{kind: KindTimestamp, valid: true}, i: us}, nil
	case KindTimestamp:
		us := z.FromLocal(d.i)
		if !isInfiniteStamp(us) && !validTimestamp(us) {
			return Null, errTimestampRange
		}
		return Datum{head: head{kind: KindTimestampTZ, valid: true}, i: us}, nil
	}
	return Null, sqlerr.AssertionFailedf("AT TIME ZONE of %s", d.kind)
}

// AddIntervalIn is timestamptz + interval in zone z, as PostgreSQL adds
// them: months and days move the wall clock in z (a day is 23 or 25
// hours across a transition), the rest of the interval is elapsed time.
func AddIntervalIn(z *Zone, ts Datum, v IntervalValue) (Datum, error) {
	if !ts.valid {
		return Null, nil
	}
	if z.IsUTC() || ts.kind != KindTimestampTZ || isInfiniteStamp(ts.i) || v.Months == 0 && v.Days == 0 {
		us, err := addInterval(ts.i, v)
		if err != nil {
			return Null, err
		}
		return Datum{head: head{kind: ts.kind, valid: true}, i: us}, nil
	}
	local := z.ToLocal(ts.i)
	moved, err := addInterval(local, IntervalValue{Months: v.Months, Days: v.Days})
	if err != nil {
		return Null, err
	}
	us, err := addInterval(z.FromLocal(moved), IntervalValue{Micros: v.Micros})
	if err != nil {
		return Null, err
	}
	return Datum{head: head{kind: KindTimestampTZ, valid: true}, i: us}, nil
}

// SubIntervalIn is timestamptz - interval in zone z (AddIntervalIn of
// the negated interval).
func SubIntervalIn(z *Zone, ts Datum, v IntervalValue) (Datum, error) {
	n, err := negInterval(v)
	if err != nil {
		return Null, err
	}
	return AddIntervalIn(z, ts, n.Interval())
}

// CastUsesZone reports whether a cast from one type to another depends
// on the session time zone: between a timestamp with time zone and
// text, timestamp or date, or between arrays of those.
func CastUsesZone(from, to Type) bool {
	if from.kind == KindArray && to.kind == KindArray {
		return CastUsesZone(from.Elem(), to.Elem())
	}
	zoned := func(a, b Type) bool {
		return a.kind == KindTimestampTZ && (b.kind.IsString() || b.kind == KindTimestamp || b.kind == KindDate || b.kind == KindTime)
	}
	return zoned(from, to) || zoned(to, from)
}
