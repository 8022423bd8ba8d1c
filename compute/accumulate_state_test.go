package compute

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"freshet/arrange"
)

// TestAccGroupsSizeKeptAsItChanges applies seeded random contributions,
// counts and limbs that come and go, to an accumulation's groups, and
// checks after each time that the size they report, kept as they change,
// is the one a pass over every group gives.
func TestAccGroupsSizeKeptAsItChanges(t *testing.T) {
	plan := accumulation{accs: []accumulator{{kind: accRows}, {kind: accDecimal, col: 1}}, outputs: []accOutput{{value: 0, nonNull: -1}}}
	forSeeds(t, 30, func(t *testing.T, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 44))
		gs := newAccGroups(plan)
		for tm := range uint64(40) {
			var us []arrange.Update
			for range rng.IntN(20) {
				key := []byte(fmt.Sprint("g", rng.IntN(6)))
				val := binary.BigEndian.AppendUint16(nil, uint16(rng.IntN(2)))
				if val[1] == 1 {
					val = binary.BigEndian.AppendUint16(val, uint16(rng.IntN(3)))
				}
				us = append(us, arrange.Update{Key: key, Val: val, Time: tm, Diff: int64(rng.IntN(5) - 2)})
			}
			gs.apply(us, nil)
			want := int64(len(gs.keys))*96 + int64(cap(gs.values))*8 + gs.bytes
			for _, ls := range gs.limbs {
				want += int64(cap(ls)) * 16
			}
			if got := gs.size(); got != want {
				t.Fatalf("time %d: size %d, from every group %d", tm, got, want)
			}
		}
	})
}
