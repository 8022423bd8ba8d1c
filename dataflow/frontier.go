package dataflow

import (
	"math"
	"strconv"
)

// Frontier is the least time that may still appear at a location, or Done
// when no time ever will. Times are totally ordered, so a frontier is a
// single time rather than an antichain.
//
// The zero value is the frontier at time 0: nothing has completed yet.
type Frontier uint64

// Done is the empty frontier: every time is complete. The time
// math.MaxUint64 is reserved for it and is never a valid time.
const Done Frontier = math.MaxUint64

// MaxTime is the largest valid time.
const MaxTime uint64 = math.MaxUint64 - 1

// Passed reports whether f has passed t: no update at t can arrive any more.
func (f Frontier) Passed(t uint64) bool { return uint64(f) > t }

// IsDone reports whether f is the empty frontier.
func (f Frontier) IsDone() bool { return f == Done }

// Time returns the frontier's time; it is meaningless for Done.
func (f Frontier) Time() uint64 { return uint64(f) }

func (f Frontier) String() string {
	if f == Done {
		return "done"
	}
	return strconv.FormatUint(uint64(f), 10)
}

func minFrontier(a, b Frontier) Frontier {
	if a < b {
		return a
	}
	return b
}
