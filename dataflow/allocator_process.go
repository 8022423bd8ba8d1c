package dataflow

import "sync"

// ProcessAllocator is the in-process Allocator: one mailbox per worker,
// delivered as soon as it is sent. It preserves FIFO per sender and
// channel because a sender appends under the mailbox lock in send order.
type ProcessAllocator struct {
	wake  func(w int)
	boxes []mailbox
}

type mailbox struct {
	mu struct {
		sync.Mutex
		msgs []Message
	}
}

// NewProcessAllocator returns an allocator for workers workers that calls
// wake(w) after queueing a message for worker w, so that a parked worker
// steps again. wake may be nil.
func NewProcessAllocator(workers int, wake func(w int)) *ProcessAllocator {
	return &ProcessAllocator{wake: wake, boxes: make([]mailbox, workers)}
}

// Workers implements Allocator.
func (a *ProcessAllocator) Workers() int { return len(a.boxes) }

// Send implements Allocator.
func (a *ProcessAllocator) Send(m Message) {
	b := &a.boxes[m.To]
	b.mu.Lock()
	b.mu.msgs = append(b.mu.msgs, m)
	b.mu.Unlock()
	if a.wake != nil {
		a.wake(m.To)
	}
}

// Receive implements Allocator.
func (a *ProcessAllocator) Receive(w int, buf []Message) []Message {
	b := &a.boxes[w]
	b.mu.Lock()
	buf = append(buf, b.mu.msgs...)
	clear(b.mu.msgs)
	b.mu.msgs = b.mu.msgs[:0]
	b.mu.Unlock()
	return buf
}
