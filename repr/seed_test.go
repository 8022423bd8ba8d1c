package repr

import (
	"flag"
	"fmt"
	"testing"
)

var seedFlag = flag.Uint64("seed", 0, "run seeded tests with this seed only")

// forSeeds runs f once per seed, 1..n, or only for -seed when it is given.
// Each subtest logs the one-line command that replays it.
func forSeeds(t *testing.T, n int, f func(t *testing.T, seed uint64)) {
	t.Helper()
	seeds := make([]uint64, 0, n)
	if *seedFlag != 0 {
		seeds = append(seeds, *seedFlag)
	} else {
		for i := 1; i <= n; i++ {
			seeds = append(seeds, uint64(i))
		}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Logf("seed %d; replay: go test ./repr -run '^%s$' -seed=%d", seed, t.Name()[:len(t.Name())-len(fmt.Sprintf("/seed=%d", seed))], seed)
			f(t, seed)
		})
	}
}
