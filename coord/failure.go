package coord

import (
	"context"
	"errors"
	"fmt"

	"freshet/arrange"
	"freshet/catalog"
	"freshet/dataflow"
	"freshet/sqlerr"
)

// watchFailures handles every dataflow failure the cluster reports (a
// panic in an operator, on one worker or several), so that a failure
// stays contained to what depends on it.
func (e *Engine) watchFailures() {
	for {
		var f dataflow.Failure
		select {
		case f = <-e.cluster.Failures():
		case <-e.closed:
			return
		}
		e.handleFailure(f)
	}
}

// handleFailure ends a failed dataflow everywhere, with every dataflow
// that imports what it exports, directly or not: their source is gone,
// and they must fail cleanly rather than stall on the workers where it
// still runs. Their catalog objects stay, marked failed, so that reading
// them (or creating anything over them) returns an error that names the
// object and the cause, until they are dropped; a restart builds them
// again. Transient reads of any of them end with that error. The drops
// go importers first, so the runtime refuses none, and the waits happen
// without the engine's lock.
func (e *Engine) handleFailure(f dataflow.Failure) {
	e.mu.Lock()
	root, ok := e.doomedLocked(f.Dataflow)
	if !ok {
		// A transient read, or a dataflow already ended: its reader sees
		// the failure through its probe and drops it; dropping it here
		// too makes sure it goes on every worker.
		e.mu.Unlock()
		e.log.Error("dataflow failed", "dataflow", f.Dataflow, "worker", f.Worker, "operator", f.Operator, "error", fmt.Sprint(f.Value))
		e.failRead(f)
		if err := e.cluster.Drop(context.Background(), f.Dataflow); err != nil {
			e.log.Error("dropping a failed transient dataflow", "dataflow", f.Dataflow, "error", err)
		}
		return
	}
	e.log.Error("dataflow failed", "object", root.what, "dataflow", f.Dataflow, "worker", f.Worker, "operator", f.Operator, "error", fmt.Sprint(f.Value))
	cause := sqlerr.New(sqlerr.InternalError, "%s failed: %v", root.what, f.Value)
	set := map[dataflow.ID]doomed{root.id: root}
	// Everything that imports the failed dataflow goes with it.
	for changed := true; changed; {
		changed = false
		for _, d := range sortedIDs(set) {
			for _, imp := range e.reg.ImportersOf(d) {
				if _, in := set[imp]; in {
					continue
				}
				if x, ok := e.doomedLocked(imp); ok {
					set[imp] = x
					changed = true
				}
			}
		}
	}
	order := e.importersFirst(set)
	marks := map[uint64]error{}
	for _, d := range order {
		if _, ok := e.retired[d.id]; ok {
			delete(e.retired, d.id)
			continue
		}
		err := error(cause)
		if d.id != root.id {
			err = sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "%s cannot be read: it depends on %s, which failed: %v", d.what, root.what, f.Value)
		}
		marks[d.obj] = err
		delete(e.dataflows, d.obj)
		delete(e.tables, d.obj)
		e.forgetImportsLocked(d.obj)
		if o := e.cat.Get(d.obj); o != nil && o.Kind == catalog.Index {
			// Reads of the indexed view compute it again instead.
			e.forgetIndex(o)
		}
	}
	e.readsMu.Lock()
	for id, err := range marks {
		e.failed[id] = err
	}
	victims := e.readsOfLocked(marks)
	e.readsMu.Unlock()
	e.markEndingLocked(order)
	e.mu.Unlock()

	if len(order) > 1 {
		e.log.Warn("ending the dataflows that depend on a failed one", "failed", root.what, "dataflows", joinWhat(order))
	}
	e.endReads(victims)
	e.dropDataflows(order)
	e.dropIdleRetired()
}

// failRead ends the transient read whose dataflow failed with f, unless
// it failed because a source it imports failed: the failure watcher then
// ends it with that source's mark instead, which names the object.
func (e *Engine) failRead(f dataflow.Failure) {
	if err, ok := f.Value.(error); ok && errors.Is(err, arrange.ErrSourceGone) {
		return
	}
	e.readsMu.Lock()
	defer e.readsMu.Unlock()
	for r := range e.reads {
		if r.dataflow == f.Dataflow {
			r.cancel(sqlerr.New(sqlerr.InternalError, "the query failed on worker %d in %s: %v", f.Worker, f.Operator, f.Value))
			return
		}
	}
}

// doomedLocked describes dataflow d if it belongs to a catalog object or
// a retired index.
func (e *Engine) doomedLocked(d dataflow.ID) (doomed, bool) {
	if r, ok := e.retired[d]; ok {
		return doomed{id: d, what: "dropped " + r.what, obj: r.id}, true
	}
	for id, x := range e.dataflows {
		if x == d {
			what := fmt.Sprintf("object %d", id)
			if o := e.cat.Get(id); o != nil {
				what = fmt.Sprintf("%s %q", o.Kind, o.Name)
			}
			return doomed{id: d, what: what, obj: id}, true
		}
	}
	return doomed{}, false
}

// failedErrLocked returns the error of the first of ids that is marked failed,
// or nil. The caller holds readsMu.
func (e *Engine) failedErrLocked(ids []uint64) error {
	for _, id := range ids {
		if err, ok := e.failed[id]; ok {
			return err
		}
	}
	return nil
}

// failedErr returns the error of the first of ids that is marked failed,
// or nil.
func (e *Engine) failedErr(ids []uint64) error {
	e.readsMu.Lock()
	defer e.readsMu.Unlock()
	return e.failedErrLocked(ids)
}

// markFailed marks object o failed with err (a view or index that could
// not be built at restart).
func (e *Engine) markFailed(o *catalog.Object, err error) {
	e.readsMu.Lock()
	defer e.readsMu.Unlock()
	e.failed[o.ID] = err
}

// clearFailed forgets the failure marks of objs (they are dropped).
func (e *Engine) clearFailed(objs []*catalog.Object) {
	e.readsMu.Lock()
	defer e.readsMu.Unlock()
	for _, o := range objs {
		delete(e.failed, o.ID)
	}
}

// failedSnapshot returns a copy of the failure marks.
func (e *Engine) failedSnapshot() map[uint64]error {
	e.readsMu.Lock()
	defer e.readsMu.Unlock()
	out := make(map[uint64]error, len(e.failed))
	for id, err := range e.failed {
		out[id] = err
	}
	return out
}
