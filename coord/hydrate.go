package coord

import (
	"context"
	"errors"
	"sync"

	"freshet/arrange"
	"freshet/catalog"
	"freshet/compute"
	"freshet/dataflow"
	"freshet/expr"
	"freshet/sqlerr"
)

// hydration is a CREATE MATERIALIZED VIEW or CREATE INDEX whose dataflow
// is built and is reading what it reads: the create answers its client
// once the dataflow's output has passed ts, the time it was built at.
type hydration struct {
	ts       uint64
	dataflow dataflow.ID
}

// startHydrationLocked records that o's dataflow, just built at the fed
// time, is hydrating. Until it is done nothing may be created over o (see
// checkDependsLocked): the create may yet be undone. The caller holds mu.
func (e *Engine) startHydrationLocked(o *catalog.Object) *hydration {
	h := &hydration{ts: e.fed, dataflow: e.dataflows[o.ID]}
	e.readsMu.Lock()
	e.creating[o.ID] = h
	e.readsMu.Unlock()
	return h
}

// creatingLocked reports whether id is a create still hydrating. The
// caller holds mu.
func (e *Engine) creatingLocked(id uint64) bool {
	e.readsMu.Lock()
	defer e.readsMu.Unlock()
	_, ok := e.creating[id]
	return ok
}

// hydrate waits until the dataflow of o, a materialized view or an index
// just created, has read everything it reads as of its build: the create
// then answers, as PostgreSQL's does once the view's rows are computed.
// The wait is a read in flight over o and what it reads, so it ends the
// way a query does: at a cancel or the statement_timeout (57014), when
// the memory governor chooses it (53200; its dataflow's account holds the
// view's state), or when what it reads fails or is dropped. The create is
// then undone: o is dropped, its dataflow with it, and the error is the
// statement's.
func (e *Engine) hydrate(ctx context.Context, o *catalog.Object, h *hydration) error {
	defer func() {
		e.readsMu.Lock()
		delete(e.creating, o.ID)
		e.readsMu.Unlock()
	}()
	deps := append([]uint64{o.ID}, o.DependsOn...)
	rctx, read, err := e.beginRead(ctx, deps)
	if err == nil {
		e.readsMu.Lock()
		read.dataflow, read.kind = h.dataflow, "hydration"
		e.readsMu.Unlock()
		err = e.awaitUpper(rctx, deps, o.ID, h.ts)
		e.endRead(read)
	}
	if err == nil {
		return nil
	}
	_, derr := e.Drop(context.WithoutCancel(ctx), func(c *catalog.Catalog) (*catalog.DropPlan, error) {
		obj := c.Get(o.ID)
		if obj == nil {
			return nil, nil // dropped already, by the DROP that ended the wait
		}
		return c.PlanDrop(obj.Kind, obj, false)
	})
	if derr != nil {
		e.log.Error("undoing a create whose hydration ended", "object", o.Name, "error", derr)
	}
	return err
}

// awaitUpper waits until the arrangement exported under id, and its
// errors, have passed ts on every worker.
func (e *Engine) awaitUpper(ctx context.Context, deps []uint64, id, ts uint64) error {
	var mu sync.Mutex
	var gone error
	err := e.cluster.Exec(ctx, func(w int) bool {
		if ctx.Err() != nil {
			return true
		}
		tr, err := e.reg.Trace(arrange.GlobalID(id), w)
		if err == nil {
			var errs *arrange.Trace
			if errs, err = e.reg.Trace(compute.ErrorsID(expr.GlobalID(id)), w); err == nil {
				return tr.Upper() > ts && errs.Upper() > ts
			}
		}
		mu.Lock()
		gone = err
		mu.Unlock()
		return true
	})
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil {
		return readError(ctx, err)
	}
	if gone != nil {
		if errors.Is(gone, arrange.ErrNoExport) || errors.Is(gone, arrange.ErrSourceGone) {
			return e.awaitFailure(ctx, deps, gone)
		}
		return sqlerr.Wrapf(gone, sqlerr.InternalError, "waiting for the new dataflow to read its input")
	}
	return nil
}
