package repr

import (
	"bytes"
	"cmp"
	"math/rand/v2"
	"testing"

	"freshet/sqlerr"
)

// TestParseTime checks time input and output against PostgreSQL 15's
// answers for the same text (psql against a PostgreSQL 15 server).
func TestParseTime(t *testing.T) {
	for _, tt := range []struct {
		typ       Type
		in, out   string
		code, msg string
	}{
		{Time, "13:45:10.123456", "13:45:10.123456", "", ""},
		{Time, "1:02 PM", "13:02:00", "", ""},
		{Time, "24:00:00", "24:00:00", "", ""},
		{Time, "04:05:06 PST", "04:05:06", "", ""},
		{Time, "12:30 AM", "00:30:00", "", ""},
		{Time, "0:30 PM", "12:30:00", "", ""},
		{Time, "12:30 PM", "12:30:00", "", ""},
		{Time, "10:00:00 pm", "22:00:00", "", ""},
		{Time, "12:00:00.5 am", "00:00:00.5", "", ""},
		{Time, "4:05 pm PST", "16:05:00", "", ""},
		{Time, "040506", "04:05:06", "", ""},
		{Time, "0405", "04:05:00", "", ""},
		{Time, "4:5:6", "04:05:06", "", ""},
		{Time, "allballs", "00:00:00", "", ""},
		{Time, "2024-01-01 13:45", "13:45:00", "", ""},
		{Time, "2024-01-01 04:05:06+02", "04:05:06", "", ""},
		{Time, "13:45:10.1234567", "13:45:10.123457", "", ""},
		{Time, "23:59:59.9999999", "24:00:00", "", ""},
		{Time, "12:00:60", "12:01:00", "", ""},
		{Time, "04:05:06+05", "04:05:06", "", ""},
		{Time, "04:05:06-08:00", "04:05:06", "", ""},
		{Time, "04:05:06 UTC", "04:05:06", "", ""},
		{Time, "04:05:06Z", "04:05:06", "", ""},
		{Time, "04:05:06 +05", "04:05:06", "", ""},
		{Time, "  10:00  ", "10:00:00", "", ""},
		{Time, "T10:00", "10:00:00", "", ""},
		{Time, "10:00am", "10:00:00", "", ""},
		{Time, "10:00:00.", "10:00:00", "", ""},
		{Time, "10:00.5", "00:10:00.5", "", ""},
		{TimeOf(0), "13:45:10.5", "13:45:11", "", ""},
		{TimeOf(1), "13:45:10.55", "13:45:10.6", "", ""},
		{TimeOf(0), "23:59:59.6", "24:00:00", "", ""},
		{TimeOf(3), "13:45:10.123456", "13:45:10.123", "", ""},
		{TimeOf(0), "1:02:03.4 PM", "13:02:03", "", ""},
		{Time, "24:00:01", "", "22008", `date/time field value out of range: "24:00:01"`},
		{Time, "25:00", "", "22008", `date/time field value out of range: "25:00"`},
		{Time, "100:00", "", "22008", `date/time field value out of range: "100:00"`},
		{Time, "12:60", "", "22008", `date/time field value out of range: "12:60"`},
		{Time, "13:00 PM", "", "22008", `date/time field value out of range: "13:00 PM"`},
		{Time, "foo", "", "22007", `invalid input syntax for type time: "foo"`},
		{Time, "04:05:06 foo", "", "22007", `invalid input syntax for type time: "04:05:06 foo"`},
		{Time, "04:05:06 XYZ", "", "22007", `invalid input syntax for type time: "04:05:06 XYZ"`},
		{Time, "04:05:06 America/New_York", "", "22007", `invalid input syntax for type time: "04:05:06 America/New_York"`},
		{Time, "1 PM", "", "22007", `invalid input syntax for type time: "1 PM"`},
		{Time, "", "", "22007", `invalid input syntax for type time: ""`},
		{Time, "-10:00", "", "22007", `invalid input syntax for type time: "-10:00"`},
		{Time, "10.5", "", "22007", `invalid input syntax for type time: "10.5"`},
		{Time, "10", "", "22007", `invalid input syntax for type time: "10"`},
		{Time, "10:00 2024-01-01", "", "22007", `invalid input syntax for type time: "10:00 2024-01-01"`},
		{Time, "10:00:00:00", "", "22007", `invalid input syntax for type time: "10:00:00:00"`},
		{Time, "2024-01-01T04:05:06", "", "22007", `invalid input syntax for type time: "2024-01-01T04:05:06"`},
		{Time, "10:00 a.m.", "", "22007", `invalid input syntax for type time: "10:00 a.m."`},
		{Time, "04:05:06+16", "", "22009", `time zone displacement out of range: "04:05:06+16"`},
		{Time, "2024-13-01 10:00", "", "22008", `date/time field value out of range: "2024-13-01 10:00"`},
	} {
		d, err := ParseText(tt.typ, tt.in)
		if tt.code != "" {
			if err == nil || sqlerr.Code(err) != tt.code || err.Error() != tt.msg {
				t.Errorf("%s %q: %v, %v; want %s %s", tt.typ, tt.in, FormatText(d), err, tt.code, tt.msg)
			}
			continue
		}
		if err != nil || FormatText(d) != tt.out {
			t.Errorf("%s %q: %q, %v; want %q", tt.typ, tt.in, FormatText(d), err, tt.out)
		}
	}
}

// TestTimeOrder checks on seeded random times that the text form reads
// back as the same value and that the row encoding keeps the invariant
// of docs/types.md: equal times have equal bytes, and bytes.Compare
// orders them as their microseconds.
func TestTimeOrder(t *testing.T) {
	forSeeds(t, 10, func(t *testing.T, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, seed^0x71e))
		for range 2000 {
			a, b := randomDatum(rng, Time), randomDatum(rng, Time)
			if a.IsNull() || b.IsNull() {
				continue
			}
			back, err := ParseText(Time, FormatText(a))
			if err != nil || back.Time() != a.Time() {
				t.Fatalf("%d printed as %q reads back as %v, %v", a.Time(), FormatText(a), back.Time(), err)
			}
			got := bytes.Compare(PackRow(a), PackRow(b))
			if want := cmp.Compare(a.Time(), b.Time()); got != want || Compare(a, b) != want {
				t.Fatalf("%s vs %s: bytes.Compare %d, Compare %d, want %d", FormatText(a), FormatText(b), got, Compare(a, b), want)
			}
		}
	})
}

// TestTimeCastsAndArithmetic checks the casts and operators of time
// against PostgreSQL 15's answers.
func TestTimeCastsAndArithmetic(t *testing.T) {
	tm := func(s string) Datum { return mustParse(t, Time, s) }
	iv := func(s string) Datum { return mustParse(t, Interval, s) }
	for _, tt := range []struct {
		name string
		got  func() (Datum, error)
		want string
	}{
		{"time + interval", func() (Datum, error) { return Add(tm("10:00"), iv("1 day 2 hours 3 mins")) }, "12:03:00"},
		{"interval + time", func() (Datum, error) { return Add(iv("3 hours"), tm("23:00")) }, "02:00:00"},
		{"time - interval", func() (Datum, error) { return Sub(tm("01:00"), iv("2 hours")) }, "23:00:00"},
		{"time - negative interval", func() (Datum, error) { return Sub(tm("01:00"), iv("-23:30")) }, "00:30:00"},
		{"time + big negative", func() (Datum, error) { return Add(tm("23:00"), iv("-25 hours")) }, "22:00:00"},
		{"24:00 + 0", func() (Datum, error) { return Add(tm("24:00"), iv("0")) }, "00:00:00"},
		{"time + months", func() (Datum, error) { return Add(tm("10:00"), iv("1 mon")) }, "10:00:00"},
		{"time - time", func() (Datum, error) { return Sub(tm("13:00"), tm("14:30:00.5")) }, "-01:30:00.5"},
		{"date + time", func() (Datum, error) { return Add(mustParse(t, Date, "2024-01-31"), tm("10:00")) }, "2024-01-31 10:00:00"},
		{"time + date", func() (Datum, error) { return Add(tm("10:00"), mustParse(t, Date, "2024-01-31")) }, "2024-01-31 10:00:00"},
		{"date - time", func() (Datum, error) { return Sub(mustParse(t, Date, "2024-01-01"), tm("10:00")) }, "2023-12-31 14:00:00"},
		{"infinity + time", func() (Datum, error) { return Add(mustParse(t, Date, "infinity"), tm("10:00")) }, "infinity"},
		{"timestamp::time", func() (Datum, error) { return Cast(mustParse(t, Timestamp, "2024-01-01 13:45:10.5"), Time) }, "13:45:10.5"},
		{"infinite timestamp::time", func() (Datum, error) { return Cast(mustParse(t, Timestamp, "infinity"), Time) }, ""},
		{"timestamptz::time in a zone", func() (Datum, error) {
			z, _ := LoadZone("Asia/Kolkata")
			return CastIn(mustParse(t, TimestampTZ, "2024-01-01 20:00:00+00"), Time, z)
		}, "01:30:00"},
		{"interval::time", func() (Datum, error) { return Cast(iv("-1 hour"), Time) }, "23:00:00"},
		{"interval::time past a day", func() (Datum, error) { return Cast(iv("27 hours 5 mins"), Time) }, "03:05:00"},
		{"time::interval", func() (Datum, error) { return Cast(tm("13:00"), Interval) }, "13:00:00"},
		{"time::time(0)", func() (Datum, error) { return Cast(tm("10:00:01.5"), TimeOf(0)) }, "10:00:02"},
		{"text::time", func() (Datum, error) { return Cast(NewText("1:02 pm"), Time) }, "13:02:00"},
		{"make_time", func() (Datum, error) { return MakeTime(8, 15, 23.5) }, "08:15:23.5"},
		{"make_time 24", func() (Datum, error) { return MakeTime(24, 0, 0) }, "24:00:00"},
		{"make_time sec 60", func() (Datum, error) { return MakeTime(8, 0, 60) }, "08:01:00"},
		{"make_time rounds", func() (Datum, error) { return MakeTime(23, 59, 59.9999999) }, "24:00:00"},
	} {
		d, err := tt.got()
		if err != nil || FormatText(d) != tt.want || d.IsNull() != (tt.want == "") {
			t.Errorf("%s: %s, %v; want %s", tt.name, FormatText(d), err, tt.want)
		}
	}
	for _, tt := range []struct {
		h, m int64
		s    float64
		msg  string
	}{
		{25, 0, 0, "time field value out of range: 25:00:00"},
		{8, 60, 0, "time field value out of range: 8:60:00"},
		{8, 0, -1, "time field value out of range: 8:00:-1"},
		{-1, 0, 0, "time field value out of range: -1:00:00"},
		{24, 0, 0.5, "time field value out of range: 24:00:0.5"},
	} {
		if _, err := MakeTime(tt.h, tt.m, tt.s); err == nil || sqlerr.Code(err) != sqlerr.DatetimeFieldOverflow || err.Error() != tt.msg {
			t.Errorf("make_time(%d, %d, %v): %v, want %s", tt.h, tt.m, tt.s, err, tt.msg)
		}
	}
	if _, err := Cast(tm("10:00"), Date); err == nil || sqlerr.Code(err) != sqlerr.CannotCoerce {
		t.Errorf("time::date: %v", err)
	}
}
