package compute

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/apd/v3"

	"freshet/arrange"
	"freshet/expr"
	"freshet/repr"
)

// scaledTypes is the schema of TestAccumulateScaledSums' table: k int4,
// a numeric(20,3), b int8, u numeric.
var scaledTypes = []expr.ColumnType{
	{Type: repr.Int4, Nullable: true},
	{Type: repr.NumericOf(20, 3), Nullable: true},
	{Type: repr.Int8, Nullable: true},
	{Type: repr.Numeric, Nullable: true},
}

// scaledRow draws a row of scaledTypes. The numeric(20,3) values are
// counts of thousandths that fit a word, ones large enough that a few
// of them overflow it (900 trillion is 9 × 10^17 thousandths), and ones
// past 10^18 thousandths, kept as limbs; the int8 values overflow a word
// in twos; the unconstrained ones have places of their own, so that the
// first one's places do not fit those after it.
func scaledRow(rng *rand.Rand) []repr.Datum {
	num := func(t repr.Type, lits []string) repr.Datum {
		d, err := repr.ParseText(t, lits[rng.IntN(len(lits))])
		if err != nil {
			panic(err)
		}
		return d
	}
	row := []repr.Datum{
		repr.NewInt4(int32(rng.IntN(3))),
		num(repr.NumericOf(20, 3), []string{"0", "1.5", "-2.125", "0.001", "99.9", "900000000000000", "-900000000000000.5",
			"99999999999999999.999", "-12345678901234567.891", "NaN"}),
		repr.NewInt8([]int64{0, 3, -9, math.MaxInt64, math.MinInt64, 1 << 62}[rng.IntN(6)]),
		num(repr.Numeric, []string{"1.25", "-0.5", "7", "0.000000001", "123456789.123456789", "1e30", "-3.75"}),
	}
	for c := range row {
		if rng.IntN(5) == 0 {
			row[c] = repr.Null
		}
	}
	return row
}

// TestAccumulateScaledSums checks sums kept as counts of their places
// (partials.addScaled) against the interpreted plan at every time, as
// TestAccumulateMatchesInterpret does: a declared scale, an int8's, and
// an unconstrained numeric's set by its first value; counts that
// overflow and are moved to limbs; values that do not fit and take the
// limbs' way beside the counts of others; rows retracted, so that groups
// return to zero by sums whose limbs came by both ways. Over rows read
// through a Map and from a table's arrangement, sliced and not.
func TestAccumulateScaledSums(t *testing.T) {
	aggs := []expr.Aggregate{
		{Func: expr.Count, Expr: expr.Bool(true)},
		{Func: expr.Sum, Expr: expr.Column{Index: 1}},
		{Func: expr.Sum, Expr: expr.Column{Index: 2}},
		{Func: expr.Sum, Expr: expr.Column{Index: 3}},
	}
	for _, imported := range []bool{false, true} {
		for _, sliced := range []bool{false, true} {
			t.Run(fmt.Sprintf("imported=%v/sliced=%v", imported, sliced), func(t *testing.T) {
				if sliced {
					defer func(c, a int) { contributionsPiece, accumulatePiece = c, a }(contributionsPiece, accumulatePiece)
					contributionsPiece, accumulatePiece = 1, 1
				}
				forSeeds(t, 60, func(t *testing.T, seed uint64) {
					rng := rand.New(rand.NewPCG(seed, 80))
					var keys []expr.Scalar
					if rng.IntN(3) > 0 {
						keys = []expr.Scalar{expr.Column{Index: 0}}
					}
					plan := expr.Reduce{Input: expr.Get{ID: 1, Types: scaledTypes}, GroupKey: keys, Aggregates: aggs}
					if !accumulable(plan) {
						t.Fatalf("plan not accumulable:\n%s", expr.Explain(plan))
					}
					runOracle(t, rng, 1+rng.IntN(2), plan, oracleInput{
						sliced: sliced, imported: imported,
						times: 10, maxWrites: 12, retractOneIn: 2,
						table: func() expr.GlobalID { return 1 },
						row:   func() []repr.Datum { return scaledRow(rng) },
					})
				})
			})
		}
	}
}

// TestPartialsScaledCounts checks counts of places against the sums of
// the values they stand for: over seeded rounds of random counts at
// scales 0, 2 and 18 (near a word's limits, so that they overflow and
// are moved to limbs) and limbs added beside them, the limbs emitted for
// each group and time add up to the exact sum.
func TestPartialsScaledCounts(t *testing.T) {
	kinds := []accumulator{{kind: accRows}, {kind: accDecimal, col: 1}, {kind: accDecimal, col: 2}, {kind: accDecimal, col: 3}}
	scales := []int{-1, 0, 2, 18}
	indexes := [][]byte{{0, 0}, {0, 1}, {0, 2}, {0, 3}}
	forSeeds(t, 100, func(t *testing.T, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 92))
		ps := newPartials(len(kinds))
		for i, s := range scales {
			if s >= 0 {
				ps.setScale(i, s)
			}
		}
		vals := limbVals{}
		type gt struct {
			key  string
			time uint64
			acc  int
		}
		want := map[gt]*big.Rat{}
		add := func(k gt, v *big.Rat) {
			if want[k] == nil {
				want[k] = new(big.Rat)
			}
			want[k].Add(want[k], v)
		}
		base := uint64(0)
		for round := 0; round < 5; round++ {
			for range rng.IntN(200) {
				key := fmt.Sprintf("k%d", rng.IntN(4))
				time := base + uint64(rng.IntN(3))
				g := ps.group([]byte(key), time)
				i := 1 + rng.IntN(3)
				if rng.IntN(4) == 0 {
					// A limb beside the count.
					pos := int16(rng.IntN(5) - 2)
					w := rng.Int64N(2*limbBase-1) - (limbBase - 1)
					ps.addLimb(g, i, pos, w)
					add(gt{key, time, i}, limbValue(pos, w))
					continue
				}
				var w int64
				switch rng.IntN(3) {
				case 0:
					w = rng.Int64N(2001) - 1000
				case 1:
					w = math.MaxInt64 - rng.Int64N(1000)
				default:
					w = math.MinInt64 + rng.Int64N(1000)
				}
				ps.addScaled(g, i, w)
				add(gt{key, time, i}, new(big.Rat).SetFrac(big.NewInt(w), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scales[i])), nil)))
			}
			upper := base + uint64(rng.IntN(4))
			max := ps.updatesBefore(upper)
			res := ps.emitBefore(nil, upper, indexes, vals, kinds)
			if len(res) > max {
				t.Fatalf("round %d: %d updates, updatesBefore said at most %d", round, len(res), max)
			}
			got := map[gt]*big.Rat{}
			for _, u := range res {
				if u.Diff == 0 || u.Time >= upper {
					t.Fatalf("round %d: emitted %+v (upper %d)", round, u, upper)
				}
				i := int(binary.BigEndian.Uint16(u.Val))
				pos := int16(binary.BigEndian.Uint16(u.Val[accIndexLen:]))
				k := gt{string(u.Key), u.Time, i}
				if got[k] == nil {
					got[k] = new(big.Rat)
				}
				got[k].Add(got[k], limbValue(pos, u.Diff))
			}
			for k, w := range want {
				if k.time >= upper {
					continue
				}
				g := got[k]
				if g == nil {
					g = new(big.Rat)
				}
				if g.Cmp(w) != 0 {
					t.Fatalf("round %d, %+v: emitted %s, want %s", round, k, g.FloatString(20), w.FloatString(20))
				}
				delete(got, k)
				delete(want, k)
			}
			for k, g := range got {
				if g.Sign() != 0 {
					t.Fatalf("round %d: emitted %s for %+v, where nothing was held", round, g.FloatString(20), k)
				}
			}
			ps.forget(upper)
			base = upper
		}
	})
}

// limbValue returns w × 10^(9·pos).
func limbValue(pos int16, w int64) *big.Rat {
	v := new(big.Rat).SetInt64(w)
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(9*int64(max(pos, -pos))), nil)
	if pos >= 0 {
		return v.Mul(v, new(big.Rat).SetInt(p))
	}
	return v.Quo(v, new(big.Rat).SetInt(p))
}

// TestAccGroupsLetGoOfCancelledLimbs checks that a group whose
// accumulators are back to zero is let go when its decimal sum's limbs
// cancel in value but not position by position: 0.5 + 0.5 as one count
// of places (a limb of 1 at position 0), then -0.5 twice as the rows'
// own limbs (-5 × 10^8 at position -1, twice).
func TestAccGroupsLetGoOfCancelledLimbs(t *testing.T) {
	plan := accumulation{
		accs:    []accumulator{{kind: accRows}, {kind: accNonNull, col: 1}, {kind: accDecimal, col: 1}},
		outputs: []accOutput{{value: 2, nonNull: 1}},
	}
	gs := newAccGroups(plan)
	vals := limbVals{}
	key := repr.PackRow(repr.NewInt4(1))
	up := func(acc uint16, w int64) arrange.Update {
		return arrange.Update{Key: key, Val: []byte{0, byte(acc)}, Time: 1, Diff: w}
	}
	limb := func(pos int16, w int64) arrange.Update {
		return arrange.Update{Key: key, Val: vals.get(2, pos), Time: 1, Diff: w}
	}
	out := gs.apply([]arrange.Update{up(0, 2), up(1, 2), limb(0, 1)}, nil)
	if len(out) != 1 {
		t.Fatalf("after two rows, %d updates", len(out))
	}
	if got := repr.Row(out[0].Key).String(); got != repr.Row(repr.PackRow(repr.NewInt4(1), repr.NewNumeric(apd.New(1, 0)))).String() {
		t.Fatalf("after two rows, row %s", got)
	}
	gs.apply([]arrange.Update{up(0, -2), up(1, -2), limb(-1, -500_000_000), limb(-1, -500_000_000)}, nil)
	if len(gs.index) != 0 || len(gs.free) != 1 {
		t.Fatalf("after every row is retracted, %d groups indexed and %d free, want 0 and 1", len(gs.index), len(gs.free))
	}
}
