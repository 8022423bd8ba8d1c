package repr

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// randomDecimal returns a decimal of 1 to 42 random digits (so some
// coefficients need more than 128 bits), an exponent in [-25, 3] and
// either sign; one in eight has a coefficient of all nines or a power of
// ten, the edges of the word paths' ranges.
func randomDecimal(rng *rand.Rand) *apd.Decimal {
	n := 1 + rng.IntN(42)
	var b strings.Builder
	switch rng.IntN(8) {
	case 0:
		b.WriteString(strings.Repeat("9", n))
	case 1:
		b.WriteString("1" + strings.Repeat("0", n-1))
	default:
		for i := range n {
			d := rng.IntN(10)
			if i == 0 && d == 0 && n > 1 {
				d = 1
			}
			b.WriteByte(byte('0' + d))
		}
	}
	d := new(apd.Decimal)
	if _, ok := d.Coeff.SetString(b.String(), 10); !ok {
		panic(b.String())
	}
	d.Exponent = int32(rng.IntN(29) - 25)
	d.Negative = rng.IntN(2) == 0
	if d.Coeff.Sign() == 0 {
		d.Negative = false
	}
	return d
}

// sameDecimal reports whether a and b have the same coefficient,
// exponent and sign, but for zero's sign, which roundToScale clears:
// the same numeric with the same display scale.
func sameDecimal(a, b *apd.Decimal) bool {
	zero := a.Coeff.Sign() == 0
	return a.Form == b.Form && (zero || a.Negative == b.Negative) && a.Exponent == b.Exponent && a.Coeff.Cmp(&b.Coeff) == 0
}

// TestNumericWordPathsMatchBig: the word-sized fast paths of division,
// rounding, digit counts and select_div_scale's leading digit give what
// the big-integer paths give, wherever they take an operand, on edge
// values and on seeded random decimals; and they do take most of the
// operands that fit.
func TestNumericWordPathsMatchBig(t *testing.T) {
	seed := uint64(20261205)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))

	edges := []string{
		"0", "1", "-1", "0.5", "-0.5", "0.125", "-0.125", "0.005", "-0.004",
		"18446744073709551615", "18446744073709551616", "-18446744073709551616",
		"9999999999999999999", "10000000000000000000",
		"340282366920938463463374607431768211455", "340282366920938463463374607431768211456",
		"99999999999999999999999999999999999999", "100000000000000000000000000000000000000",
		"0.0000000000000000000000000000000000001", "123456789.987654321",
	}
	var ds []*apd.Decimal
	for _, s := range edges {
		d, _, err := apd.NewFromString(s)
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	for range 3000 {
		ds = append(ds, randomDecimal(rng))
	}

	var fastDiv, fastRound, fastLead int
	for i, x := range ds {
		if got, want := numDigits(x), x.NumDigits(); got != want {
			t.Fatalf("numDigits(%s) = %d, want %d", x, got, want)
		}
		if !x.IsZero() {
			w, f, ok := leadingWord(x)
			if ok {
				fastLead++
				if bw, bf := leadingBig(x); w != bw || f != bf {
					t.Fatalf("leadingWord(%s) = %d, %d, want %d, %d", x, w, f, bw, bf)
				}
			}
		}
		for _, scale := range []int32{0, 2, 5, int32(rng.IntN(30))} {
			if x.Exponent >= -scale {
				continue
			}
			if got, ok := roundDownWords(x, scale); ok {
				fastRound++
				if want := roundDownBig(x, scale); !sameDecimal(got, want) {
					t.Fatalf("roundDownWords(%s, %d) = %s, want %s", x, scale, got, want)
				}
			}
		}
		y := ds[(i*7+3)%len(ds)]
		if y.IsZero() {
			continue
		}
		scale := selectDivScale(x, y)
		if got, ok := divRoundWords(x, y, scale); ok {
			fastDiv++
			if want := divRoundBig(x, y, scale); !sameDecimal(got, want) {
				t.Fatalf("divRoundWords(%s, %s, %d) = %s, want %s", x, y, scale, got, want)
			}
		}
	}
	// About half the random coefficients fit in 128 bits; the paths must
	// have taken a good share of those, or this test compares nothing.
	if fastDiv < 400 || fastRound < 1500 || fastLead < 800 {
		t.Fatalf("fast paths taken: division %d, rounding %d, leading digit %d of %d operands", fastDiv, fastRound, fastLead, len(ds))
	}
	t.Logf("fast paths taken: division %d, rounding %d, leading digit %d of %d operands", fastDiv, fastRound, fastLead, len(ds))
}
