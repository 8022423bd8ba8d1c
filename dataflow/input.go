package dataflow

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// InputHandle feeds records into a dataflow on one worker from outside
// it. It is safe for use from any goroutine. The input holds a capability
// at its current time, so nothing downstream completes that time until
// the handle advances past it or closes.
type InputHandle[T any] struct {
	w *Worker
	// df and op name the input operator, for the activations that tell
	// the worker it has work. The handle keeps no pointer into the
	// dataflow, which belongs to the worker's goroutine.
	df ID
	op int
	// notified reports whether the input operator has been activated
	// since it last took the queued ops: one activation is outstanding,
	// so a push need not queue another (see push).
	notified atomic.Bool
	mu       struct {
		sync.Mutex
		ops    []inputOp[T]
		time   uint64
		closed bool
		// ended is set when the dataflow ended here; the handle is inert.
		ended Reason
	}
}

type inputOp[T any] struct {
	kind inputOpKind
	time uint64
	recs []T
}

type inputOpKind uint8

const (
	opSend inputOpKind = iota
	opAdvance
	opClose
)

// NewInputHandle adds an input operator named name to the dataflow and
// returns its handle and the stream of records sent through it. The input
// starts at the dataflow's start time.
func NewInputHandle[T any](b *Builder, name string) (*InputHandle[T], Stream[T]) {
	ob := b.NewOperator(name)
	out, s := NewOutput[T](ob)
	h := &InputHandle[T]{w: b.df.w, df: b.df.id, op: ob.op.index}
	h.mu.time = b.Start()
	ob.Build(func(op *Operator, caps []*Capability) Logic {
		return &inputLogic[T]{h: h, out: out, cap: caps[0]}
	})
	b.df.handles = append(b.df.handles, h)
	return h, s
}

// Time returns the input's current time: the earliest it may still send at.
func (h *InputHandle[T]) Time() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.mu.time
}

// Send queues records at time t, which must not be before the input's
// current time. Ownership of recs passes to the dataflow.
func (h *InputHandle[T]) Send(t uint64, recs ...T) error {
	if len(recs) == 0 {
		return nil
	}
	return h.push(inputOp[T]{kind: opSend, time: t, recs: recs})
}

// Advance moves the input's current time to t: no record at an earlier
// time will be sent, so downstream frontiers may pass them.
func (h *InputHandle[T]) Advance(t uint64) error {
	return h.push(inputOp[T]{kind: opAdvance, time: t})
}

// Close ends the input: no record will ever be sent again.
func (h *InputHandle[T]) Close() error {
	return h.push(inputOp[T]{kind: opClose})
}

func (h *InputHandle[T]) push(op inputOp[T]) error {
	h.mu.Lock()
	if err := endedError(h.mu.ended); err != nil {
		h.mu.Unlock()
		return err
	}
	if h.mu.closed {
		h.mu.Unlock()
		return ErrClosed
	}
	switch op.kind {
	case opSend, opAdvance:
		if op.time < h.mu.time {
			h.mu.Unlock()
			return fmt.Errorf("%w: %d < %d", ErrTimePassed, op.time, h.mu.time)
		}
		if op.time > MaxTime {
			h.mu.Unlock()
			return fmt.Errorf("time %d is reserved", op.time)
		}
		if op.kind == opAdvance {
			h.mu.time = op.time
		}
	case opClose:
		h.mu.closed = true
	}
	h.mu.ops = append(h.mu.ops, op)
	h.mu.Unlock()
	// Tell the worker which operator has work, through its remote queue,
	// once per batch of pushes. No notification is lost: the operator
	// clears notified before it takes the ops (inputLogic.Schedule), so a
	// push whose ops it did not take finds notified clear and queues a
	// fresh activation; a push that finds it set has an activation ahead
	// of it that the operator has not yet answered by taking the ops.
	if !h.notified.Swap(true) {
		h.w.remoteActivate(h.df, h.op)
	}
	return nil
}

func (h *InputHandle[T]) end(r Reason) {
	h.mu.Lock()
	h.mu.ended = r
	h.mu.ops = nil
	h.mu.Unlock()
}

type inputLogic[T any] struct {
	h   *InputHandle[T]
	out *Output[T]
	// cap is nil once the input closed.
	cap *Capability
}

func (l *inputLogic[T]) Schedule() {
	l.h.notified.Store(false)
	l.h.mu.Lock()
	ops := l.h.mu.ops
	l.h.mu.ops = nil
	l.h.mu.Unlock()
	for _, op := range ops {
		if l.cap == nil {
			break
		}
		switch op.kind {
		case opSend:
			l.out.GiveSlice(op.time, op.recs)
		case opAdvance:
			l.cap.Downgrade(op.time)
		case opClose:
			l.cap.Release()
			l.cap = nil
		}
	}
}

func (l *inputLogic[T]) Shutdown(Reason) {}
