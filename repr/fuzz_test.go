package repr

import (
	"testing"
)

// FuzzParseText feeds arbitrary text to every type's input function. It
// must never panic; text it accepts must print as text that it accepts
// again as an equal value (the output is canonical), and the value must
// survive the Row encoding.
func FuzzParseText(f *testing.F) {
	for _, s := range []string{"0", "-1", "32767", "1e308", "NaN", "-Infinity", "1.50", "123456789012.345",
		"t", "off", "2024-02-29", "2024-02-30", "infinity", "1999-12-31 23:59:59.999999+05:30",
		"1 year 2 mons -3 days 04:05:06.7", "P1Y2M", "@ 1 hour ago", "", " ", "\x00", "abc\xff",
		"{}", "{1,NULL,-3}", `{"a b",NULL,"",x\,y}`, "{{1}}",
		"13:45:10.123456", "1:02 PM", "24:00:00", "04:05:06 PST", "040506.5", "10:00.5", "2024-01-01 12:00 am"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, typ := range append(propTypes, ArrayOf(Int4), ArrayOf(Text), ArrayOf(Numeric), Name, Char, ArrayOf(Char), TimeOf(0), ArrayOf(Time)) {
			d, err := ParseText(typ, s)
			if err != nil {
				continue
			}
			out := FormatText(d)
			d2, err := ParseText(typ, out)
			if err != nil {
				t.Fatalf("%s: %q parsed, printed as %q, which does not parse: %v", typ, s, out, err)
			}
			if Compare(d, d2) != 0 {
				t.Fatalf("%s: %q parsed, printed as %q, parsed again as a different value", typ, s, out)
			}
			row := PackRow(d)
			back, err := row.Datums([]Type{typ})
			if err != nil || Compare(back[0], d) != 0 {
				t.Fatalf("%s: %q does not survive the row encoding: %v", typ, s, err)
			}
		}
	})
}

// FuzzRowDatums decodes arbitrary bytes as rows of a few type lists. It
// must never panic: a row read from disk or a peer that is corrupt is an
// error, not a crash. A row that decodes must encode to a row that
// decodes to equal values. (The decoder accepts some encodings the
// encoder never writes, such as an integer in more bytes than it needs;
// canonical bytes are the encoder's promise, checked by the row property
// tests, not the decoder's.)
func FuzzRowDatums(f *testing.F) {
	f.Add([]byte{}, uint8(0))
	f.Add([]byte(PackRow(NewInt4(7), NewText("x"))), uint8(1))
	f.Add([]byte(PackRow(Null, NewInt8(-1))), uint8(2))
	f.Add([]byte(PackRow(NewArray(Int4, []Datum{NewInt4(1), Null}))), uint8(5))
	f.Add([]byte(PackRow(NewTime(usPerDay), Null)), uint8(7))
	lists := [][]Type{{Int4}, {Int4, Text}, {Text, Int8}, {Numeric, Float8, Bool}, {Date, Timestamp, Interval}, {ArrayOf(Int4), ArrayOf(Text)}, {Name, Char, Text}, {Time, ArrayOf(Time)}}
	f.Fuzz(func(t *testing.T, b []byte, which uint8) {
		types := lists[int(which)%len(lists)]
		ds, err := Row(b).Datums(types)
		if err != nil {
			return
		}
		again := PackRow(ds...)
		back, err := again.Datums(types)
		if err != nil {
			t.Fatalf("%v: bytes %x decode, but their values re-encoded as %x do not: %v", types, b, []byte(again), err)
		}
		for i := range ds {
			if Compare(ds[i], back[i]) != 0 {
				t.Fatalf("%v: bytes %x: column %d changes through a re-encoding", types, b, i)
			}
		}
	})
}
