package repr

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"freshet/sqlerr"
)

// The files in testdata hold PostgreSQL 15's answers for inputs drawn at
// random (and, for floats, the decimals that lie exactly halfway between
// two floats, where a shortest-output algorithm must choose): one case a
// line, tab-separated, with # comments.

// readGolden returns the tab-separated fields of each case line of a
// testdata file.
func readGolden(t *testing.T, name string, fields int) [][]string {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases [][]string
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		parts := strings.Split(sc.Text(), "\t")
		if len(parts) != fields {
			t.Fatalf("%s:%d: %d fields, want %d", name, line, len(parts), fields)
		}
		cases = append(cases, parts)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

func TestFloatTextGolden(t *testing.T) {
	for _, c := range readGolden(t, "float_text.tsv", 3) {
		typ := Float8
		if c[0] == "float4" {
			typ = Float4
		}
		d, err := ParseText(typ, c[1])
		if err != nil || FormatText(d) != c[2] {
			t.Errorf("%s %s prints %q (%v), want %q", c[0], c[1], FormatText(d), err, c[2])
		}
	}
}

func TestNumericArithGolden(t *testing.T) {
	ops := map[string]func(a, b Datum) (Datum, error){"+": Add, "-": Sub, "*": Mul, "/": Div, "%": Mod}
	for _, c := range readGolden(t, "numeric_arith.tsv", 4) {
		a, b := mustParse(t, Numeric, c[0]), mustParse(t, Numeric, c[2])
		got, err := ops[c[1]](a, b)
		if err != nil || FormatText(got) != c[3] {
			t.Errorf("%s %s %s = %s (%v), want %s", c[0], c[1], c[2], got, err, c[3])
		}
	}
}

// TestTimeInputGolden reads combinations of clocks, meridiems, zones and
// leading dates as time and compares the value or the SQLSTATE with
// PostgreSQL 15's for the same text.
func TestTimeInputGolden(t *testing.T) {
	for _, c := range readGolden(t, "time_in.tsv", 2) {
		d, err := ParseText(Time, c[0])
		got := FormatText(d)
		if err != nil {
			got = "ERR " + sqlerr.Code(err)
		}
		if got != c[1] {
			t.Errorf("%q::time is %q (%v), PostgreSQL %q", c[0], got, err, c[1])
		}
	}
}

// TestTimeArithGolden checks time ± interval, interval + time, time -
// time, interval::time and date - time on random values against
// PostgreSQL 15's answers (the extract columns are expr's test).
func TestTimeArithGolden(t *testing.T) {
	for _, c := range readGolden(t, "time_arith.tsv", 11) {
		a, b, c2 := mustParse(t, Time, c[0]), mustParse(t, Interval, c[1]), mustParse(t, Time, c[2])
		date := mustParse(t, Date, "2024-02-29")
		for _, tc := range []struct {
			name string
			got  func() (Datum, error)
			want string
		}{
			{"a + b", func() (Datum, error) { return Add(a, b) }, c[3]},
			{"a - b", func() (Datum, error) { return Sub(a, b) }, c[4]},
			{"b + a", func() (Datum, error) { return Add(b, a) }, c[5]},
			{"a - c", func() (Datum, error) { return Sub(a, c2) }, c[6]},
			{"b::time", func() (Datum, error) { return Cast(b, Time) }, c[7]},
			{"date - a", func() (Datum, error) { return Sub(date, a) }, c[10]},
		} {
			d, err := tc.got()
			if err != nil || FormatText(d) != tc.want {
				t.Errorf("a %s, b %s, c %s: %s = %s (%v), PostgreSQL %s", c[0], c[1], c[2], tc.name, FormatText(d), err, tc.want)
			}
		}
	}
}
