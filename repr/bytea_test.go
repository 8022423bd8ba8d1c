package repr

import (
	"bytes"
	"testing"

	"freshet/sqlerr"
)

// TestEncodeDecodeBytea checks encode() and decode() against PostgreSQL
// 15's answers.
func TestEncodeDecodeBytea(t *testing.T) {
	long := string(bytes.Repeat([]byte{0xab}, 100))
	for _, tc := range []struct {
		bytes, format, text string
	}{
		{"\x00\x01\\A\xff", "escape", `\000` + "\x01" + `\\A\377`},
		{"\x00\x01\x5c\x41\xff\x7f\x0a", "base64", "AAFcQf9/Cg=="},
		{"\x00", "hex", "00"},
		{"\x01\xab", "HEX", "01ab"},
		{"", "base64", ""},
		{"abc", "escape", "abc"},
		{long, "base64", "q6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6ur\n" +
			"q6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6urqw=="},
	} {
		got, err := EncodeBytea(tc.bytes, tc.format)
		if err != nil || got != tc.text {
			t.Errorf("encode(%q, %s) = %q, %v; want %q", tc.bytes, tc.format, got, err, tc.text)
		}
		back, err := DecodeBytea(tc.text, tc.format)
		if err != nil || back != tc.bytes {
			t.Errorf("decode(%q, %s) = %q, %v; want %q", tc.text, tc.format, back, err, tc.bytes)
		}
	}
	for _, tc := range []struct {
		text, format, want string
	}{
		{"YW Jj", "base64", "abc"},
		{"YWJj\n", "base64", "abc"},
		{"YQ==", "base64", "a"},
		{`a\\b\101`, "escape", `a\bA`},
		{" 01 ab", "hex", "\x01\xab"},
	} {
		got, err := DecodeBytea(tc.text, tc.format)
		if err != nil || got != tc.want {
			t.Errorf("decode(%q, %s) = %q, %v; want %q", tc.text, tc.format, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		text, format, code, msg string
	}{
		{"YWJ", "base64", "22023", "invalid base64 end sequence"},
		{"YQ=", "base64", "22023", "invalid base64 end sequence"},
		{"YW*j", "base64", "22023", `invalid symbol "*" found while decoding base64 sequence`},
		{`YW\j`, "base64", "22023", `invalid symbol "\" found while decoding base64 sequence`},
		{"YWJj=", "base64", "22023", `unexpected "=" while decoding base64 sequence`},
		{`a\q`, "escape", "22P02", "invalid input syntax for type bytea"},
		{"1g", "hex", "22023", `invalid hexadecimal digit: "g"`},
		{"123", "hex", "22023", "invalid hexadecimal data: odd number of digits"},
		{"abc", "foo", "22023", `unrecognized encoding: "foo"`},
	} {
		_, err := DecodeBytea(tc.text, tc.format)
		if sqlerr.Code(err) != tc.code || err == nil || err.Error() != tc.msg {
			t.Errorf("decode(%q, %s): %v (%s), want %s %q", tc.text, tc.format, err, sqlerr.Code(err), tc.code, tc.msg)
		}
	}
	if _, err := EncodeBytea("a", "foo"); sqlerr.Code(err) != "22023" || err.Error() != `unrecognized encoding: "foo"` {
		t.Errorf("encode('a', 'foo'): %v", err)
	}
}

// TestUUIDByteaOrder checks the order of a few values that PostgreSQL
// orders so (SELECT ... ORDER BY): uuids by their bytes, bytea bytewise
// with a prefix first, and both after NULL-free values and before NULL.
func TestUUIDByteaOrder(t *testing.T) {
	for _, tc := range []struct {
		typ    Type
		sorted []string
	}{
		{UUID, []string{"00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000001",
			"00000000-0000-0000-0000-0000000000ff", "00000000-0000-0000-0001-000000000000",
			"7fffffff-ffff-ffff-ffff-ffffffffffff", "80000000-0000-0000-0000-000000000000",
			"ffffffff-ffff-ffff-ffff-ffffffffffff"}},
		{Bytea, []string{`\x`, `\x00`, `\x0000`, `\x0001`, `\x01`, `\x0102`, `\x010203`, `\x02`, `\x7f`, `\x80`, `\xff`, `\xff00`}},
	} {
		var prev Row
		for i, s := range tc.sorted {
			d, err := ParseText(tc.typ, s)
			if err != nil {
				t.Fatal(err)
			}
			row := PackRow(d)
			if i > 0 && bytes.Compare(prev, row) >= 0 {
				t.Errorf("%s: %s does not sort before %s", tc.typ, tc.sorted[i-1], s)
			}
			if null := PackRow(Null); bytes.Compare(row, null) >= 0 {
				t.Errorf("%s: %s does not sort before NULL", tc.typ, s)
			}
			back, err := row.Datums([]Type{tc.typ})
			if err != nil || FormatText(back[0]) != s {
				t.Errorf("%s: %s reads back as %v, %v", tc.typ, s, back, err)
			}
			prev = row
		}
	}
}

// TestUUIDByteaArrays checks the text form of arrays of uuid and bytea,
// whose elements PostgreSQL quotes when they hold a backslash.
func TestUUIDByteaArrays(t *testing.T) {
	for _, tc := range []struct {
		typ     Type
		in, out string
	}{
		{ArrayOf(Bytea), `{"\\x0102",NULL,"\\x"}`, `{"\\x0102",NULL,"\\x"}`},
		{ArrayOf(Bytea), `{abc}`, `{"\\x616263"}`},
		{ArrayOf(UUID), `{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,NULL}`, `{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,NULL}`},
	} {
		d, err := ParseText(tc.typ, tc.in)
		if err != nil {
			t.Errorf("ParseText(%s, %q): %v", tc.typ, tc.in, err)
			continue
		}
		if got := FormatText(d); got != tc.out {
			t.Errorf("ParseText(%s, %q) prints %q, want %q", tc.typ, tc.in, got, tc.out)
		}
		row := PackRow(d)
		back, err := row.Datums([]Type{tc.typ})
		if err != nil || FormatText(back[0]) != tc.out {
			t.Errorf("%s %q: row trip gives %v, %v", tc.typ, tc.in, back, err)
		}
	}
}
