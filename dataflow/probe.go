package dataflow

import (
	"context"
	"sync"
)

// Probe reports the frontier of a stream on one worker. It is safe for use
// from any goroutine. A probe belongs to one dataflow: once that dataflow
// is dropped it says so, rather than reporting a frontier that is merely
// stuck.
type Probe struct {
	mu struct {
		sync.Mutex
		frontier Frontier
		ended    Reason
		// changed is closed and replaced whenever the state changes.
		changed chan struct{}
	}
}

// NewProbe attaches a probe to s. The probe consumes s's records and
// discards them.
func NewProbe[T any](s Stream[T]) *Probe {
	b := s.b
	p := &Probe{}
	p.mu.frontier = Frontier(b.Start())
	p.mu.changed = make(chan struct{})
	ob := b.NewOperator("probe")
	in := NewInput(ob, s, Pipeline[T]())
	ob.Build(func(*Operator, []*Capability) Logic {
		return ScheduleFunc(func() {
			for {
				if _, _, ok := in.Next(); !ok {
					break
				}
			}
			p.set(in.Frontier())
		})
	})
	b.df.handles = append(b.df.handles, p)
	return p
}

func (p *Probe) set(f Frontier) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if f != p.mu.frontier {
		p.mu.frontier = f
		close(p.mu.changed)
		p.mu.changed = make(chan struct{})
	}
}

func (p *Probe) end(r Reason) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mu.ended = r
	if r == Completed {
		p.mu.frontier = Done
	}
	close(p.mu.changed)
	p.mu.changed = make(chan struct{})
}

// Frontier returns the stream's frontier on this worker, or ErrDropped
// (ErrFailed) if the dataflow was dropped (failed) here.
func (p *Probe) Frontier() (Frontier, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mu.frontier, endedError(p.mu.ended)
}

// Passed reports whether the frontier has passed t.
func (p *Probe) Passed(t uint64) (bool, error) {
	f, err := p.Frontier()
	return f.Passed(t), err
}

// WaitPast blocks until the frontier passes t, the dataflow ends without
// completing, or ctx is done.
func (p *Probe) WaitPast(ctx context.Context, t uint64) error {
	for {
		p.mu.Lock()
		f, r, ch := p.mu.frontier, p.mu.ended, p.mu.changed
		p.mu.Unlock()
		if err := endedError(r); err != nil {
			return err
		}
		if f.Passed(t) {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
