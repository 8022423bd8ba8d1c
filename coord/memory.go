package coord

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"time"

	"freshet/sqlerr"
)

// memoryCheckEvery is how often the governor reads the heap. A query that
// allocates as fast as a worker can go adds some hundreds of megabytes a
// second, so a check every 50 ms stops it within a small fraction of any
// sensible limit.
const memoryCheckEvery = 50 * time.Millisecond

// memoryCollectEvery bounds how often the governor forces a collection to
// learn whether the heap over the limit is live data or garbage not yet
// collected, before it holds writes back.
const memoryCollectEvery = time.Second

// writeMemoryWait is how long a write waits for the heap to come back
// under the limit before it is refused with 53200. Tests shorten it.
var writeMemoryWait = 5 * time.Second

// liveHeap reads the heap's object bytes: live objects and garbage not
// yet swept.
func liveHeap() int64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	return int64(sample[0].Value.Uint64())
}

// governMemory keeps the server under its memory limit. Whenever the heap
// is over the limit it cancels, with 53200, the transient work in flight
// (a query's read, or the hydration of a CREATE MATERIALIZED VIEW or
// CREATE INDEX) whose dataflow's account holds the most (see
// dataflow.Account), the newest among equals: a query or a create that
// would take the server down fails instead, its dataflow is dropped, and
// every other session and view carries on. Installed views and indexes
// are never touched. One is cancelled at a time; the next is chosen only
// once the last has ended and the heap is still over.
//
// For a while after a cancelled statement ends, the governor collects
// before it chooses again, so the garbage it left is not taken for live
// data and another statement cancelled for it.
//
// When nothing is left to cancel, what is over the limit is installed
// state (or garbage): the governor collects to tell which, and if the
// heap is still over, writes wait (awaitMemory) until it is not. A write
// is refused before it takes a timestamp, so it never half-applies.
func (e *Engine) governMemory(limit int64, heap func() int64) {
	tick := time.NewTicker(memoryCheckEvery)
	defer tick.Stop()
	var victim *inflightRead
	var collected time.Time
	// ended is when the last cancelled statement ended: for a while after,
	// what it held may still be counted as heap until a collection runs.
	var ended time.Time
	for {
		select {
		case <-tick.C:
		case <-e.closed:
			return
		}
		if victim != nil {
			select {
			case <-victim.done:
				victim, ended = nil, time.Now()
			default:
				continue
			}
		}
		h := heap()
		if h > limit && time.Since(ended) < memoryCollectEvery {
			// Collect before choosing another victim: the heap over the
			// limit may be only the last victim's garbage, and cancelling
			// the next statement for it would be wrong.
			runtime.GC()
			collected = time.Now()
			h = heap()
		}
		if h <= limit {
			e.memoryOver.Store(false)
			continue
		}
		var held int64
		victim, held = e.heaviestRead()
		if victim != nil {
			e.log.Warn("memory over the limit: cancelling a statement", "heap_bytes", h, "limit_bytes", limit,
				"statement", victim.what, "dataflow_bytes", held)
			victim.cancel(outOfMemory(victim.what, h, limit))
			continue
		}
		if e.memoryOver.Load() || time.Since(collected) < memoryCollectEvery {
			continue
		}
		runtime.GC()
		collected = time.Now()
		if h = heap(); h > limit {
			e.log.Warn("memory over the limit with nothing to cancel: writes wait", "heap_bytes", h, "limit_bytes", limit)
			e.memoryOver.Store(true)
		}
	}
}

// heaviestRead returns the read in flight whose dataflow holds the most,
// the newest among equals, and what it holds.
func (e *Engine) heaviestRead() (*inflightRead, int64) {
	held := e.cluster.MemoryByDataflow()
	e.readsMu.Lock()
	defer e.readsMu.Unlock()
	var victim *inflightRead
	var most int64
	for r := range e.reads {
		n := held[r.dataflow]
		if victim == nil || n > most || (n == most && r.seq > victim.seq) {
			victim, most = r, n
		}
	}
	return victim, most
}

// outOfMemory is the error of a statement the governor cancels, naming it.
func outOfMemory(what string, heap, limit int64) error {
	err := sqlerr.New(sqlerr.OutOfMemory, "out of memory")
	if what == "" {
		return err.WithDetail("The query was canceled because the server's memory (%s) passed its limit of %s (--memory-limit).", mib(heap), mib(limit))
	}
	return err.WithDetail("The statement %q was canceled because the server's memory (%s) passed its limit of %s (--memory-limit).", what, mib(heap), mib(limit))
}

// awaitMemory holds a write back while the heap is over the limit with
// nothing left to cancel, until it is under again, ctx ends (57014), or
// writeMemoryWait passes (53200). Nothing of the write has happened yet.
func (e *Engine) awaitMemory(ctx context.Context) error {
	if !e.memoryOver.Load() {
		return nil
	}
	deadline := time.NewTimer(writeMemoryWait)
	defer deadline.Stop()
	tick := time.NewTicker(memoryCheckEvery / 5)
	defer tick.Stop()
	for e.memoryOver.Load() {
		select {
		case <-tick.C:
		case <-ctx.Done():
			return readError(ctx, ctx.Err())
		case <-deadline.C:
			return sqlerr.New(sqlerr.OutOfMemory, "out of memory").
				WithDetail("The write was refused, and nothing of it was applied: the server's memory stayed over its limit (--memory-limit) for %s.", writeMemoryWait).
				WithHint("The installed materialized views and indexes hold it: drop one, or restart the server with a higher --memory-limit.")
		}
	}
	return nil
}

// statementKey is the context key of the text of the statement a context
// runs, for errors that name it.
type statementKey struct{}

// maxNamedStatement bounds how much of a statement's text an error names.
const maxNamedStatement = 200

// withStatementText returns ctx carrying sql as its statement's text.
func withStatementText(ctx context.Context, sql string) context.Context {
	return context.WithValue(ctx, statementKey{}, statementPrefix(sql))
}

// statementPrefix is sql cut after its first maxNamedStatement
// characters, with an ellipsis where it was cut.
func statementPrefix(sql string) string {
	n := 0
	for i := range sql {
		if n == maxNamedStatement {
			return sql[:i] + "…"
		}
		n++
	}
	return sql
}

// statementText returns the text withStatementText put in ctx, or "".
func statementText(ctx context.Context) string {
	s, _ := ctx.Value(statementKey{}).(string)
	return s
}

// mib formats a byte count in MiB.
func mib(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }
