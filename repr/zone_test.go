package repr

import "testing"

func mustZone(t *testing.T, name string) *Zone {
	t.Helper()
	z, err := LoadZone(name)
	if err != nil {
		t.Fatalf("LoadZone(%q): %v", name, err)
	}
	return z
}

func stamp(t *testing.T, s string) int64 {
	t.Helper()
	d, err := ParseText(Timestamp, s)
	if err != nil {
		t.Fatal(err)
	}
	return d.i
}

// TestZoneNames: the spellings PostgreSQL takes, the names SHOW gives
// back, and 22023 for the rest.
func TestZoneNames(t *testing.T) {
	for in, want := range map[string]string{
		"UTC": "UTC", "utc": "UTC", "Etc/UTC": "Etc/UTC", "GMT": "GMT",
		"america/new_york": "America/New_York", "Europe/Berlin": "Europe/Berlin",
		"est5edt": "EST5EDT", "-7": "<-07>+07", "5.5": "<+05:30>-05:30", "<-07>+07": "<-07>+07",
	} {
		if got := mustZone(t, in).Name(); got != want {
			t.Errorf("LoadZone(%q).Name() = %q, want %q", in, got, want)
		}
	}
	for _, bad := range []string{"Mars/Olympus", "", "../etc/passwd", "/etc/localtime", "<-07>+08", "1000"} {
		if _, err := LoadZone(bad); err == nil {
			t.Errorf("LoadZone(%q) succeeded", bad)
		}
	}
}

// TestFromLocal: a wall-clock time in the spring-forward gap takes the
// offset before the transition, one in the fall-back overlap the offset
// after it, as PostgreSQL reads them; elsewhere ToLocal undoes it.
func TestFromLocal(t *testing.T) {
	ny := mustZone(t, "America/New_York")
	for _, c := range []struct{ local, want string }{
		{"2024-03-10 02:30:00", "2024-03-10 03:30:00-04"}, // gap: read as EST
		{"2024-11-03 01:30:00", "2024-11-03 01:30:00-05"}, // overlap: EST, after
		{"2024-11-03 00:59:59", "2024-11-03 00:59:59-04"},
		{"2024-07-04 12:00:00.25", "2024-07-04 12:00:00.25-04"},
		{"1850-01-01 00:00:00", "1850-01-01 00:00:00-04:56:02"}, // local mean time
		{"2100-01-01 00:00:00", "2100-01-01 00:00:00-05"},
	} {
		us := ny.FromLocal(stamp(t, c.local))
		if got := FormatTextIn(NewTimestampTZ(us), ny); got != c.want {
			t.Errorf("%s in New York prints %s, want %s", c.local, got, c.want)
		}
	}
	for _, s := range []string{"2024-01-15 08:00:00", "2024-07-15 23:59:59", "1999-12-31 23:00:00"} {
		l := stamp(t, s)
		if back := ny.ToLocal(ny.FromLocal(l)); back != l {
			t.Errorf("%s: ToLocal(FromLocal) = %d, want %d", s, back, l)
		}
	}
}

// TestAddIntervalIn: days and months move the wall clock, hours are
// elapsed time.
func TestAddIntervalIn(t *testing.T) {
	ny := mustZone(t, "America/New_York")
	start, err := ParseTextIn(TimestampTZ, "2024-03-09 12:00", ny)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v    IntervalValue
		want string
	}{
		{IntervalValue{Days: 1}, "2024-03-10 12:00:00-04"},
		{IntervalValue{Micros: 24 * 3600 * 1e6}, "2024-03-10 13:00:00-04"},
		{IntervalValue{Months: 1}, "2024-04-09 12:00:00-04"},
		{IntervalValue{Days: 1, Micros: 3600 * 1e6}, "2024-03-10 13:00:00-04"},
	} {
		got, err := AddIntervalIn(ny, start, c.v)
		if err != nil {
			t.Fatal(err)
		}
		if s := FormatTextIn(got, ny); s != c.want {
			t.Errorf("+ %+v = %s, want %s", c.v, s, c.want)
		}
	}
}
