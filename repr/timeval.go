package repr

import "time"

// Dates and timestamps count from PostgreSQL's epoch, 2000-01-01, in the
// proleptic Gregorian calendar, with astronomical years (year 0 is 1 BC).
// The session time zone is UTC: a timestamptz is microseconds since
// 2000-01-01 00:00:00 UTC and prints with "+00". Time zones other than
// UTC appear only in input, which converts them to UTC.

const (
	usPerSecond = 1_000_000
	usPerMinute = 60 * usPerSecond
	usPerHour   = 60 * usPerMinute
	usPerDay    = 24 * usPerHour

	// epochUnix is 2000-01-01 00:00:00 UTC in Unix seconds.
	epochUnix = 946684800

	// minDate is 4714-11-24 BC (Julian day 0), the first date PostgreSQL
	// accepts, in days since 2000-01-01; endDate is 5874898-01-01, the
	// first date it rejects.
	minDate = -2451545
	endDate = 2145031949

	// minTimestamp is 4714-11-24 00:00:00 BC and endTimestamp is
	// 294277-01-01 00:00:00, the bounds of PostgreSQL's timestamps:
	// finite timestamps lie in [minTimestamp, endTimestamp).
	minTimestamp = minDate * usPerDay
	endTimestamp = 106751983 * usPerDay
)

// daysFromCivil returns the days since 2000-01-01 of a date. The month
// and day must be valid for the year.
func daysFromCivil(year, month, day int) int64 {
	return time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC).Unix()/86400 - epochUnix/86400
}

// civilFromDays returns the year, month and day of a date in days since
// 2000-01-01.
func civilFromDays(days int64) (year, month, day int) {
	y, m, d := time.Unix((days+epochUnix/86400)*86400, 0).UTC().Date()
	return y, int(m), d
}

// daysInMonth returns the number of days of a month of a year.
func daysInMonth(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// floorDiv returns a/b rounded toward negative infinity, and the
// remainder, which has b's sign.
func floorDiv(a, b int64) (q, r int64) {
	q, r = a/b, a%b
	if r != 0 && (r < 0) != (b < 0) {
		q--
		r += b
	}
	return q, r
}

// splitTimestamp returns the date (days since 2000-01-01) and the time of
// day in microseconds of a finite timestamp.
func splitTimestamp(us int64) (days, timeOfDay int64) { return floorDiv(us, usPerDay) }

// validDate reports whether days is a finite date in PostgreSQL's range.
func validDate(days int64) bool { return days >= minDate && days < endDate }

// validTimestamp reports whether us is a finite timestamp in
// PostgreSQL's range.
func validTimestamp(us int64) bool { return us >= minTimestamp && us < endTimestamp }

// TimestampFromTime returns the microseconds since 2000-01-01 00:00:00
// UTC of t, truncated to the microsecond, for NewTimestampTZ (or, for a
// wall-clock time in UTC, NewTimestamp).
func TimestampFromTime(t time.Time) int64 {
	sec := t.Unix() - epochUnix
	return sec*usPerSecond + int64(t.Nanosecond()/1000)
}

// TimeFromTimestamp returns the time.Time in UTC of a finite timestamp in
// microseconds since 2000-01-01.
func TimeFromTimestamp(us int64) time.Time {
	sec, rem := floorDiv(us, usPerSecond)
	return time.Unix(sec+epochUnix, rem*1000).UTC()
}

// ValidTimestamp reports whether us is a finite timestamp in
// PostgreSQL's range.
func ValidTimestamp(us int64) bool { return validTimestamp(us) }
