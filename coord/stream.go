package coord

import (
	"context"
	"errors"
	"time"

	"freshet/arrange"
	"freshet/compute"
	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// errStopRows, returned by a StreamRows emit function, ends the read
// early and successfully: the caller has all the rows it wants (LIMIT).
var errStopRows = errors.New("coord: no more rows wanted")

// StreamRows answers a read that only maps, filters and projects one
// arrangement (compute.PeekOf) without collecting its result: it takes a
// cursor over each worker's shard of the arrangement at ts, on that
// worker, and then walks the cursors here, passing each row to emit as it
// is read. The rows reach the client as they are read, in memory that
// does not grow with the result, and a LIMIT stops the walk. Rows come in
// the order of each worker's shard, one shard after another.
//
// The cursors see batches that are immutable once built, so they are
// walked outside the workers while the workers go on; a lease at ts on
// each shard keeps compaction from passing ts until the walk ends. An
// error row of the arrangement at ts fails the read before any row is
// passed; an error evaluating a row fails it where it arises, after the
// rows before it, as in PostgreSQL.
//
// It reports false, doing nothing, for a plan of another shape; the
// caller then uses Read.
func (e *Engine) StreamRows(ctx context.Context, plan expr.Relation, ts uint64, emit func([]repr.Datum) error) (bool, error) {
	plan = expr.ReplaceNow(plan, repr.NewTimestampTZ(repr.TimestampFromTime(time.UnixMilli(int64(ts)))))
	p, ok := compute.PeekOf(plan)
	if !ok || e.noPeek {
		return false, nil
	}
	deps := dependencies(plan)
	var src, own peekSource
	e.mu.Lock()
	err := e.checkReadShapesLocked(plan, ts)
	if err == nil {
		e.catchUpLocked(deps)
		src, own = e.peekSourceLocked(p, ts)
	}
	e.mu.Unlock()
	if err != nil {
		return true, err
	}
	err = e.streamPeekVia(ctx, p, src, own, deps, ts, emit)
	if sourceGone(err) {
		return true, e.awaitFailure(ctx, deps, err)
	}
	return true, err
}

// streamPeekVia streams peek p from src, or from own, the arrangement
// the peek gets, if src is an index that cannot be read (fallBack; no
// row was emitted then).
func (e *Engine) streamPeekVia(ctx context.Context, p compute.Peek, src, own peekSource, deps []uint64, ts uint64, emit func([]repr.Datum) error) error {
	err := e.streamPeek(ctx, p, src, deps, ts, emit)
	if fallBack(src, err) {
		err = e.streamPeek(ctx, p, own, deps, ts, emit)
	}
	return err
}

func (e *Engine) streamPeek(ctx context.Context, p compute.Peek, src peekSource, deps []uint64, ts uint64, emit func([]repr.Datum) error) error {
	// Until the cursors are taken the read is in flight (a DROP of what
	// it reads, a failure or the memory governor ends it). After that it
	// needs nothing of the engine: the cursors' batches stay valid
	// whatever happens to the arrangement, so a DROP does not wait for a
	// client that reads slowly, and only the statement's own context
	// (cancel, statement_timeout) ends the walk.
	stmtCtx := ctx
	ctx, read, err := e.beginRead(ctx, deps)
	if err != nil {
		return err
	}
	ended := false
	endRead := func() {
		if !ended {
			ended = true
			e.endRead(read)
		}
	}
	defer endRead()

	// Per worker, touched only on that worker's goroutine: the lease and
	// cursor the opening Exec takes, and whether the closing Exec has
	// run. An opening Exec that a canceled caller stopped waiting for
	// may still run after the closing one; it then takes nothing.
	type shard struct {
		handle *arrange.Handle
		cursor *arrange.CursorList
		err    error
		closed bool
	}
	shards := make([]shard, e.workers)
	// The leases are given back on the workers, between their steps; the
	// statement does not wait for that (a worker may be in a long step).
	defer func() {
		go e.cluster.Exec(context.Background(), func(w int) bool {
			sh := &shards[w]
			sh.closed = true
			if sh.handle != nil {
				sh.handle.Close()
				sh.handle = nil
			}
			return true
		})
	}()
	err = e.cluster.Exec(ctx, func(w int) (done bool) {
		sh := &shards[w]
		defer func() {
			if v := recover(); v != nil {
				sh.err, done = sqlerr.AssertionFailedf("peek on worker %d: %v", w, v), true
			}
		}()
		if sh.closed {
			return true
		}
		if ctx.Err() != nil {
			sh.err = readError(ctx, ctx.Err())
			return true
		}
		tr, err := e.reg.Trace(arrange.GlobalID(src.id), w)
		if err != nil {
			sh.err = err
			return true
		}
		errs, err := e.reg.Trace(compute.ErrorsID(p.Get.ID), w)
		if err != nil {
			errs = nil // tables have no error collection
		}
		if tr.Upper() <= ts || (errs != nil && errs.Upper() <= ts) {
			return false // not yet complete at ts: try after the next step
		}
		if errs != nil {
			if err := readTrace(errs, ts, nil, func(key, _ []byte, _ int64) error {
				return compute.DecodeError(key)
			}); err != nil {
				sh.err = err
				return true
			}
		}
		h, err := tr.NewHandle(ts)
		if err != nil {
			sh.err = err
			return true
		}
		c, err := h.Cursor()
		if err != nil {
			h.Close()
			sh.err = err
			return true
		}
		sh.handle, sh.cursor = h, c
		return true
	})
	if err != nil {
		return readError(ctx, err)
	}
	for i := range shards {
		if shards[i].err != nil {
			return shards[i].err
		}
	}
	endRead()
	ctx = stmtCtx
	var (
		outs    [][]repr.Datum
		scratch compute.PeekScratch
	)
	steps, taken := 0, int64(0)
	defer func() { e.streamedRows.Add(taken) }()
	for i := range shards {
		c := shards[i].cursor
		for w := compute.WalkRanges(c, src.ranges); w.Valid(); w.Step() {
			for ; c.ValValid(); c.StepVal() {
				n := c.Count(ts)
				if n <= 0 {
					continue
				}
				taken++
				row := c.Key()
				if src.keyed {
					row = c.Val()
				}
				if p.Rejects(row, &scratch) {
					continue
				}
				if outs, err = p.Rows(row, outs[:0]); err != nil {
					return err
				}
				for _, o := range outs {
					for range n {
						if err := emit(o); err != nil {
							if err == errStopRows {
								return nil
							}
							return err
						}
					}
				}
			}
			// A cancel or a timeout ends the walk within a few keys.
			if steps++; steps%256 == 0 && ctx.Err() != nil {
				return canceled(ctx.Err())
			}
		}
	}
	return nil
}
