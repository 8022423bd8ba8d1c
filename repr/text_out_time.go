package repr

import "strconv"

// appendDate appends a date in ISO style: "2024-01-02", "0044-03-15 BC",
// "infinity".
func appendDate(buf []byte, days int64) []byte {
	switch days {
	case DateNegInfinity:
		return append(buf, "-infinity"...)
	case DatePosInfinity:
		return append(buf, "infinity"...)
	}
	y, m, d := civilFromDays(days)
	buf = appendYMD(buf, y, m, d)
	if y <= 0 {
		buf = append(buf, " BC"...)
	}
	return buf
}

// appendYMD appends year-month-day with the year as AD or BC number
// (without the " BC" suffix), zero-padded to four digits.
func appendYMD(buf []byte, y, m, d int) []byte {
	if y <= 0 {
		y = 1 - y
	}
	buf = appendPadded(buf, int64(y), 4)
	buf = append(buf, '-')
	buf = appendPadded(buf, int64(m), 2)
	buf = append(buf, '-')
	return appendPadded(buf, int64(d), 2)
}

// appendTimestamp appends a timestamp in ISO style, with "+00" for a
// timestamptz in UTC: "2024-01-02 03:04:05.5+00". BC comes last, after
// the zone, as in PostgreSQL.
func appendTimestamp(buf []byte, us int64, tz bool) []byte {
	if tz {
		return appendTimestampTZ(buf, us, UTC)
	}
	return appendStamp(buf, us, false, 0)
}

// appendTimestampTZ appends a timestamptz as the wall-clock time in z
// and z's offset at that instant: "2024-06-01 08:00:00-04".
func appendTimestampTZ(buf []byte, us int64, z *Zone) []byte {
	if isInfiniteStamp(us) {
		return appendStamp(buf, us, false, 0)
	}
	off := z.offsetAt(us)
	return appendStamp(buf, us+off*usPerSecond, true, int(off))
}

func appendStamp(buf []byte, us int64, tz bool, off int) []byte {
	switch us {
	case TimestampNegInfinity:
		return append(buf, "-infinity"...)
	case TimestampPosInfinity:
		return append(buf, "infinity"...)
	}
	days, tod := splitTimestamp(us)
	y, m, d := civilFromDays(days)
	buf = appendYMD(buf, y, m, d)
	buf = append(buf, ' ')
	buf = appendClock(buf, uint64(tod/usPerHour), tod/usPerMinute%60, tod%usPerMinute)
	if tz {
		buf = appendOffset(buf, off)
	}
	if y <= 0 {
		buf = append(buf, " BC"...)
	}
	return buf
}

// appendClock appends hh:mm:ss with the fraction of the second trimmed
// of trailing zeros. Hours may exceed 23 (intervals). All arguments are
// non-negative; us is the microseconds within the minute.
func appendClock(buf []byte, h uint64, m, us int64) []byte {
	buf = appendUintPadded(buf, h, 2)
	buf = append(buf, ':')
	buf = appendPadded(buf, m, 2)
	buf = append(buf, ':')
	buf = appendPadded(buf, us/usPerSecond, 2)
	if frac := us % usPerSecond; frac != 0 {
		buf = append(buf, '.')
		start := len(buf)
		buf = appendPadded(buf, frac, 6)
		end := len(buf)
		for end > start && buf[end-1] == '0' {
			end--
		}
		buf = buf[:end]
	}
	return buf
}

// appendPadded appends a non-negative v with at least width digits.
func appendPadded(buf []byte, v int64, width int) []byte {
	var tmp [20]byte
	s := strconv.AppendInt(tmp[:0], v, 10)
	for i := len(s); i < width; i++ {
		buf = append(buf, '0')
	}
	return append(buf, s...)
}

// appendInterval appends an interval as IntervalStyle postgres prints it:
// "1 year 2 mons 3 days 04:05:06.5", "-1 days +02:00:00", "00:00:00".
// Each nonzero field carries its own sign; a field after a negative one
// gets an explicit "+" when positive, as PostgreSQL does.
func appendInterval(buf []byte, v IntervalValue) []byte {
	years, months := v.Months/12, v.Months%12
	empty, afterNegative := true, false
	part := func(n int64, unit string) {
		if n == 0 {
			return
		}
		if !empty {
			buf = append(buf, ' ')
		}
		if afterNegative && n > 0 {
			buf = append(buf, '+')
		}
		buf = strconv.AppendInt(buf, n, 10)
		buf = append(buf, ' ')
		buf = append(buf, unit...)
		if n != 1 {
			buf = append(buf, 's')
		}
		afterNegative = n < 0
		empty = false
	}
	part(int64(years), "year")
	part(int64(months), "mon")
	part(int64(v.Days), "day")
	if empty || v.Micros != 0 {
		if !empty {
			buf = append(buf, ' ')
		}
		us := v.Micros
		switch {
		case us < 0:
			buf = append(buf, '-')
		case afterNegative:
			buf = append(buf, '+')
		}
		// Work on the magnitude; -us overflows only for MinInt64, which
		// the uint64 conversion handles.
		mag := uint64(us)
		if us < 0 {
			mag = -mag
		}
		buf = appendClock(buf, mag/usPerHour, int64(mag/usPerMinute%60), int64(mag%usPerMinute))
	}
	return buf
}

// appendUintPadded appends v with at least width digits.
func appendUintPadded(buf []byte, v uint64, width int) []byte {
	var tmp [20]byte
	s := strconv.AppendUint(tmp[:0], v, 10)
	for i := len(s); i < width; i++ {
		buf = append(buf, '0')
	}
	return append(buf, s...)
}
