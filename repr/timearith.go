package repr

import (
	"math"

	"freshet/sqlerr"
)

// Date and time arithmetic, PostgreSQL's operators with the session zone
// UTC: date ± integer is a date, date - date an integer number of days,
// timestamp ± interval a timestamp (months first, clamping the day to
// the month's end, then days, then microseconds), timestamp - timestamp
// an interval of days and time, interval ± interval an interval. Dates
// and intervals combine through a timestamp: date + interval is a
// timestamp without time zone.

// timeArith handles the operand kinds that arith does not.
func timeArith(op ArithOp, a, b Datum) (Datum, error) {
	switch {
	case a.kind == KindInterval && b.kind == KindFloat8 && (op == OpMul || op == OpDiv):
		return intervalMul(a.Interval(), b.Float(), op == OpDiv)
	case a.kind == KindFloat8 && b.kind == KindInterval && op == OpMul:
		return intervalMul(b.Interval(), a.Float(), false)
	case a.kind == KindDate && b.kind.IsInt() && (op == OpAdd || op == OpSub):
		n := b.i
		if op == OpSub {
			n = -n
		}
		return addDays(a, n)
	case a.kind.IsInt() && b.kind == KindDate && op == OpAdd:
		return addDays(b, a.i)
	case a.kind == KindDate && b.kind == KindDate && op == OpSub:
		if isInfiniteDate(a) || isInfiniteDate(b) {
			return Null, sqlerr.New(sqlerr.DatetimeFieldOverflow, "cannot subtract infinite dates")
		}
		return NewInt4(int32(a.i - b.i)), nil
	case a.kind == KindDate && b.kind == KindInterval && (op == OpAdd || op == OpSub):
		ts, err := Cast(a, Timestamp)
		if err != nil {
			return Null, err
		}
		return timeArith(op, ts, b)
	case a.kind == KindInterval && b.kind == KindDate && op == OpAdd:
		return timeArith(op, b, a)
	case (a.kind == KindTimestamp || a.kind == KindTimestampTZ) && b.kind == KindInterval && (op == OpAdd || op == OpSub):
		v := b.Interval()
		if op == OpSub {
			if v.Months == math.MinInt32 || v.Days == math.MinInt32 || v.Micros == math.MinInt64 {
				return Null, errIntervalRange
			}
			v = IntervalValue{Months: -v.Months, Days: -v.Days, Micros: -v.Micros}
		}
		us, err := addInterval(a.i, v)
		if err != nil {
			return Null, err
		}
		return Datum{head: head{kind: a.kind, valid: true}, i: us}, nil
	case a.kind == KindInterval && (b.kind == KindTimestamp || b.kind == KindTimestampTZ) && op == OpAdd:
		return timeArith(op, b, a)
	case a.kind == b.kind && (a.kind == KindTimestamp || a.kind == KindTimestampTZ) && op == OpSub:
		if isInfiniteStamp(a.i) || isInfiniteStamp(b.i) {
			return Null, sqlerr.New(sqlerr.DatetimeFieldOverflow, "cannot subtract infinite timestamps")
		}
		// Whole days move from the time to the days, as
		// interval_justify_hours does.
		diff, ok := addInt64(a.i, b.i, -1)
		if !ok {
			return Null, errIntervalRange
		}
		days := diff / usPerDay
		return NewInterval(IntervalValue{Days: int32(days), Micros: diff - days*usPerDay}), nil
	case a.kind == KindTime || b.kind == KindTime:
		return timeOfDayArith(op, a, b)
	case a.kind == KindInterval && b.kind == KindInterval && (op == OpAdd || op == OpSub):
		x, y := a.Interval(), b.Interval()
		sign := int64(1)
		if op == OpSub {
			sign = -1
		}
		months := int64(x.Months) + sign*int64(y.Months)
		days := int64(x.Days) + sign*int64(y.Days)
		us, ok := addInt64(x.Micros, y.Micros, sign)
		if !ok || months != int64(int32(months)) || days != int64(int32(days)) {
			return Null, errIntervalRange
		}
		return NewInterval(IntervalValue{Months: int32(months), Days: int32(days), Micros: us}), nil
	}
	return Null, errNoOperator(opNames[op], a, b)
}

func isInfiniteDate(d Datum) bool { return d.i == DateNegInfinity || d.i == DatePosInfinity }

func isInfiniteStamp(us int64) bool { return us == TimestampNegInfinity || us == TimestampPosInfinity }

// addDays returns date d plus n days; infinite dates stay infinite.
func addDays(d Datum, n int64) (Datum, error) {
	if isInfiniteDate(d) {
		return d, nil
	}
	days := d.i + n
	if !validDate(days) {
		return Null, errDateRange
	}
	return NewDate(int32(days)), nil
}

// addInterval returns timestamp us plus v, as timestamp_pl_interval
// does: add the months on the calendar (2024-01-31 + 1 mon is
// 2024-02-29), then the days, then the microseconds.
func addInterval(us int64, v IntervalValue) (int64, error) {
	if isInfiniteStamp(us) {
		return us, nil
	}
	if v.Months != 0 {
		days, tod := splitTimestamp(us)
		y, m, d := civilFromDays(days)
		total := int64(y)*12 + int64(m-1) + int64(v.Months)
		ny, nm := floorDiv(total, 12)
		nm++
		d = min(d, daysInMonth(int(ny), int(nm)))
		if ny < -4713 || ny > 294277 {
			return 0, errTimestampRange
		}
		us = daysFromCivil(int(ny), int(nm), d)*usPerDay + tod
		if !validTimestamp(us) {
			return 0, errTimestampRange
		}
	}
	if v.Days != 0 {
		days, tod := splitTimestamp(us)
		days += int64(v.Days)
		if days < minDate || days > endTimestamp/usPerDay {
			return 0, errTimestampRange
		}
		us = days*usPerDay + tod
		if !validTimestamp(us) {
			return 0, errTimestampRange
		}
	}
	r := us + v.Micros
	if (v.Micros > 0 && r < us) || (v.Micros < 0 && r > us) || !validTimestamp(r) {
		return 0, errTimestampRange
	}
	return r, nil
}

// negInterval returns -v.
func negInterval(v IntervalValue) (Datum, error) {
	if v.Months == math.MinInt32 || v.Days == math.MinInt32 || v.Micros == math.MinInt64 {
		return Null, errIntervalRange
	}
	return NewInterval(IntervalValue{Months: -v.Months, Days: -v.Days, Micros: -v.Micros}), nil
}

// addInt64 returns x + sign*y for sign ±1, and false if it overflows.
func addInt64(x, y, sign int64) (int64, bool) {
	if sign < 0 {
		if y == math.MinInt64 {
			return 0, false
		}
		y = -y
	}
	r := x + y
	return r, !((x >= 0) == (y >= 0) && (r >= 0) != (x >= 0))
}

// intervalMul is interval * double precision (and, with div, interval /
// double precision) as PostgreSQL's interval_mul and interval_div
// compute it: each field is multiplied, and the fractions of months
// and days cascade down, a month as 30 days and a day as 24 hours, with
// the seconds rounded to the microsecond.
func intervalMul(v IntervalValue, f float64, div bool) (Datum, error) {
	scale := func(x float64) float64 { return x * f }
	if div {
		if f == 0 {
			return Null, sqlerr.New(sqlerr.DivisionByZero, "division by zero")
		}
		scale = func(x float64) float64 { return x / f }
	}
	if math.IsNaN(f) {
		return Null, errIntervalRange
	}
	tsround := func(x float64) float64 { return math.RoundToEven(x*1e6) / 1e6 }
	months := scale(float64(v.Months))
	days := scale(float64(v.Days))
	if math.IsNaN(months) || math.Abs(months) > math.MaxInt32 || math.IsNaN(days) || math.Abs(days) > math.MaxInt32 {
		return Null, errIntervalRange
	}
	out := IntervalValue{Months: int32(months), Days: int32(days)}
	monthRemainderDays := tsround((months - float64(out.Months)) * 30)
	secRemainder := tsround((days - float64(out.Days) + monthRemainderDays - math.Trunc(monthRemainderDays)) * 86400)
	if math.Abs(secRemainder) >= 86400 {
		whole := math.Trunc(secRemainder / 86400)
		out.Days += int32(whole)
		secRemainder -= whole * 86400
	}
	out.Days += int32(monthRemainderDays)
	micros := math.RoundToEven(scale(float64(v.Micros)) + secRemainder*1e6)
	if math.IsNaN(micros) || math.Abs(micros) >= math.MaxInt64 {
		return Null, errIntervalRange
	}
	out.Micros = int64(micros)
	return NewInterval(out), nil
}
