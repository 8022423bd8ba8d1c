package coord

import (
	"fmt"
	"runtime/metrics"
	"time"

	"freshet/sqlerr"
)

// memoryCheckEvery is how often the governor reads the heap. A query that
// allocates as fast as a worker can go adds some hundreds of megabytes a
// second, so a check every 50 ms stops it within a small fraction of any
// sensible limit.
const memoryCheckEvery = 50 * time.Millisecond

// governMemory keeps the server under its memory limit by cancelling
// transient reads, newest first, with 53200, whenever the live heap is
// over the limit: a query that would take the server down fails instead,
// and every other session and every view carries on. Installed views and
// indexes are never touched. One read is cancelled at a time; the next is
// chosen only once the last has ended and the heap is still over.
//
// The accounting is the Go heap as a whole, not each dataflow's state:
// the newest read is the usual culprit (the others were admitted while
// the heap was under the limit), and when it is not, cancelling it still
// frees memory and the governor goes on to the next.
func (e *Engine) governMemory(limit int64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	tick := time.NewTicker(memoryCheckEvery)
	defer tick.Stop()
	var victim *inflightRead
	for {
		select {
		case <-tick.C:
		case <-e.closed:
			return
		}
		if victim != nil {
			select {
			case <-victim.done:
				victim = nil
			default:
				continue
			}
		}
		metrics.Read(sample)
		heap := int64(sample[0].Value.Uint64())
		if heap <= limit {
			continue
		}
		e.readsMu.Lock()
		for r := range e.reads {
			if victim == nil || r.seq > victim.seq {
				victim = r
			}
		}
		e.readsMu.Unlock()
		if victim == nil {
			continue
		}
		e.log.Warn("memory over the limit: cancelling the newest query", "heap_bytes", heap, "limit_bytes", limit)
		victim.cancel(sqlerr.New(sqlerr.OutOfMemory, "out of memory").
			WithDetail("The query was canceled because the server's memory (%s) passed its limit of %s (--memory-limit).", mib(heap), mib(limit)))
	}
}

// mib formats a byte count in MiB.
func mib(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }
