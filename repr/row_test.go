package repr

import (
	"bytes"
	"cmp"
	"testing"

	"freshet/sqlerr"
)

// rankedValue is a value written as text (or NULL) and its dense rank
// under PostgreSQL 15's ORDER BY v ASC (NULLS LAST) among the values of
// its list: equal values share a rank.
type rankedValue struct {
	in   string
	null bool
	rank int
}

var orderCases = []struct {
	typ    Type
	values []rankedValue
}{
	{Bool, []rankedValue{
		{"true", false, 2},
		{"false", false, 1},
		{"", true, 3},
	}},
	{Int8, []rankedValue{
		{"0", false, 10},
		{"-1", false, 9},
		{"1", false, 11},
		{"-256", false, 4},
		{"-255", false, 5},
		{"255", false, 14},
		{"256", false, 15},
		{"-257", false, 3},
		{"9223372036854775807", false, 18},
		{"-9223372036854775808", false, 1},
		{"65535", false, 16},
		{"-65536", false, 2},
		{"4294967296", false, 17},
		{"", true, 19},
		{"-2", false, 8},
		{"127", false, 12},
		{"128", false, 13},
		{"-128", false, 7},
		{"-129", false, 6},
	}},
	{Float8, []rankedValue{
		{"0", false, 5},
		{"-0", false, 5},
		{"NaN", false, 12},
		{"Infinity", false, 11},
		{"-Infinity", false, 1},
		{"1e-320", false, 6},
		{"-1e-320", false, 4},
		{"1.5", false, 9},
		{"-1.5", false, 3},
		{"1e308", false, 10},
		{"-1e308", false, 2},
		{"0.1", false, 8},
		{"NaN", false, 12},
		{"", true, 13},
		{"2.2250738585072014e-308", false, 7},
	}},
	{Float4, []rankedValue{
		{"0", false, 3},
		{"-0", false, 3},
		{"NaN", false, 8},
		{"Infinity", false, 7},
		{"-Infinity", false, 1},
		{"1e-45", false, 4},
		{"3.4028235e38", false, 6},
		{"0.1", false, 5},
		{"-0.1", false, 2},
	}},
	{Numeric, []rankedValue{
		{"0", false, 12},
		{"0.00", false, 12},
		{"-0", false, 12},
		{"1", false, 22},
		{"1.0", false, 22},
		{"1.00", false, 22},
		{"-1", false, 7},
		{"-1.000", false, 7},
		{"10", false, 25},
		{"9.99", false, 24},
		{"0.1", false, 20},
		{"0.10", false, 20},
		{"0.09", false, 18},
		{"0.099", false, 19},
		{"-0.1", false, 8},
		{"-0.09", false, 10},
		{"-0.099", false, 9},
		{"NaN", false, 37},
		{"Infinity", false, 36},
		{"-Infinity", false, 1},
		{"123456789012345678901234567890", false, 32},
		{"-123456789012345678901234567890", false, 3},
		{"1e-100", false, 15},
		{"1e-120", false, 14},
		{"1e120", false, 34},
		{"-1e-120", false, 11},
		{"-1e120", false, 2},
		{"1e100", false, 33},
		{"0.5", false, 21},
		{"0.05", false, 17},
		{"5", false, 23},
		{"50", false, 27},
		{"500", false, 30},
		{"55", false, 28},
		{"0.0000000001", false, 16},
		{"12.34", false, 26},
		{"12.340", false, 26},
		{"1234", false, 31},
		{"123.4", false, 29},
		{"-12.34", false, 6},
		{"-123.4", false, 5},
		{"-1234", false, 4},
		{"", true, 38},
		{"1e-16383", false, 13},
		{"1e131071", false, 35},
	}},
	{Text, []rankedValue{
		{"", false, 1},
		{"a", false, 6},
		{"A", false, 3},
		{"B", false, 4},
		{"b", false, 12},
		{"ab", false, 10},
		{"a b", false, 8},
		{"aa", false, 9},
		{"abc", false, 11},
		{"é", false, 15},
		{"z", false, 13},
		{"Z", false, 5},
		{" ", false, 2},
		{"a ", false, 7},
		{"", true, 17},
		{"~", false, 14},
		{"é̃", false, 16},
	}},
	{BpcharOf(3), []rankedValue{
		{"a", false, 2},
		{"a  ", false, 2},
		{"ab", false, 3},
		{"", false, 1},
		{"b", false, 4},
		{"", true, 5},
	}},
	{Date, []rankedValue{
		{"2024-01-02", false, 7},
		{"2024-01-01", false, 6},
		{"1999-12-31", false, 4},
		{"infinity", false, 9},
		{"-infinity", false, 1},
		{"0044-03-15 BC", false, 3},
		{"4714-11-24 BC", false, 2},
		{"5874897-12-31", false, 8},
		{"", true, 10},
		{"2000-01-01", false, 5},
	}},
	{Timestamp, []rankedValue{
		{"2024-01-02 00:00", false, 5},
		{"2024-01-01 23:59:59.999999", false, 4},
		{"infinity", false, 7},
		{"-infinity", false, 1},
		{"1970-01-01", false, 3},
		{"0044-03-15 BC", false, 2},
		{"294276-12-31 23:59:59.999999", false, 6},
		{"", true, 8},
	}},
	{TimestampTZ, []rankedValue{
		{"2024-01-02 00:00+00", false, 2},
		{"2024-01-02 00:00+01", false, 1},
		{"infinity", false, 3},
		{"", true, 4},
	}},
	{Interval, []rankedValue{
		{"1 mon", false, 9},
		{"30 days", false, 9},
		{"720 hours", false, 9},
		{"1 day", false, 7},
		{"24 hours", false, 7},
		{"-1 day", false, 3},
		{"-1 mons", false, 2},
		{"1 year", false, 10},
		{"360 days", false, 10},
		{"0", false, 5},
		{"00:00:00.000001", false, 6},
		{"-00:00:00.000001", false, 4},
		{"1 mon -1 day", false, 8},
		{"29 days 24:00:00", false, 9},
		{"178000000 years", false, 12},
		{"-178000000 years", false, 1},
		{"", true, 13},
		{"2147483647 days 2562047788:00:54.775807", false, 11},
	}},
}

// TestRowOrderMatchesPostgres checks, for every pair of values of a
// type, that bytes.Compare of their encodings and Compare of the datums
// order them as PostgreSQL does, and that equal values have equal
// bytes. Intervals are the documented exception: PostgreSQL's equal
// spans ('1 mon', '30 days') are distinct, ordered values here.
func TestRowOrderMatchesPostgres(t *testing.T) {
	for _, oc := range orderCases {
		datums := make([]Datum, len(oc.values))
		for i, v := range oc.values {
			if v.null {
				continue
			}
			d, err := ParseText(oc.typ, v.in)
			if err != nil {
				t.Fatalf("ParseText(%s, %q): %v", oc.typ, v.in, err)
			}
			datums[i] = d
		}
		for i, a := range datums {
			ra := PackRow(a)
			for j, b := range datums {
				rb := PackRow(b)
				want := cmp.Compare(oc.values[i].rank, oc.values[j].rank)
				gotBytes, gotCompare := bytes.Compare(ra, rb), Compare(a, b)
				if gotBytes != gotCompare {
					t.Errorf("%s: %s vs %s: bytes.Compare %d, Compare %d", oc.typ, a, b, gotBytes, gotCompare)
				}
				if oc.typ.Kind() == KindInterval && want == 0 && i != j {
					if c := CompareIntervals(a.Interval(), b.Interval()); c != 0 {
						t.Errorf("CompareIntervals(%s, %s) = %d, want 0", a, b, c)
					}
					continue
				}
				if gotBytes != want {
					t.Errorf("%s: %s vs %s: bytes.Compare %d, want %d", oc.typ, a, b, gotBytes, want)
				}
			}
		}
	}
}

func TestCanonicalEncoding(t *testing.T) {
	equal := []struct {
		a, b Datum
	}{
		{mustParse(t, Numeric, "1.0"), mustParse(t, Numeric, "1.00")},
		{mustParse(t, Numeric, "0"), mustParse(t, Numeric, "-0.000")},
		{mustParse(t, Numeric, "100"), mustParse(t, Numeric, "1e2")},
		{mustParse(t, NumericOf(5, 2), "1"), mustParse(t, Numeric, "1")},
		{NewFloat8(0), NewFloat8(-1 / inf())},
		{NewFloat8(nan()), NewFloat8(-nan())},
		{NewFloat4(float32(nan())), NewFloat8(nan())},
		{NewInt2(5), NewInt8(5)},
		{NewInt4(-70000), NewInt8(-70000)},
		{NewString(KindBpchar, "a  "), NewString(KindBpchar, "a")},
		{NewText("x"), NewString(KindVarchar, "x")},
	}
	for _, tt := range equal {
		ra, rb := PackRow(tt.a), PackRow(tt.b)
		if !ra.Equal(rb) || ra.Hash() != rb.Hash() || Compare(tt.a, tt.b) != 0 {
			t.Errorf("%s and %s: rows %x and %x differ (Compare %d)", tt.a, tt.b, []byte(ra), []byte(rb), Compare(tt.a, tt.b))
		}
	}
}

func TestRowDecode(t *testing.T) {
	types := []Type{Bool, Int2, Int4, Int8, Float4, Float8, NumericOf(10, 2), Numeric, Numeric.WithDisplayScale(3),
		Text, VarcharOf(5), BpcharOf(4), Bpchar, Date, Timestamp, TimestampTZ, Interval, Int4, Unknown}
	texts := []string{"t", "-32768", "2147483647", "-9223372036854775808", "0.1", "-1.5e-07", "12.50", "1.50", "2.5",
		"a\x00b", "héé", "ab", "x  ", "2024-01-02", "2024-01-02 03:04:05.5", "0044-03-15 12:00:00+00 BC",
		"1 year -2 days 03:04:05", "", "lit"}
	// What PostgreSQL prints after a round trip through a table: numeric
	// keeps the scale of its type, else loses trailing zeros (see doc.go),
	// and char(n) keeps its padding while bare bpchar loses it.
	want := []string{"t", "-32768", "2147483647", "-9223372036854775808", "0.1", "-1.5e-07", "12.50", "1.5", "2.500",
		"a\x00b", "héé", "ab  ", "x", "2024-01-02", "2024-01-02 03:04:05.5", "0044-03-15 12:00:00+00 BC",
		"1 year -2 days +03:04:05", "NULL", "lit"}
	var p RowPacker
	for i, typ := range types {
		if texts[i] == "" {
			p.PushNull()
			continue
		}
		var d Datum
		if typ.Kind().IsString() {
			// NUL is not valid input text, but rows must carry any bytes.
			d = NewString(typ.Kind(), texts[i])
		} else {
			d = mustParse(t, typ, texts[i])
		}
		p.Push(d)
	}
	row := p.Finish()
	if len(p.Bytes()) != 0 {
		t.Fatalf("Finish did not reset the packer")
	}
	got, err := row.Datums(types)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range got {
		if d.String() != want[i] {
			t.Errorf("column %d (%s) = %q, want %q", i, types[i], d.String(), want[i])
		}
		if !d.IsNull() && d.Kind() != types[i].Kind() {
			t.Errorf("column %d has kind %s, want %s", i, d.Kind(), types[i].Kind())
		}
	}

	// Columns copied raw and rows concatenated encode the same datums.
	var q RowPacker
	it := row.Iter()
	for !it.Done() {
		raw, err := it.NextRaw()
		if err != nil {
			t.Fatal(err)
		}
		q.PushEncoded(raw)
	}
	if !q.Finish().Equal(row) {
		t.Errorf("row rebuilt from NextRaw differs")
	}
	left, right := PackRow(NewInt4(1), NewText("a")), PackRow(Null, NewFloat8(2))
	if !append(append(Row{}, left...), right...).Equal(PackRow(NewInt4(1), NewText("a"), Null, NewFloat8(2))) {
		t.Errorf("concatenated rows differ from the row of all columns")
	}

	// DecodeInto reuses its slice.
	buf := make([]Datum, 0, len(types))
	again, err := row.DecodeInto(buf, types)
	if err != nil || &again[0] != &buf[:1][0] {
		t.Errorf("DecodeInto did not reuse its buffer: %v", err)
	}
}

func TestRowPackerArena(t *testing.T) {
	var p RowPacker
	var arena []byte
	var rows []Row
	for i := range 3 {
		p.Push(NewInt8(int64(i)))
		var r Row
		arena, r = p.AppendTo(arena)
		rows = append(rows, r)
	}
	for i, r := range rows {
		got, err := r.Datums([]Type{Int8})
		if err != nil || got[0].Int() != int64(i) {
			t.Errorf("row %d = %v, %v", i, got, err)
		}
	}
}

func TestRowCorrupt(t *testing.T) {
	good := PackRow(NewInt4(7), NewText("x"))
	tests := []struct {
		name  string
		row   Row
		types []Type
	}{
		{"fewer datums", good, []Type{Int4, Text, Int4}},
		{"more datums", good, []Type{Int4}},
		{"wrong type", good, []Type{Text, Text}},
		{"truncated int", Row{tagIntZero + 2, 1}, []Type{Int4}},
		{"unterminated string", Row{tagString, 'a'}, []Type{Text}},
		{"unknown tag", Row{0x01}, []Type{Int4}},
		{"int too wide", PackRow(NewInt8(1 << 40)), []Type{Int2}},
		{"bad numeric digit", Row{tagNumPos, expBias + 1, 0x02, 0}, []Type{Numeric}},
	}
	for _, tt := range tests {
		if sqlerr.Invariants {
			t.Skip("corrupt rows panic under the invariants tag")
		}
		_, err := tt.row.Datums(tt.types)
		if sqlerr.Code(err) != sqlerr.InternalError {
			t.Errorf("%s: err = %v, want XX000", tt.name, err)
		}
	}
}

func TestRowString(t *testing.T) {
	r := PackRow(NewInt4(1), Null, NewText("a"), mustParse(t, Numeric, "1.50"), NewBool(true))
	if got, want := r.String(), "(1,NULL,a,1.5,t)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// TestRowHashStable pins the hash function: workers route rows by it,
// so a change must be deliberate.
func TestRowHashStable(t *testing.T) {
	tests := []struct {
		row  Row
		want uint64
	}{
		{Row{}, 0},
		{PackRow(NewInt8(42)), 0xaf21573f0b560c68},
		{PackRow(NewText("hello, world"), NewInt4(-1)), 0x486cf24dda68f93a},
	}
	for _, tt := range tests {
		if got := tt.row.Hash(); got != tt.want {
			t.Errorf("Hash(%s) = %#x, want %#x", tt.row, got, tt.want)
		}
	}
}

func mustParse(t testing.TB, typ Type, s string) Datum {
	t.Helper()
	d, err := ParseText(typ, s)
	if err != nil {
		t.Fatalf("ParseText(%s, %q): %v", typ, s, err)
	}
	return d
}

func TestRowPrefix(t *testing.T) {
	full := PackRow(NewInt8(1), NewText("ab"), Null, NewInt8(-7))
	for n, want := range []Row{
		PackRow(),
		PackRow(NewInt8(1)),
		PackRow(NewInt8(1), NewText("ab")),
		PackRow(NewInt8(1), NewText("ab"), Null),
		full, full, full,
	} {
		if got := full.Prefix(n); !got.Equal(want) {
			t.Errorf("Prefix(%d) = %v, want %v", n, got, want)
		}
	}
}

// Prefix cuts a row to its first n datums, and returns a row of fewer
// whole.
func TestPrefix(t *testing.T) {
	var p RowPacker
	p.Push(NewInt4(1))
	p.Push(NewText("x"))
	row := Row(p.Finish())
	p.Reset()
	p.Push(NewInt4(1))
	one := Row(p.Finish())
	for _, c := range []struct {
		n    int
		want Row
	}{{0, row[:0]}, {1, one}, {2, row}, {3, row}} {
		if got := row.Prefix(c.n); !bytes.Equal(got, c.want) {
			t.Errorf("Prefix(%d) = %x; want %x", c.n, got, c.want)
		}
	}
}
