package dataflow

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Config configures a Cluster.
type Config struct {
	// Workers is the number of worker goroutines; zero means one per core.
	Workers int
	// Slice is how long one run of an operator should hold its worker:
	// operators that work in fuelled slices (a join, an import's
	// snapshot) also stop when Operator.OutOfTime says their run has
	// taken this long. Zero means DefaultSlice; negative, no limit.
	Slice time.Duration
}

// DefaultSlice is a cluster's Slice unless its Config says otherwise: a
// millisecond, so that a dataflow with much to do costs every other
// dataflow on its worker about that much per step. A write's way to a
// view's read crosses several steps of every worker, each of which may
// spend a slice on the busy dataflow; with 5 ms, a view's freshness beside
// a hydration was 100-150 ms at p99, with 1 ms 26-64 ms, and a
// hydration's CPU time was the same with either.
const DefaultSlice = time.Millisecond

// Cluster runs W workers, one goroutine each, over the in-process
// allocator. It hands out dataflow ids (increasing, never reused) and
// sends build and drop commands to every worker through one ordered
// queue per worker.
type Cluster struct {
	workers []*Worker
	wakes   []chan struct{}
	stop    chan struct{}
	wg      sync.WaitGroup

	// mu orders commands: every worker sees them in the same order.
	mu     sync.Mutex
	nextID ID
	// guard, if set, may refuse a drop (see SetDropGuard).
	guard func(ID) error

	failures *failureQueue
	accounts *accounts
}

// NewCluster starts a cluster.
func NewCluster(cfg Config) *Cluster {
	n := cfg.Workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	c := &Cluster{
		wakes:    make([]chan struct{}, n),
		stop:     make(chan struct{}),
		failures: newFailureQueue(),
		accounts: newAccounts(),
	}
	for i := range c.wakes {
		c.wakes[i] = make(chan struct{}, 1)
	}
	alloc := NewProcessAllocator(n, c.wake)
	for i := 0; i < n; i++ {
		w := NewWorker(i, alloc, c.failures.push)
		w.accounts = c.accounts
		switch {
		case cfg.Slice == 0:
			w.slice = DefaultSlice
		case cfg.Slice > 0:
			w.slice = cfg.Slice
		}
		wake := c.wakes[i]
		w.wake = func() { c.wakeChan(wake) }
		c.workers = append(c.workers, w)
	}
	c.wg.Add(n + 1)
	for i, w := range c.workers {
		go c.run(w, c.wakes[i])
	}
	go func() {
		defer c.wg.Done()
		c.failures.forward(c.stop)
	}()
	return c
}

func (c *Cluster) wake(w int) { c.wakeChan(c.wakes[w]) }

func (c *Cluster) wakeChan(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// run steps a worker until the cluster stops, parking it when a step did
// nothing. A parked worker wakes on a command, a message, an input or an
// activation; the wake channel holds one token, so no wake-up is lost.
func (c *Cluster) run(w *Worker, wake chan struct{}) {
	defer c.wg.Done()
	yielded := time.Now()
	for {
		select {
		case <-c.stop:
			w.shutdown()
			return
		default:
		}
		if w.Step() {
			// A busy worker keeps its processor until the runtime
			// preempts it (10 ms); the goroutines it woke meanwhile (a
			// session whose write it applied, the other worker) wait that
			// long unless it yields.
			if time.Since(yielded) >= yieldEvery {
				runtime.Gosched()
				yielded = time.Now()
			}
			continue
		}
		select {
		case <-wake:
		case <-c.stop:
			w.shutdown()
			return
		}
	}
}

// yieldEvery is how often a busy worker yields its processor.
const yieldEvery = time.Millisecond

// Workers returns the number of workers.
func (c *Cluster) Workers() int { return len(c.workers) }

// Build builds a dataflow on every worker with build, starting at time
// start, and returns its id once every worker has applied the build. build
// runs on each worker's goroutine, concurrently; it must be deterministic
// (see Builder) and must not call back into the cluster.
func (c *Cluster) Build(ctx context.Context, start uint64, build func(*Builder)) (ID, error) {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	done := c.broadcastLocked(Command{ID: id, Start: start, Build: build})
	c.mu.Unlock()
	return id, c.await(ctx, done)
}

// Memory returns the bytes dataflow id's operators hold now, summed over
// its workers (see Account); 0 for a dataflow that has ended everywhere.
func (c *Cluster) Memory(id ID) int64 { return c.accounts.bytes(id) }

// MemoryByDataflow returns Memory for every dataflow built and not yet
// ended on every worker.
func (c *Cluster) MemoryByDataflow() map[ID]int64 { return c.accounts.all() }

// Built returns when each dataflow not yet ended everywhere was built
// (on its first worker).
func (c *Cluster) Built() map[ID]time.Time { return c.accounts.builtAt() }

// Reading returns the records dataflow id has read of its imports, the
// records they have to read, and how many imports are still catching up
// to its start (see Account); zeros for a dataflow that has ended
// everywhere.
func (c *Cluster) Reading(id ID) (read, toRead, catchingUp int64) { return c.accounts.reading(id) }

// Exec runs f on every worker's goroutine, between steps, and returns
// once it has finished on all of them. f reports whether it is finished;
// a worker runs it again after its next step until it is, so f can wait
// for progress (a peek waits for a trace to pass its read time). f must
// not block and must give up by itself (return true) when ctx ends.
func (c *Cluster) Exec(ctx context.Context, f func(worker int) bool) error {
	c.mu.Lock()
	done := c.broadcastLocked(Command{Exec: f})
	c.mu.Unlock()
	return c.await(ctx, done)
}

// SetDropGuard installs a check that Drop consults first: a non-nil error
// refuses the drop. The arrangement registry uses it so that a dataflow
// whose exports other dataflows still import is never torn down under
// them. The guard runs under the cluster's command lock.
func (c *Cluster) SetDropGuard(guard func(ID) error) {
	c.mu.Lock()
	c.guard = guard
	c.mu.Unlock()
}

// Drop drops dataflow id on every worker and returns once every worker has
// applied the drop. Dropping an unknown or ended dataflow does nothing. A
// drop the guard refuses returns its error and changes nothing.
func (c *Cluster) Drop(ctx context.Context, id ID) error {
	c.mu.Lock()
	if id == 0 || id > c.nextID {
		// Never handed out: nothing to drop, and a tombstone would
		// swallow the build that later gets this id.
		c.mu.Unlock()
		return nil
	}
	if c.guard != nil {
		if err := c.guard(id); err != nil {
			c.mu.Unlock()
			return err
		}
	}
	done := c.broadcastLocked(Command{ID: id})
	c.mu.Unlock()
	return c.await(ctx, done)
}

// InjectFault fails dataflow id on worker as a panic with value in one of
// its operators would: the dataflow ends there and the failure is
// reported on Failures. It is for tests of the failure path above the
// runtime; an ended or unknown dataflow is left alone.
func (c *Cluster) InjectFault(ctx context.Context, id ID, worker int, value any) error {
	if value == nil {
		value = "injected fault"
	}
	c.mu.Lock()
	done := c.broadcastLocked(Command{ID: id, Fault: value, FaultWorker: worker})
	c.mu.Unlock()
	return c.await(ctx, done)
}

// broadcastLocked queues cmd for every worker and returns a channel closed
// once all have applied it.
func (c *Cluster) broadcastLocked(cmd Command) chan struct{} {
	done := make(chan struct{})
	var remaining atomic.Int64
	remaining.Store(int64(len(c.workers)))
	cmd.Done = func() {
		if remaining.Add(-1) == 0 {
			close(done)
		}
	}
	for _, w := range c.workers {
		w.Enqueue(cmd)
	}
	return done
}

func (c *Cluster) await(ctx context.Context, done chan struct{}) error {
	select {
	case <-done:
		return nil
	case <-c.stop:
		return ErrClusterClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Failures returns the channel on which dataflow failures are reported.
// The caller should drop each failed dataflow everywhere. Failures are
// queued without bound, so a slow reader never stalls a worker.
func (c *Cluster) Failures() <-chan Failure { return c.failures.out }

// Stats returns the counters summed over workers.
func (c *Cluster) Stats() Stats {
	var s Stats
	for _, w := range c.workers {
		s = s.Add(w.Stats())
	}
	return s
}

// Close stops every worker, dropping the dataflows still running, and
// waits for the goroutines to exit.
func (c *Cluster) Close() {
	close(c.stop)
	c.wg.Wait()
}

// failureQueue is an unbounded queue between workers, which must never
// block, and the reader of Failures.
type failureQueue struct {
	mu     sync.Mutex
	queue  []Failure
	signal chan struct{}
	out    chan Failure
}

func newFailureQueue() *failureQueue {
	return &failureQueue{signal: make(chan struct{}, 1), out: make(chan Failure)}
}

func (q *failureQueue) push(f Failure) {
	q.mu.Lock()
	q.queue = append(q.queue, f)
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

func (q *failureQueue) forward(stop chan struct{}) {
	for {
		q.mu.Lock()
		var next *Failure
		if len(q.queue) > 0 {
			f := q.queue[0]
			q.queue = q.queue[1:]
			next = &f
		}
		q.mu.Unlock()
		if next == nil {
			select {
			case <-q.signal:
				continue
			case <-stop:
				return
			}
		}
		select {
		case q.out <- *next:
		case <-stop:
			return
		}
	}
}
