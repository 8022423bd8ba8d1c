package repr

import (
	"fmt"
	"math/rand/v2"
	"testing"
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
