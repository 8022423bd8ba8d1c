package arrange

import (
	"fmt"
	"math"
)

// Done is the empty frontier: no time will ever appear again. The time
// math.MaxUint64 is reserved for it and is never the time of an update.
const Done uint64 = math.MaxUint64

// MaxTime is the largest valid time of an update.
const MaxTime uint64 = math.MaxUint64 - 1

// Description states which updates a batch holds: exactly those with
// Lower <= time < Upper, with times possibly advanced to Since.
//
// The zero value describes the empty range [0, 0), uncompacted.
type Description struct {
	// Lower is the least time the batch may hold.
	Lower uint64
	// Upper is the first time past the batch. Upper may be Done.
	// Invariant: Lower <= Upper.
	Upper uint64
	// Since is the frontier the batch's times were advanced to. When
	// Since > Lower, accumulations are exact only at times >= Since.
	Since uint64
}

// Contains reports whether t lies in [d.Lower, d.Upper).
func (d Description) Contains(t uint64) bool {
	return d.Lower <= t && t < d.Upper
}

// Empty reports whether the described range holds no time at all.
func (d Description) Empty() bool { return d.Lower >= d.Upper }

// advanceTo returns the time every update's time is raised to when a batch
// described by d is compacted to since: since itself, clamped into the
// batch so that no time leaves [Lower, Upper). Clamping to Upper-1 keeps
// accumulations at q >= since exact, because q >= since > Upper-1 sees
// every update of the batch either way.
func (d Description) advanceTo(since uint64) uint64 {
	if d.Empty() {
		return d.Lower
	}
	return min(since, d.Upper-1)
}

// String formats d as "[lower, upper) since s", with Done as "done".
func (d Description) String() string {
	return fmt.Sprintf("[%s, %s) since %s", timeString(d.Lower), timeString(d.Upper), timeString(d.Since))
}

func timeString(t uint64) string {
	if t == Done {
		return "done"
	}
	return fmt.Sprint(t)
}
