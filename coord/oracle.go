package coord

import "context"

// oracle hands out timestamps: strictly increasing milliseconds, at least
// the clock, and always below a bound that storage holds durably, so that
// after a crash every new timestamp exceeds every one handed out before.
type oracle struct {
	clock func() uint64
	// last is the time of the last write handed out: reads at last see
	// every acknowledged write.
	last uint64
	// upper is the durable bound on handed-out times.
	upper   uint64
	persist func(ctx context.Context, upTo uint64) error
}

// allocationAhead is how far past a new time the durable bound is moved,
// so that most writes do not pay for it.
const allocationAhead = 10_000

// next returns the time of a new write.
func (o *oracle) next(ctx context.Context) (uint64, error) {
	t := max(o.clock(), o.last+1)
	if t >= o.upper {
		if err := o.persist(ctx, t+allocationAhead); err != nil {
			return 0, err
		}
		o.upper = t + allocationAhead
	}
	o.last = t
	return t, nil
}

// read returns the time a read sees: the last write's.
func (o *oracle) read() uint64 { return o.last }
