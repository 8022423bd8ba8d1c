package pgwire

import (
	"context"
	"sync"
)

// inboxLimit is the number of bytes of client messages that may wait in
// an inbox before its reader stops reading. The reader reads ahead so
// that it notices a client that goes away while a query runs; the limit
// bounds what a client can make the server hold by pipelining. A client
// that pipelines more than this behind a long query and then vanishes is
// noticed only when the queue drains.
const inboxLimit = 1 << 20

// inbox is the queue of frames between a connection's reader and its
// message loop, bounded in bytes.
type inbox struct {
	// ready is signaled when a frame or the end of the stream arrives;
	// space when a frame is taken. Both have capacity 1.
	ready chan struct{}
	space chan struct{}

	mu struct {
		sync.Mutex
		frames []frame
		// bytes is the size of frames. Invariant: below inboxLimit, or
		// frames holds a single frame.
		bytes int
		// err is why reading ended (io.EOF for a clean end), once closed.
		err    error
		closed bool
	}
}

func newInbox() *inbox {
	return &inbox{ready: make(chan struct{}, 1), space: make(chan struct{}, 1)}
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// put queues f, waiting while the inbox is full. It returns false, with f
// not queued, if done is closed first.
func (q *inbox) put(f frame, done <-chan struct{}) bool {
	size := len(f.body) + 5
	for {
		q.mu.Lock()
		if q.mu.bytes+size <= inboxLimit || len(q.mu.frames) == 0 {
			q.mu.frames = append(q.mu.frames, f)
			q.mu.bytes += size
			q.mu.Unlock()
			signal(q.ready)
			return true
		}
		q.mu.Unlock()
		select {
		case <-q.space:
		case <-done:
			return false
		}
	}
}

// close ends the stream: once the queued frames are taken, get returns
// err.
func (q *inbox) close(err error) {
	q.mu.Lock()
	q.mu.err, q.mu.closed = err, true
	q.mu.Unlock()
	signal(q.ready)
}

// get returns the next frame. It returns the error of close once the
// queue is empty and closed, and ctx's error if ctx is done first.
func (q *inbox) get(ctx context.Context) (frame, error) {
	for {
		q.mu.Lock()
		if len(q.mu.frames) > 0 {
			f := q.mu.frames[0]
			q.mu.frames[0] = frame{}
			q.mu.frames = q.mu.frames[1:]
			q.mu.bytes -= len(f.body) + 5
			q.mu.Unlock()
			signal(q.space)
			return f, nil
		}
		if q.mu.closed {
			err := q.mu.err
			q.mu.Unlock()
			// Other waiters, if any, must see the end too.
			signal(q.ready)
			return frame{}, err
		}
		q.mu.Unlock()
		select {
		case <-q.ready:
		case <-ctx.Done():
			return frame{}, ctx.Err()
		}
	}
}
