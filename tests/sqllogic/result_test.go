package sqllogic

import (
	"crypto/md5"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
)

func TestSort(t *testing.T) {
	for _, tc := range []struct {
		mode    SortMode
		columns int
		in      []string
		want    []string
	}{
		{NoSort, 1, []string{"3", "1", "2"}, []string{"3", "1", "2"}},
		// Rows compare as strings, column by column: "10" < "9".
		{RowSort, 2, []string{"9", "a", "10", "b", "10", "a"}, []string{"10", "a", "10", "b", "9", "a"}},
		{RowSort, 1, []string{"b", "NULL", "(empty)", "-1"}, []string{"(empty)", "-1", "NULL", "b"}},
		// A later column only breaks ties of the earlier ones.
		{RowSort, 2, []string{"1", "z", "1", "a", "0", "q"}, []string{"0", "q", "1", "a", "1", "z"}},
		// Values sort one by one, across rows.
		{ValueSort, 2, []string{"9", "a", "10", "b"}, []string{"10", "9", "a", "b"}},
		// A ragged result (wrong column count) is left alone by rowsort.
		{RowSort, 2, []string{"b", "a", "c"}, []string{"b", "a", "c"}},
		{RowSort, 3, nil, nil},
	} {
		got := slices.Clone(tc.in)
		Sort(tc.mode, tc.columns, got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%v/%d %q: got %q, want %q", tc.mode, tc.columns, tc.in, got, tc.want)
		}
	}
}

// TestHash checks Hash against MD5s computed apart from it: by md5sum
// over the same lines, and with crypto/md5 over the joined text.
func TestHash(t *testing.T) {
	for _, tc := range []struct {
		values []string
		md5sum string // printf '...' | md5sum
	}{
		{nil, "d41d8cd98f00b204e9800998ecf8427e"},
		{[]string{"1", "2", "3"}, "c0710d6b4f15dfa88f600b0e6b624077"},
		{[]string{"NULL", "(empty)", "-1", "2.500"}, "610ba98df21dcc49cd0b904bfa153777"},
	} {
		got := Hash(tc.values)
		if got != tc.md5sum {
			t.Errorf("Hash(%q) = %s, md5sum says %s", tc.values, got, tc.md5sum)
		}
		text := ""
		if len(tc.values) > 0 {
			text = strings.Join(tc.values, "\n") + "\n"
		}
		if want := fmt.Sprintf("%x", md5.Sum([]byte(text))); got != want {
			t.Errorf("Hash(%q) = %s, md5 of the joined text is %s", tc.values, got, want)
		}
	}
}

// TestCheck compares results with expected blocks of both forms, after
// rendering and sorting.
func TestCheck(t *testing.T) {
	i4 := func(s string) Value { return TextValue(pgtype.Int4OID, s) }
	rows := [][]Value{{i4("9"), TextValue(pgtype.TextOID, "")}, {i4("10"), NullValue(pgtype.TextOID)}}
	sorted := []string{"10", "NULL", "9", "(empty)"}
	for _, tc := range []struct {
		name string
		rec  Record
		cols int
		err  string // "" for a match
	}{
		{"values", Record{Types: []ColumnType{Integer, Text}, Sort: RowSort, Expected: Expected{Values: sorted}}, 2, ""},
		{"hash", Record{Types: []ColumnType{Integer, Text}, Sort: RowSort,
			Expected: Expected{Hashed: true, Count: 4, Hash: Hash(sorted)}}, 2, ""},
		{"hash of unsorted values", Record{Types: []ColumnType{Integer, Text}, Sort: NoSort,
			Expected: Expected{Hashed: true, Count: 4, Hash: Hash(sorted)}}, 2, "hash differs"},
		{"hash count", Record{Types: []ColumnType{Integer, Text}, Sort: RowSort,
			Expected: Expected{Hashed: true, Count: 6, Hash: Hash(sorted)}}, 2, "expected 6 values, got 4"},
		{"value", Record{Types: []ColumnType{Integer, Text}, Sort: RowSort,
			Expected: Expected{Values: []string{"10", "NULL", "9", "x"}}}, 2,
			`value 4 (row 2, column 2) differs: expected "x", got "(empty)"`},
		{"count", Record{Types: []ColumnType{Integer, Text}, Expected: Expected{Values: []string{"1"}}}, 2, "expected 1 values, got 4"},
		{"columns", Record{Types: []ColumnType{Integer}, Expected: Expected{Values: sorted}}, 2, "expected 1 columns, got 2"},
		{"valuesort", Record{Types: []ColumnType{Text, Text}, Sort: ValueSort,
			Expected: Expected{Values: []string{"(empty)", "10", "9", "NULL"}}}, 2, ""},
	} {
		got, err := tc.rec.Check(tc.cols, rows)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.err)
		case tc.err == "" && !slices.Equal(got, tc.rec.Expected.Values) && !tc.rec.Expected.Hashed:
			t.Errorf("%s: values %q", tc.name, got)
		}
	}
	empty := Record{Types: []ColumnType{Integer}}
	if _, err := empty.Check(1, nil); err != nil {
		t.Errorf("empty result against no values: %v", err)
	}
}
