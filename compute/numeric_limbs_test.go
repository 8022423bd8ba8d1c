package compute

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"freshet/repr"
)

// TestNumericLimbsFromEncoding checks repr.EachNumericLimb, which reads
// a numeric's limbs from its encoding, against eachLimb on the decoded
// value, for seeded random numerics of either sign, many scales and
// magnitudes (limb boundaries, exponents past the one-byte range), zero,
// NaN and the infinities, each as a column between others in a row.
func TestNumericLimbsFromEncoding(t *testing.T) {
	forSeeds(t, 50, func(t *testing.T, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 93))
		for range 200 {
			v := randomNumeric(rng)
			d, err := repr.ParseText(repr.Numeric, v)
			if err != nil {
				t.Fatalf("%s: %v", v, err)
			}
			row := repr.PackRow(repr.NewInt4(7), d, repr.NewText("x"))
			raw := rawColumns(row, 3, nil)[1]
			var want []string
			eachLimb(d, func(pos int16, w int64) { want = append(want, fmt.Sprintf("%d:%d", pos, w)) })
			var got []string
			form, err := repr.EachNumericLimb(raw, func(pos int, w int64) { got = append(got, fmt.Sprintf("%d:%d", pos, w)) })
			if err != nil {
				t.Fatalf("%s: %v", v, err)
			}
			switch form {
			case repr.NumericNaN:
				got = append(got, fmt.Sprintf("%d:1", limbNaN))
			case repr.NumericPosInf:
				got = append(got, fmt.Sprintf("%d:1", limbPosInf))
			case repr.NumericNegInf:
				got = append(got, fmt.Sprintf("%d:1", limbNegInf))
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: limbs from the encoding %v, from the value %v", v, got, want)
			}
		}
	})
}

// randomNumeric draws the text of a numeric.
func randomNumeric(rng *rand.Rand) string {
	switch rng.IntN(30) {
	case 0:
		return "NaN"
	case 1:
		return "Infinity"
	case 2:
		return "-Infinity"
	case 3:
		return "0"
	}
	var b strings.Builder
	if rng.IntN(2) == 0 {
		b.WriteByte('-')
	}
	for range 1 + rng.IntN(30) {
		b.WriteByte(byte('0' + rng.IntN(10)))
	}
	if rng.IntN(2) == 0 {
		b.WriteByte('.')
		for range 1 + rng.IntN(30) {
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
	}
	if rng.IntN(4) == 0 {
		fmt.Fprintf(&b, "e%d", rng.IntN(400)-200)
	}
	return b.String()
}
