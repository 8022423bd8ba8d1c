//go:build race

package chaos

// raceEnabled reports whether the race detector is on; the default run is
// then shorter.
const raceEnabled = true
