package dataflow

import "fmt"

// Capability permits its operator to send on one output at times at or
// after Time. It exists only on its worker and only while its dataflow
// runs; every method must be called on the worker's goroutine, from the
// operator's Schedule.
//
// Each capability counts +1 at (output, time) from its creation to its
// release. Release exactly once: a capability that is never released
// stalls every frontier downstream of its output, and releasing twice
// would cancel a count that another worker holds, so a double release
// panics, which fails the dataflow (a bug is contained to its dataflow).
type Capability struct {
	op   *Operator
	out  int
	time uint64
	// slot is the capability's index in op.caps while it is live, or -1.
	slot int
}

// Time returns the capability's time.
func (c *Capability) Time() uint64 { return c.time }

// Output returns the index of the output the capability is for.
func (c *Capability) Output() int { return c.out }

// Live reports whether the capability has not been released.
func (c *Capability) Live() bool { return c.slot >= 0 }

// Downgrade moves the capability to the later time t.
func (c *Capability) Downgrade(t uint64) {
	c.mustBeLive("downgrade")
	if t < c.time {
		panic(assertionFailedf("downgrade of capability at %d to earlier time %d", c.time, t))
	}
	if t == c.time {
		return
	}
	checkTime(t)
	loc := c.op.outputs[c.out].loc
	c.op.df.record(loc, t, +1)
	c.op.df.record(loc, c.time, -1)
	c.time = t
}

// Delayed returns a new capability for the same output at t, which must
// not be before c's time.
func (c *Capability) Delayed(t uint64) *Capability {
	c.mustBeLive("clone")
	if t < c.time {
		panic(assertionFailedf("capability at %d delayed to earlier time %d", c.time, t))
	}
	return c.op.mint(c.out, t)
}

// Release gives the capability up.
func (c *Capability) Release() {
	c.mustBeLive("release")
	c.op.df.record(c.op.outputs[c.out].loc, c.time, -1)
	c.op.forget(c)
}

func (c *Capability) mustBeLive(what string) {
	if c.slot < 0 {
		panic(assertionFailedf("%s of released capability at %d on %s output %d", what, c.time, c.op.name, c.out))
	}
}

func (c *Capability) String() string {
	return fmt.Sprintf("%s.out%d@%d", c.op.name, c.out, c.time)
}

func checkTime(t uint64) {
	if t > MaxTime {
		panic(assertionFailedf("time %d is reserved for the empty frontier", t))
	}
}
