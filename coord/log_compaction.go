package coord

import (
	"context"
	"sync"
)

// A table's log on disk holds every update ever written to it, which a
// restart replays: a table whose rows are updated or deleted again and
// again would grow its log, and its restart, with its history rather
// than its rows. The engine therefore compacts a table's log once it
// holds both at least logCompactionMin updates and more than
// logCompactionRatio times the table's rows (the net diff of its
// updates): storage rewrites the log
// through a time every read has passed as one update per row
// (storage.CompactTable), in the background, one compaction a table at
// a time. The log then holds about as many updates as the table has
// rows, and a table that only grows, whose log is its rows already, is
// never rewritten. A compaction reads the whole log and runs beside the
// foreground's work: the ratio keeps its cost, a read of the log and a
// write of the rows, under two operations for each update written since
// the last one, and the log's history under three times the table. The
// counts are kept per table from the restart's
// replay and from every durable write; they steer when to compact, and
// a wrong count costs only a compaction too early or too late.

// logCompactionMin is the fewest updates a table's log holds before it
// is compacted: below it, a rewrite costs more than the log.
const logCompactionMin = 1 << 16

// logCompactionRatio is how many times the table's rows a log holds
// before it is compacted.
const logCompactionRatio = 4

// tableLog is what the engine knows of a table's log on disk. Guarded by
// the engine's mu.
type tableLog struct {
	// updates is the number of updates in the log, and rows their net
	// diff: the table's rows.
	updates, rows int64
	// compacting is set while a compaction of the log runs.
	compacting bool
}

// logCompactor runs the engine's log compactions.
type logCompactor struct {
	// min is the fewest updates a log holds before it is compacted:
	// logCompactionMin, or Config's for tests.
	min int64
	// logs are the tables' logs, by table id; guarded by the engine's mu.
	logs map[uint64]*tableLog
	// running counts the compactions in flight, which Close waits for
	// once it has set stopped (under the engine's mu), after which none
	// starts.
	running sync.WaitGroup
	stopped bool
}

// stopLogCompactions makes sure no compaction starts any more, and waits
// for those in flight.
func (e *Engine) stopLogCompactions() {
	e.mu.Lock()
	e.compactor.stopped = true
	e.mu.Unlock()
	e.compactor.running.Wait()
}

// logOfLocked returns table id's log record, making it if need be.
func (e *Engine) logOfLocked(id uint64) *tableLog {
	l := e.compactor.logs[id]
	if l == nil {
		l = &tableLog{}
		e.compactor.logs[id] = l
	}
	return l
}

// noteLogLocked counts writes made durable in table logs, and starts a
// compaction of each log that has outgrown its table.
func (e *Engine) noteLogLocked(writes writeSet) {
	var last *tableLog
	var lastID uint64
	for w := range writes.all() {
		if w.Diff == 0 {
			continue
		}
		if last == nil || w.Table != lastID {
			if last != nil {
				e.maybeCompactLogLocked(lastID, last)
			}
			lastID, last = w.Table, e.logOfLocked(w.Table)
		}
		last.updates++
		last.rows += w.Diff
	}
	if last != nil {
		e.maybeCompactLogLocked(lastID, last)
	}
}

// resetLogLocked records that table id's log holds updates updates
// whose net diff is rows: after its replay at startup, or ALTER TABLE's
// rewrite. A compaction that is running keeps the record it started
// with.
func (e *Engine) resetLogLocked(id uint64, updates, rows int64) {
	e.compactor.logs[id] = &tableLog{updates: updates, rows: rows}
}

// startLogCompactionsLocked starts a compaction of every log that has
// outgrown its table (after the restart's replay).
func (e *Engine) startLogCompactionsLocked() {
	for id, l := range e.compactor.logs {
		e.maybeCompactLogLocked(id, l)
	}
}

// maybeCompactLogLocked starts a compaction of table id's log l if it
// holds at least the minimum of updates and more than logCompactionRatio
// times the table's rows, and none is running.
func (e *Engine) maybeCompactLogLocked(id uint64, l *tableLog) {
	if e.compactor.stopped || l.compacting || l.updates < e.compactor.min || l.updates <= logCompactionRatio*max(l.rows, 0) {
		return
	}
	// Every read is at or past the compaction frontier, and nothing
	// after a restart reads before it: the log's history up to it can
	// collapse. Updates at or before it that are still on their way to
	// disk are kept as they are (CompactTable deletes what it read).
	since := e.compacted
	if since == 0 {
		return
	}
	l.compacting = true
	start := l.updates
	e.compactor.running.Add(1)
	go func() {
		defer e.compactor.running.Done()
		kept, err := e.store.CompactTable(context.Background(), id, since)
		e.mu.Lock()
		defer e.mu.Unlock()
		l.compacting = false
		if err != nil {
			e.log.Warn("compacting a table's log failed", "table", id, "since", since, "error", err)
			return
		}
		// The updates written since the compaction began are still there.
		l.updates = int64(kept) + l.updates - start
		e.log.Debug("compacted a table's log", "table", id, "since", since, "updates", l.updates, "rows", l.rows)
	}()
}
