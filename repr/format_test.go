package repr

import (
	"math"
	"testing"
)

func TestAppendFloat(t *testing.T) {
	// Variables, so that the sums are rounded like run-time arithmetic
	// rather than computed exactly as constants.
	a, b, three := 0.1, 0.2, 3.0
	third := 1 / three
	tests := []struct {
		f       float64
		bitSize int
		efd     int
		want    string
	}{
		{a + b, 64, 1, "0.30000000000000004"},
		{a + b, 64, 0, "0.3"},
		{a + b, 64, 3, "0.30000000000000004"},
		{third, 64, 1, "0.3333333333333333"},
		{third, 64, 0, "0.333333333333333"},
		{third, 64, -3, "0.333333333333"},
		{third, 64, -15, "0.3"},
		{1e20, 64, 0, "1e+20"},
		{123456789.123, 64, -15, "1e+08"},
		{123456789.123, 64, 1, "123456789.123"},
		{1e-5, 64, 0, "1e-05"},
		{1e15, 64, 1, "1e+15"},
		{1e14, 64, 1, "100000000000000"},
		{1e-4, 64, 1, "0.0001"},
		{-1.5e-7, 64, 1, "-1.5e-07"},
		{1e100, 64, 1, "1e+100"},
		{math.MaxFloat64, 64, 1, "1.7976931348623157e+308"},
		{5e-324, 64, 1, "5e-324"},
		{math.Copysign(0, -1), 64, 1, "-0"},
		{0, 64, 1, "0"},
		{math.NaN(), 64, 1, "NaN"},
		{math.Inf(1), 64, 0, "Infinity"},
		{math.Inf(-1), 32, 1, "-Infinity"},
		{float64(float32(0.1) + float32(0.2)), 32, 1, "0.3"},
		{1234567, 32, 1, "1.234567e+06"},
		{1234567, 32, 0, "1.23457e+06"},
		{1234567, 32, -3, "1.23e+06"},
		{123456, 32, 1, "123456"},
		{16777216, 32, 1, "1.6777216e+07"},
		{float64(float32(0.1)), 64, 1, "0.10000000149011612"},
		// Go's shortest forms of these lie exactly halfway to the next
		// float; PostgreSQL prints one more digit.
		{4.979234613651046e+16, 64, 1, "4.9792346136510464e+16"},
		{2.352831188382515e+16, 64, 1, "2.3528311883825152e+16"},
		{131067344, 32, 1, "1.31067344e+08"},
		{254111008, 32, 1, "2.5411101e+08"},
		{60564032, 32, 1, "6.0564032e+07"},
	}
	for _, tt := range tests {
		if got := string(AppendFloat(nil, tt.f, tt.bitSize, tt.efd)); got != tt.want {
			t.Errorf("AppendFloat(%v, %d, %d) = %q, want %q", tt.f, tt.bitSize, tt.efd, got, tt.want)
		}
	}
}

func TestFormatComputedValues(t *testing.T) {
	tests := []struct {
		d    Datum
		want string
	}{
		{NewBool(true), "t"},
		{NewBool(false), "f"},
		{NewInt2(-32768), "-32768"},
		{NewInt8(math.MinInt64), "-9223372036854775808"},
		{NewFloat8(0.1), "0.1"},
		{NewFloat4(0.1), "0.1"},
		{NewDate(0), "2000-01-01"},
		{NewDate(-1), "1999-12-31"},
		{NewDate(DatePosInfinity), "infinity"},
		{NewTimestamp(0), "2000-01-01 00:00:00"},
		{NewTimestamp(-1), "1999-12-31 23:59:59.999999"},
		{NewTimestamp(1_500_000), "2000-01-01 00:00:01.5"},
		{NewTimestampTZ(1), "2000-01-01 00:00:00.000001+00"},
		{NewTimestampTZ(TimestampNegInfinity), "-infinity"},
		{NewInterval(IntervalValue{}), "00:00:00"},
		{NewInterval(IntervalValue{Days: 1, Micros: 2*usPerHour + 3*usPerMinute + 4*usPerSecond}), "1 day 02:03:04"},
		{NewInterval(IntervalValue{Months: 14}), "1 year 2 mons"},
		{NewInterval(IntervalValue{Micros: -usPerSecond}), "-00:00:01"},
		{NewInterval(IntervalValue{Months: -1, Days: 2, Micros: -3 * usPerHour}), "-1 mons +2 days -03:00:00"},
		{NewInterval(IntervalValue{Months: -13}), "-1 years -1 mons"},
		{NewInterval(IntervalValue{Micros: math.MinInt64}), "-2562047788:00:54.775808"},
		{NewText("x"), "x"},
		{Null, ""},
	}
	for _, tt := range tests {
		if got := FormatText(tt.d); got != tt.want {
			t.Errorf("FormatText(%#v) = %q, want %q", tt.d, got, tt.want)
		}
	}
	if Null.String() != "NULL" {
		t.Errorf("Null.String() = %q", Null.String())
	}
}
