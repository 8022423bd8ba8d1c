package chaos

import mathrand "math/rand/v2"

// newMathRand returns the generator the filesystem's crash clone wants
// (its own, from the crash seed), seeded from the test's own.
func newMathRand(seed int64) *mathrand.Rand {
	return mathrand.New(mathrand.NewPCG(uint64(seed), 0))
}
