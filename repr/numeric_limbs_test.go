package repr

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// TestEachNumericLimbRejectsCorruptBytes feeds EachNumericLimb seeded
// random bytes behind each numeric tag: it returns an error or a form,
// never panics, and gives only limbs below 10^9 in size.
func TestEachNumericLimbRejectsCorruptBytes(t *testing.T) {
	const seed = 17
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 5))
	tags := []byte{tagNumNeg, tagNumPos, tagNumZero, tagNumNaN, tagNumPosInf, tagNumNegInf, 0x00, 0x99}
	for range 20000 {
		b := []byte{tags[rng.IntN(len(tags))]}
		for range rng.IntN(12) {
			b = append(b, byte(rng.IntN(256)))
		}
		_, _ = EachNumericLimb(b, func(pos int, w int64) {
			if w <= -numericLimbBase || w >= numericLimbBase || w == 0 {
				t.Fatalf("% x: limb %d at %d", b, w, pos)
			}
		})
	}
	if _, err := EachNumericLimb(nil, func(int, int64) {}); err == nil {
		t.Fatal("no error for no bytes")
	}
}

// TestScaledNumeric checks ScaledNumeric against apd over seeded random
// finite values (digits at every place, both signs, up to and past 18
// digits) at scales 0 to 18: it gives value × 10^scale when that is an
// integer below 10^18 in magnitude, and false otherwise; and false for
// NaN, the infinities and corrupt bytes.
func TestScaledNumeric(t *testing.T) {
	const seed = 20261207
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	limit := apd.New(1, 18)
	var fits, refused int
	for range 20000 {
		d := randomSmallish(rng)
		b := PackRow(NewNumeric(d))
		scale := rng.IntN(19)
		got, ok := ScaledNumeric(b, scale)
		var want apd.Decimal
		want.Set(d)
		want.Exponent += int32(scale)
		var whole apd.Decimal
		if _, err := apd.BaseContext.RoundToIntegralExact(&whole, &want); err != nil {
			t.Fatal(err)
		}
		var abs apd.Decimal
		abs.Abs(&want)
		wantOK := whole.Cmp(&want) == 0 && abs.Cmp(limit) < 0
		if ok != wantOK {
			t.Fatalf("%s at scale %d: %d, %v; want ok %v", d, scale, got, ok, wantOK)
		}
		if !ok {
			refused++
			continue
		}
		fits++
		if g := apd.New(got, 0); g.Cmp(&want) != 0 {
			t.Fatalf("%s at scale %d: %d, want %s", d, scale, got, want.String())
		}
		// At its own places, a value that fits at some scale is whole.
		places, ok := NumericPlaces(b)
		if !ok || places > scale {
			t.Fatalf("%s: %d places, %v; it fits at scale %d", d, places, ok, scale)
		}
		if _, ok := ScaledNumeric(b, places); !ok {
			t.Fatalf("%s: not whole at its %d places", d, places)
		}
		if _, ok := ScaledNumeric(b, places-1); ok && !d.IsZero() {
			t.Fatalf("%s: whole at %d places, one fewer than its own", d, places-1)
		}
	}
	if fits < 2000 || refused < 2000 {
		t.Fatalf("%d values fit and %d did not: the values do not cover both", fits, refused)
	}
	for _, s := range []string{"NaN", "Infinity", "-Infinity"} {
		d, _, err := apd.NewFromString(s)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := ScaledNumeric(PackRow(NewNumeric(d)), 2); ok {
			t.Fatalf("%s: %d, true", s, got)
		}
	}
	for _, b := range [][]byte{nil, {tagNumPos}, {tagNumPos, expBias + 1, 0x02, 0}, {tagNumNeg, ^byte(expBias + 1), ^byte(0x02), 0xff}} {
		if got, ok := ScaledNumeric(b, 2); ok {
			t.Fatalf("% x: %d, true", b, got)
		}
	}
}

// BenchmarkEachNumericLimb reads the limbs of amounts as the benchmark's
// orders hold them (0.00 to 99.90), as a sum over a table's rows does.
func BenchmarkEachNumericLimb(b *testing.B) {
	var encs [][]byte
	for i := range 1000 {
		d, err := ParseText(Numeric, fmt.Sprintf("%d.%02d", i%100, i%97))
		if err != nil {
			b.Fatal(err)
		}
		encs = append(encs, PackRow(d))
	}
	var sum int64
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := EachNumericLimb(encs[i%len(encs)], func(pos int, w int64) { sum += w }); err != nil {
			b.Fatal(err)
		}
	}
}

// TestInt64Overflow checks AddInt64 and MulInt64 at int64's edges,
// against math/big.
func TestInt64Overflow(t *testing.T) {
	edges := []int64{0, 1, -1, 2, -2, 3, math.MaxInt64, math.MinInt64, math.MaxInt64 / 2, math.MinInt64 / 2, 1 << 32, -(1 << 32), 3037000499, -3037000500}
	fits := func(z *big.Int) bool { return z.IsInt64() }
	for _, x := range edges {
		for _, y := range edges {
			bx, by := big.NewInt(x), big.NewInt(y)
			if r, ok := AddInt64(x, y); ok != fits(new(big.Int).Add(bx, by)) || ok && r != x+y {
				t.Errorf("AddInt64(%d, %d) = %d, %v", x, y, r, ok)
			}
			want := new(big.Int).Mul(bx, by)
			if r, ok := MulInt64(x, y); ok != fits(want) || ok && r != want.Int64() {
				t.Errorf("MulInt64(%d, %d) = %d, %v", x, y, r, ok)
			}
		}
	}
}
