package repr

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"testing"
	"unsafe"

	"github.com/cockroachdb/apd/v3"
)

// heldAsDecimal returns a numeric datum of d held behind the decimal, as
// every numeric was before small ones were held in words.
func heldAsDecimal(d *apd.Decimal) Datum {
	return Datum{head: head{kind: KindNumeric, valid: true}, p: unsafe.Pointer(d)}
}

// randomSmallish returns a decimal whose coefficient is near int64's
// range as often as well inside it, with an exponent of -24 to 3: most fit a
// datum's words, and many of their sums, products and quotients do not.
func randomSmallish(rng *rand.Rand) *apd.Decimal {
	var c uint64
	switch rng.IntN(6) {
	case 0:
		c = rng.Uint64N(1000)
	case 1:
		c = 1<<63 - 1 - rng.Uint64N(1000)
	case 2:
		c = 1<<63 + rng.Uint64N(1000) // does not fit
	case 3:
		c = wordPow10[rng.IntN(19)] - rng.Uint64N(2)
	default:
		c = rng.Uint64() >> rng.IntN(64)
	}
	d := new(apd.Decimal)
	d.Coeff.SetUint64(c)
	d.Exponent = int32(rng.IntN(28)) - 24
	d.Negative = rng.IntN(2) == 0 && c != 0
	return d
}

// sameDatum reports whether two results agree: both errors with the same
// message, or the same text, key and display scale.
func sameDatum(a Datum, aerr error, b Datum, berr error) bool {
	if aerr != nil || berr != nil {
		return aerr != nil && berr != nil && aerr.Error() == berr.Error()
	}
	if a.IsNull() || b.IsNull() {
		return a.IsNull() == b.IsNull()
	}
	as, aok := a.NumericScale()
	bs, bok := b.NumericScale()
	return FormatText(a) == FormatText(b) && string(AppendDatum(nil, a)) == string(AppendDatum(nil, b)) && as == bs && aok == bok
}

// TestSmallNumericsMatchBig: a numeric held in words gives what the same
// value held as a decimal gives, in arithmetic, negation, comparison,
// rounding, casts, text and keys, and read back from its key at several
// types; and the word paths are taken for most operands, or this test
// compares nothing.
func TestSmallNumericsMatchBig(t *testing.T) {
	seed := uint64(20261206)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))

	var ds []*apd.Decimal
	for _, s := range []string{"0", "0.00", "1", "-1", "0.5", "-0.005", "9223372036854775807", "-9223372036854775807",
		"9223372036854775808", "922337203685477580.7", "0.000000000000000001", "99999999.99", "-99999999.99"} {
		d, _, err := apd.NewFromString(s)
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	for range 2000 {
		ds = append(ds, randomSmallish(rng))
	}
	types := []Type{Numeric, NumericOf(10, 2), NumericOf(38, 0), NumericOf(20, 6), NumericOf(5, 5), Numeric.WithDisplayScale(4)}

	var small, wordArith int
	for i, x := range ds {
		xs, xb := NewNumeric(x), heldAsDecimal(x)
		if _, _, ok := xs.SmallNumeric(); !ok {
			continue
		}
		small++
		if !sameDatum(xs, nil, xb, nil) {
			t.Fatalf("%s: held in words prints %s, key %x; as a decimal %s, key %x", x, FormatText(xs), AppendDatum(nil, xs), FormatText(xb), AppendDatum(nil, xb))
		}
		got, gerr := Neg(xs)
		want, werr := Neg(xb)
		if !sameDatum(got, gerr, want, werr) {
			t.Fatalf("-(%s) = %v, %v; want %v, %v", x, got, gerr, want, werr)
		}
		for _, to := range append(types, Int4, Int8) {
			got, gerr := CastIn(xs, to, nil)
			want, werr := CastIn(xb, to, nil)
			if to.Kind() != KindNumeric {
				if gerr != nil || werr != nil {
					if gerr == nil || werr == nil || gerr.Error() != werr.Error() {
						t.Fatalf("%s::%s: %v, %v; want %v, %v", x, to, got, gerr, want, werr)
					}
				} else if got.Int() != want.Int() {
					t.Fatalf("%s::%s = %d, want %d", x, to, got.Int(), want.Int())
				}
				continue
			}
			if !sameDatum(got, gerr, want, werr) {
				t.Fatalf("%s::%s = %v, %v; want %v, %v", x, to, got, gerr, want, werr)
			}
		}
		for _, scale := range []int64{0, 1, 2, 7, 20} {
			if got, want := RoundNumeric(xs, scale), RoundNumeric(xb, scale); !sameDatum(got, nil, want, nil) {
				t.Fatalf("round(%s, %d) = %v, want %v", x, scale, got, want)
			}
		}
		key := AppendDatum(nil, xb)
		for _, typ := range types {
			got, _, gerr := decodeDatum(key, typ)
			wantDec, werr := decodeNumericRow(key[0], key[1:], typ)
			var want Datum
			if werr == nil {
				want = heldAsDecimal(wantDec)
			}
			if !sameDatum(got, gerr, want, werr) {
				t.Fatalf("%s read back as %s: %v, %v; want %v, %v", x, typ, got, gerr, want, werr)
			}
		}

		y := ds[(i*7+3)%len(ds)]
		ys, yb := NewNumeric(y), heldAsDecimal(y)
		if _, _, ok := ys.SmallNumeric(); !ok {
			continue
		}
		if got, want := Compare(xs, ys), Compare(xb, yb); got != want {
			t.Fatalf("compare(%s, %s) = %d, want %d", x, y, got, want)
		}
		for _, op := range []ArithOp{OpAdd, OpSub, OpMul, OpDiv, OpMod} {
			got, gerr := arith(op, xs, ys)
			want, werr := arith(op, xb, yb)
			if !sameDatum(got, gerr, want, werr) {
				t.Fatalf("%s %s %s = %v, %v; want %v, %v", x, opNames[op], y, got, gerr, want, werr)
			}
			if _, ok, _ := smallArith(op, xs, ys); ok {
				wordArith++
			}
		}
	}
	if small < 1200 || wordArith < 3000 {
		t.Fatalf("held in words: %d of %d operands; word arithmetic: %d operations", small, len(ds), wordArith)
	}
	t.Logf("held in words: %d of %d operands; word arithmetic: %d operations", small, len(ds), wordArith)
}

// TestSmallNumericEdges: the values at the edges of what words hold are
// held as decimals, and the results of small operands that leave the
// words' range are right.
func TestSmallNumericEdges(t *testing.T) {
	num := func(s string) Datum {
		d, err := ParseTextIn(Numeric, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, c := range []struct {
		text  string
		small bool
	}{
		{"9223372036854775807", true},
		{"-9223372036854775807", true},
		{"-9223372036854775808", false}, // its magnitude has no int64
		{"9223372036854775808", false},
		{"1e3", true},
		{"NaN", false},
		{"Infinity", false},
		{"0.000", true},
	} {
		d := num(c.text)
		if _, _, ok := d.SmallNumeric(); ok != c.small {
			t.Errorf("%s held in words: %v, want %v", c.text, ok, c.small)
		}
	}
	for _, c := range []struct {
		op   ArithOp
		x, y string
		want string
	}{
		{OpAdd, "9223372036854775807", "1", "9223372036854775808"},
		{OpSub, "-9223372036854775807", "1", "-9223372036854775808"},
		{OpMul, "4294967296", "4294967296", "18446744073709551616"},
		{OpAdd, "0.1", "922337203685477580", "922337203685477580.1"},
		{OpAdd, "0.10", "-0.1", "0.00"},
		{OpMul, "-0.5", "0", "0.0"},
		{OpDiv, "1", "3", "0.33333333333333333333"},
		{OpDiv, "-2.50", "0.5", "-5.0000000000000000"},
		{OpDiv, "9223372036854775807", "0.0001", "92233720368547758070000.0000"},
		{OpMod, "-7.5", "2", "-1.5"},
	} {
		got, err := arith(c.op, num(c.x), num(c.y))
		if err != nil || FormatText(got) != c.want {
			t.Errorf("%s %s %s = %v, %v; want %s", c.x, opNames[c.op], c.y, got, err, c.want)
		}
	}
	for _, op := range []ArithOp{OpDiv, OpMod} {
		if _, err := arith(op, num("1.5"), num("0.00")); !errors.Is(err, errDivisionByZero) {
			t.Errorf("1.5 %s 0.00: %v, want division by zero", opNames[op], err)
		}
	}
	if _, err := CastIn(num("123456789.005"), NumericOf(10, 2), nil); err == nil || err.Error() != "numeric field overflow" {
		t.Errorf("123456789.005::numeric(10,2): %v, want numeric field overflow", err)
	}
	if got, err := CastIn(num("99999999.994"), NumericOf(10, 2), nil); err != nil || FormatText(got) != "99999999.99" {
		t.Errorf("99999999.994::numeric(10,2) = %v, %v; want 99999999.99", got, err)
	}
	if got, err := CastIn(NewInt8(-42), NumericOf(5, 1), nil); err != nil || FormatText(got) != "-42.0" {
		t.Errorf("-42::numeric(5,1) = %v, %v; want -42.0", got, err)
	}
	if c, s, ok := num("-12.50").SmallNumeric(); !ok || c != -1250 || s != 2 {
		t.Errorf("SmallNumeric(-12.50) = %d, %d, %v", c, s, ok)
	}
	if got := strconv.Quote(FormatText(num("-0.005"))); got != `"-0.005"` {
		t.Errorf("-0.005 prints %s", got)
	}
}
