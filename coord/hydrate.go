package coord

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"freshet/arrange"
	"freshet/catalog"
	"freshet/compute"
	"freshet/dataflow"
	"freshet/expr"
	"freshet/pgwire"
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
	// The tables under o move past the fed time, or o's upper would not
	// (advance.go).
	e.catchUpLocked([]uint64{o.ID})
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
		stop := e.reportHydration(ctx, o.Name, h.dataflow)
		err = e.awaitUpper(rctx, deps, o.ID, h.ts)
		stop()
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

// progressKey is the context key of a create's progress reporter.
type progressKey struct{}

// withProgress returns ctx carrying notify, which a create that hydrates
// at length calls with its progress notices (see reportHydration).
func withProgress(ctx context.Context, notify func(*sqlerr.Error)) context.Context {
	return context.WithValue(ctx, progressKey{}, notify)
}

// progressNotices sends a create's progress notices to its client as
// they come, while the create still runs.
func progressNotices(w pgwire.Writer) func(*sqlerr.Error) {
	return func(n *sqlerr.Error) {
		if w.Notice(n) == nil {
			_ = w.Flush()
		}
	}
}

// progressConfig is when a hydrating create reports its progress: if its
// imports have at least min records to read, at the start and then every
// interval while the share read has changed.
type progressConfig struct {
	min   int64
	every time.Duration
}

var defaultProgress = progressConfig{min: 100_000, every: time.Second}

// reportHydration sends the client of a create (the notifier that
// withProgress put in ctx) NOTICE lines of how far dataflow d, hydrating
// object name, has read what it imports: "hydrating name: 45% (1.8M of 4M
// records read)". The records to read are the imports' snapshots, the
// records their arrangements hold as of the build, over every worker; what follows once they are read
// (arranging, joining, reducing what was read) is not counted, so the
// last notice may say 100% a while before the create answers. stop ends
// the reports; nothing is sent after it returns.
func (e *Engine) reportHydration(ctx context.Context, name string, d dataflow.ID) (stop func()) {
	notify, _ := ctx.Value(progressKey{}).(func(*sqlerr.Error))
	if notify == nil {
		return func() {}
	}
	cfg := e.progress
	var toRead, last int64 = 0, -1
	// check sends a notice if the share read has changed; the first
	// waits until every import has its whole snapshot to read, and
	// none is sent if that is under the threshold. It reports whether
	// to go on.
	check := func() bool {
		read, n, catchingUp := e.cluster.Reading(d)
		if last < 0 {
			if catchingUp > 0 {
				return true
			}
			if toRead = n; toRead < cfg.min {
				return false
			}
		}
		read = min(read, toRead)
		if pct := read * 100 / toRead; pct != last {
			last = pct
			notify(sqlerr.New(sqlerr.SuccessfulCompletion, "hydrating %s: %d%% (%s of %s records read)",
				name, pct, countText(read), countText(toRead)).WithSeverity(sqlerr.SeverityNotice))
		}
		return true
	}
	if !check() {
		return func() {}
	}
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(cfg.every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			if !check() {
				<-done
				return
			}
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}

// countText is a count of records as a person reads it: 950, 12k, 1.8M.
func countText(n int64) string {
	switch {
	case n < 10_000:
		return strconv.FormatInt(n, 10)
	case n < 1_000_000:
		return strconv.FormatInt(n/1000, 10) + "k"
	case n < 10_000_000:
		return strconv.FormatFloat(float64(n/100_000)/10, 'f', -1, 64) + "M"
	}
	return strconv.FormatInt(n/1_000_000, 10) + "M"
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
