package arrange

import (
	"math/rand/v2"
	"slices"
	"testing"

	"freshet/dataflow"
)

// TestArrangementChargesItsDataflow: what an arrangement holds, its trace
// and the batcher staging its input, is charged to its dataflow's memory
// account: at least the bytes of the data it holds.
func TestArrangementChargesItsDataflow(t *testing.T) {
	seed := uint64(11)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	sim, _ := newSim(rng, 2)
	accounts := make([]*dataflow.Account, 2)
	traces := make([]*Trace, 2)
	inputs := make([]*dataflow.InputHandle[Update], 2)
	sim.Build(0, func(b *dataflow.Builder) {
		in, s := dataflow.NewInputHandle[Update](b, "input")
		inputs[b.Index()] = in
		traces[b.Index()] = Arrange(s, "arrange").Trace
		accounts[b.Index()] = b.Account()
	})
	settle(t, sim, func() bool { return !slices.Contains(inputs, nil) })
	charged := func() (acct, trace int64) {
		for i := range accounts {
			acct += accounts[i].Bytes()
			trace += traces[i].SharedBytes()
		}
		return acct, trace
	}
	if a, _ := charged(); a != 0 {
		t.Fatalf("an empty arrangement is charged %d bytes", a)
	}
	for round := range 4 {
		for i := range 2000 {
			key := []byte{byte(round), byte(i >> 8), byte(i)}
			inputs[i%2].Send(uint64(round), Update{Key: key, Val: []byte("value"), Time: uint64(round), Diff: 1})
		}
		for _, in := range inputs {
			in.Advance(uint64(round + 1))
		}
		settle(t, sim, func() bool { return traces[0].Upper() > uint64(round) && traces[1].Upper() > uint64(round) })
		// Every live update's key and val bytes are held, and the
		// account holds at least what the traces do.
		acct, trace := charged()
		if held := int64((round + 1) * 2000 * 8); trace < held || acct < trace {
			t.Fatalf("round %d: account %d bytes, traces %d, data %d", round, acct, trace, held)
		}
	}
}
