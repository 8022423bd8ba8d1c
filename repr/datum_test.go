package repr

import (
	"math"
	"testing"
	"time"
)

func TestDatumAccessors(t *testing.T) {
	if !Null.IsNull() || (Datum{}) != Null || Null.Kind() != KindUnknown {
		t.Fatalf("the zero Datum must be NULL")
	}
	tests := []struct {
		d    Datum
		kind Kind
		ok   bool
	}{
		{NewBool(true), KindBool, NewBool(true).Bool()},
		{NewInt2(-7), KindInt2, NewInt2(-7).Int() == -7},
		{NewInt4(math.MinInt32), KindInt4, NewInt4(math.MinInt32).Int() == math.MinInt32},
		{NewInt8(math.MaxInt64), KindInt8, NewInt8(math.MaxInt64).Int() == math.MaxInt64},
		{NewFloat4(0.1), KindFloat4, NewFloat4(0.1).Float() == float64(float32(0.1))},
		{NewFloat8(-2.5), KindFloat8, NewFloat8(-2.5).Float() == -2.5},
		{NewText("x"), KindText, NewText("x").Text() == "x"},
		{NewString(KindVarchar, "y"), KindVarchar, NewString(KindVarchar, "y").Text() == "y"},
		{NewDate(-5), KindDate, NewDate(-5).Date() == -5},
		{NewTimestamp(-1), KindTimestamp, NewTimestamp(-1).Timestamp() == -1},
		{NewTimestampTZ(7), KindTimestampTZ, NewTimestampTZ(7).Timestamp() == 7},
	}
	for _, tt := range tests {
		if tt.d.IsNull() || tt.d.Kind() != tt.kind || !tt.ok {
			t.Errorf("%v: kind %s, accessor ok %v", tt.d, tt.d.Kind(), tt.ok)
		}
	}
	for _, v := range []IntervalValue{
		{}, {Months: -1, Days: 2, Micros: -3},
		{Months: math.MinInt32, Days: math.MinInt32, Micros: math.MinInt64},
		{Months: math.MaxInt32, Days: math.MaxInt32, Micros: math.MaxInt64},
		{Months: 5, Days: -1, Micros: 0},
	} {
		if got := NewInterval(v).Interval(); got != v {
			t.Errorf("NewInterval(%+v).Interval() = %+v", v, got)
		}
	}
}

func TestTimestampTime(t *testing.T) {
	tests := []struct {
		tm   time.Time
		want string
	}{
		{time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), "2000-01-01 00:00:00+00"},
		{time.Date(2024, 1, 2, 3, 4, 5, 678901234, time.UTC), "2024-01-02 03:04:05.678901+00"},
		{time.Date(1969, 12, 31, 23, 59, 59, 500000000, time.UTC), "1969-12-31 23:59:59.5+00"},
		{time.Date(2024, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600)), "2024-01-02 02:04:05+00"},
		{time.Date(-43, 3, 15, 12, 0, 0, 0, time.UTC), "0044-03-15 12:00:00+00 BC"},
	}
	for _, tt := range tests {
		us := TimestampFromTime(tt.tm)
		if got := FormatText(NewTimestampTZ(us)); got != tt.want {
			t.Errorf("TimestampFromTime(%v) prints %q, want %q", tt.tm, got, tt.want)
		}
		if back := TimeFromTimestamp(us); !back.Equal(tt.tm.Truncate(time.Microsecond)) {
			t.Errorf("TimeFromTimestamp(%d) = %v, want %v", us, back, tt.tm)
		}
	}
}
