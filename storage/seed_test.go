package storage

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

var seedFlag = flag.Uint64("seed", 0, "run the seeded tests with this seed only")

// forSeeds runs f once for each seed 1..n, or only for -seed when given,
// each as a subtest that logs the command replaying it.
func forSeeds(t *testing.T, n int, f func(t *testing.T, seed uint64, rng *rand.Rand)) {
	t.Helper()
	seeds := []uint64{*seedFlag}
	if *seedFlag == 0 {
		seeds = seeds[:0]
		for i := 1; i <= n; i++ {
			seeds = append(seeds, uint64(i))
		}
	}
	test := t.Name()
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Logf("seed %d; replay: go test ./storage -run '^%s$' -seed=%d -v", seed, strings.ReplaceAll(test, "/", "$/^"), seed)
			f(t, seed, rand.New(rand.NewPCG(seed, 0x5eed)))
		})
	}
}

// waitFor polls cond until it holds, and fails the test if it does not
// within a generous deadline. It waits for another goroutine to reach a
// state; it asserts nothing about speed.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(200 * time.Microsecond)
	}
}
