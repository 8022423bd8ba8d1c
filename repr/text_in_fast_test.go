package repr

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"freshet/sqlerr"
)

// fastTypes are the types AppendTextFast reads, and some it must leave
// to the general path.
var fastTypes = []Type{Int2, Int4, Int8, Numeric, NumericOf(10, 2), NumericOf(5, 0),
	NumericOf(3, 3), NumericOf(18, 6), NumericOf(2, 4), NumericOf(20, 2), NumericOf(4, -2), Float8, Text}

// fastEdgeCases are inputs at the edges of the fast path's forms and of
// the types' ranges.
var fastEdgeCases = []string{
	"", "-", "+", ".", "-.", "0", "-0", "+0", "00", "007", "1", "-1", "+1", " 1", "1 ", " -1 ", "1.", ".5", "-.5", "+.5",
	"1.5", "-1.5", "0.005", "-0.005", "0.004", "-0.004", "0.00", "-0.00", "99999999.99", "99999999.994", "99999999.995",
	"-99999999.995", "100000000", "12345678.9", "1e3", "1E-2", "NaN", "nan", "Infinity", "-inf", `\N`, "1_000", "0x10",
	"1..2", "1.2.3", "--1", "+-1", "12a", "١",
	"32767", "32768", "-32768", "-32769", "2147483647", "2147483648", "-2147483648", "-2147483649",
	"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
	"999999999999999999", "-999999999999999999", "1000000000000000000", "0.999999999999999999",
	"999999999999999999.5", "99999999999999999.9", "0.00000000000000001", "000000000000000000001",
	"0.995", "0.9995", "-0.995", "9.995", "99.995", "0.0001", "12.345", "-12.345", "5000", "-5000", "1000",
}

// TestAppendTextFast checks that AppendTextFast, where it answers,
// appends what the general path (ParseTextIn, then AppendDatum) does,
// on edge cases and on seeded random numbers, and that it answers for
// the plain forms bulk loads send.
func TestAppendTextFast(t *testing.T) {
	check := func(t *testing.T, typ Type, s string) bool {
		t.Helper()
		prefix := []byte{0xAA}
		got, ok := AppendTextFast(prefix, typ, []byte(s))
		if !ok {
			if !bytes.Equal(got, prefix) {
				t.Fatalf("%s %q: declined but appended %x", typ, s, got[1:])
			}
			return false
		}
		d, err := ParseTextIn(typ, s, nil)
		if err != nil {
			t.Fatalf("%s %q: fast path read %x, general path fails: %v", typ, s, got[1:], err)
		}
		if want := AppendDatum(prefix, d); !bytes.Equal(got, want) {
			t.Fatalf("%s %q: fast path %x, general path %x (%s)", typ, s, got[1:], want[1:], d)
		}
		return true
	}
	for _, typ := range fastTypes {
		for _, s := range fastEdgeCases {
			check(t, typ, s)
		}
	}
	for _, c := range []struct {
		typ Type
		s   string
	}{{Int4, "123"}, {Int4, "-2147483648"}, {Int8, "-42"}, {NumericOf(10, 2), "12.3"}, {NumericOf(10, 2), "-0.5"},
		{Numeric, "1.50"}, {NumericOf(10, 2), "1.005"}} {
		if !check(t, c.typ, c.s) {
			t.Errorf("%s %q: the fast path declined a plain form", c.typ, c.s)
		}
	}
	forSeeds(t, 20, func(t *testing.T, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 0x7e57))
		fast := 0
		for range 5000 {
			typ := fastTypes[rng.IntN(len(fastTypes))]
			if check(t, typ, randomNumberText(rng)) {
				fast++
			}
		}
		// Most inputs are plain: a fast path that declines them all
		// would pass the comparison and help nobody.
		if fast < 1000 {
			t.Errorf("the fast path answered %d of 5000 inputs", fast)
		}
	})
}

// randomNumberText returns a number's text as a COPY field may hold it:
// mostly plain, sometimes with a sign, a point, leading zeros, an
// exponent, white space or a stray character.
func randomNumberText(rng *rand.Rand) string {
	var b strings.Builder
	switch rng.IntN(6) {
	case 0:
		b.WriteByte('-')
	case 1:
		b.WriteByte('+')
	}
	digits := func(n int) {
		for range n {
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
	}
	if rng.IntN(8) == 0 {
		b.WriteString("000")
	}
	digits(rng.IntN(21))
	if rng.IntN(2) == 0 {
		b.WriteByte('.')
		if rng.IntN(4) == 0 {
			// Digits that round up through every place.
			b.WriteString(strings.Repeat("9", rng.IntN(6)))
		}
		digits(rng.IntN(8))
	}
	switch rng.IntN(20) {
	case 0:
		b.WriteString("e2")
	case 1:
		b.WriteByte(' ')
	case 2:
		b.WriteByte('x')
	case 3:
		b.WriteByte('.')
	}
	return b.String()
}

// TestPlainSmallDecimal: parseNumeric, which reads plain text in words
// (plainDecimal, smallTypmod), gives what the decimal path gives
// (parseDecimal, applyNumericTypmod, NewNumeric): the same value, display
// scale and key, or the same error, on edge cases and seeded random
// numbers, for every numeric type of fastTypes.
func TestPlainSmallDecimal(t *testing.T) {
	check := func(t *testing.T, typ Type, s string) bool {
		t.Helper()
		got, gerr := parseNumeric(typ, s)
		d, werr := parseDecimal(s)
		if werr == nil {
			d, werr = applyNumericTypmod(d, typ)
		}
		switch {
		case (gerr == nil) != (werr == nil):
			t.Fatalf("%s %q: %v (%v), the decimal path %v", typ, s, got, gerr, werr)
		case gerr != nil:
			g, w := sqlerr.From(gerr), sqlerr.From(werr)
			if g.Code != w.Code || g.Message != w.Message || g.Detail != w.Detail {
				t.Fatalf("%s %q: %s %s (%s), the decimal path %s %s (%s)", typ, s, g.Code, g.Message, g.Detail, w.Code, w.Message, w.Detail)
			}
		default:
			want := NewNumeric(d)
			_, _, gs := got.SmallNumeric()
			_, _, ws := want.SmallNumeric()
			if got.String() != want.String() || gs != ws || !bytes.Equal(AppendDatum(nil, got), AppendDatum(nil, want)) {
				t.Fatalf("%s %q: %v, the decimal path %v", typ, s, got, want)
			}
		}
		_, _, _, plain := plainDecimal(s)
		return plain
	}
	var types []Type
	for _, typ := range fastTypes {
		if typ.Kind() == KindNumeric {
			types = append(types, typ)
		}
	}
	for _, typ := range types {
		for _, s := range fastEdgeCases {
			check(t, typ, s)
		}
	}
	forSeeds(t, 10, func(t *testing.T, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 0x5ca1e))
		plain := 0
		for range 5000 {
			if check(t, types[rng.IntN(len(types))], randomNumberText(rng)) {
				plain++
			}
		}
		if plain < 1000 {
			t.Errorf("plainDecimal read %d of 5000 inputs", plain)
		}
	})
}
