package coord

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"freshet/arrange"
	"freshet/catalog"
	"freshet/compute"
	"freshet/dataflow"
	"freshet/expr"
	"freshet/sqlerr"
)

// retiredIndex is an index that left the catalog while other dataflows
// still import it: its dataflow keeps serving them until the last one
// goes. A dataflow whose drop the runtime refused (lingerAfterRefusal)
// is kept the same way.
type retiredIndex struct {
	// id is the object's former catalog id, under which (and under its
	// errors id) the arrangement stays exported, retired; 0 if unknown.
	id uint64
	// what names it for messages: `index "i"`.
	what string
}

// PlanDrop plans a drop against the catalog it is given. It returns a nil
// plan for nothing to drop (DROP … IF EXISTS of a missing object).
type PlanDrop func(c *catalog.Catalog) (*catalog.DropPlan, error)

// Drop plans a drop with plan and carries it out, as one step against one
// catalog version: no DDL runs between the plan and its commit, so no
// object can be created over one the plan removes, and the plan covers
// every dependent. It returns the plan it carried out.
//
// The drop is all or nothing. Under the engine's lock it works out every
// dataflow to end: those of the planned objects, and retired indexes that
// import any of them. It refuses the drop (55006), changing nothing, if a
// dataflow outside that set would still import one of them. Otherwise it
// removes the objects from the catalog, durably, and only then releases
// the lock and ends the dataflows, importers first, so that the runtime
// never refuses one. Waiting for the workers to apply the drops (which
// waits for their current operator steps) happens without the lock:
// writes and reads of other objects go on meanwhile.
func (e *Engine) Drop(ctx context.Context, plan PlanDrop) (*catalog.DropPlan, error) {
	if err := e.mu.acquire(ctx); err != nil {
		return nil, err
	}
	var p *catalog.DropPlan
	for {
		var err error
		if p, err = plan(e.cat); err != nil || p == nil {
			e.mu.Unlock()
			return p, err
		}
		// A write that took its timestamp before this drop must be
		// durable and fed before the table's log is deleted, or it
		// could land in the deleted log. Waiting releases the lock, so
		// the plan is made again afterwards.
		if !e.pendingWriteTo(p.Objects) {
			break
		}
		e.fedCond.Wait()
	}
	order, retire, err := e.planDataflowDropsLocked(p.Objects)
	if err != nil {
		e.mu.Unlock()
		return nil, err
	}
	victims, marked := e.markDroppingLocked(p.Objects, order)
	// The drop is decided: it commits whatever the client does now.
	if err := e.persistCatalog(context.WithoutCancel(ctx), nil, p.Objects); err != nil {
		e.mu.Unlock()
		e.doneDropping(marked)
		return nil, err
	}
	for _, o := range p.Objects {
		if o.Kind == catalog.Index {
			e.forgetIndex(o)
		}
		delete(e.dataflows, o.ID)
		delete(e.tables, o.ID)
		delete(e.compactor.logs, o.ID)
		delete(e.defaults, o.ID)
		e.forgetKeysLocked(o)
		if o.Kind == catalog.Sequence {
			e.forgetSequence(o.ID)
		}
		delete(e.sys.readers, o.ID)
		e.forgetIntrospectReaderLocked(o.ID)
		e.forgetImportsLocked(o.ID)
	}
	for _, d := range order {
		delete(e.retired, d.id)
	}
	for _, r := range retire {
		e.retired[r.dataflow] = &retiredIndex{id: r.obj.ID, what: fmt.Sprintf("index %q", r.obj.Name)}
		e.reg.Retire(arrange.GlobalID(r.obj.ID))
		e.reg.Retire(compute.ErrorsID(expr.GlobalID(r.obj.ID)))
	}
	e.cat.Remove(p.Objects)
	e.clearFailed(p.Objects)
	e.markEndingLocked(order)
	perr := e.catalogChangedLocked(ctx)
	e.mu.Unlock()

	defer e.doneDropping(marked)
	e.endReads(victims)
	e.dropDataflows(order)
	e.dropIdleRetired()
	return p, perr
}

// doomed is a dataflow a drop or a failure ends, with what it is for
// error messages.
type doomed struct {
	id   dataflow.ID
	what string
	// obj is the catalog object whose dataflow it is, or, for a retired
	// index, the index's former id; 0 for neither.
	obj uint64
}

// retirement is an index that a drop takes out of the catalog while a
// dataflow outside the drop still imports it.
type retirement struct {
	obj      *catalog.Object
	dataflow dataflow.ID
}

// planDataflowDropsLocked works out which dataflows dropping objs ends,
// importers first, and which indexes among objs are retired instead
// because a dataflow that stays imports them. It fails, having changed
// nothing, if a dataflow that stays would import one that goes.
func (e *Engine) planDataflowDropsLocked(objs []*catalog.Object) ([]doomed, []retirement, error) {
	set := map[dataflow.ID]doomed{}
	for _, o := range objs {
		if d, ok := e.dataflows[o.ID]; ok {
			set[d] = doomed{id: d, what: fmt.Sprintf("%s %q", o.Kind, o.Name), obj: o.ID}
		}
	}
	// Retired indexes that read what goes must go too: they import it.
	e.closeOverRetiredLocked(set)
	// An index that a dataflow staying behind imports is retired: it
	// leaves the catalog, and its dataflow stays until that importer
	// goes. Retiring one can make another's importer stay, hence the
	// loop.
	var retire []retirement
	for changed := true; changed; {
		changed = false
		for _, o := range objs {
			d, ok := e.dataflows[o.ID]
			if o.Kind != catalog.Index || !ok {
				continue
			}
			if _, going := set[d]; !going {
				continue
			}
			for _, imp := range e.reg.ImportersOf(d) {
				if _, going := set[imp]; !going && e.persistentLocked(imp) {
					delete(set, d)
					retire = append(retire, retirement{obj: o, dataflow: d})
					changed = true
					break
				}
			}
		}
	}
	// Every importer of a dataflow that goes goes too, or is a transient
	// read, which the drop ends first.
	for _, d := range sortedIDs(set) {
		for _, imp := range e.reg.ImportersOf(d) {
			if _, going := set[imp]; !going && e.persistentLocked(imp) {
				return nil, nil, sqlerr.New(sqlerr.ObjectInUse, "cannot drop %s because %s still reads it", set[d].what, e.describeLocked(imp))
			}
		}
	}
	// (A retired index is such a dataflow that stays: what it imports
	// must stay too, which the loop above checked.)
	return e.importersFirst(set), retire, nil
}

// closeOverRetiredLocked adds to set every retired index that imports,
// directly or through another, a dataflow in set.
func (e *Engine) closeOverRetiredLocked(set map[dataflow.ID]doomed) {
	for changed := true; changed; {
		changed = false
		for _, d := range sortedIDs(set) {
			for _, imp := range e.reg.ImportersOf(d) {
				r, retired := e.retired[imp]
				if _, in := set[imp]; retired && !in {
					set[imp] = doomed{id: imp, what: r.what, obj: r.id}
					changed = true
				}
			}
		}
	}
}

// importersFirst orders set so that every dataflow comes after the
// dataflows in set that import it.
func (e *Engine) importersFirst(set map[dataflow.ID]doomed) []doomed {
	var order []doomed
	seen := map[dataflow.ID]bool{}
	var visit func(d dataflow.ID)
	visit = func(d dataflow.ID) {
		if seen[d] {
			return
		}
		seen[d] = true
		for _, imp := range e.reg.ImportersOf(d) {
			if _, in := set[imp]; in {
				visit(imp)
			}
		}
		order = append(order, set[d])
	}
	for _, d := range sortedIDs(set) {
		visit(d)
	}
	return order
}

// persistentLocked reports whether d is the dataflow of a catalog object
// or of a retired index, as opposed to a transient read's.
func (e *Engine) persistentLocked(d dataflow.ID) bool {
	if _, ok := e.retired[d]; ok {
		return true
	}
	for _, x := range e.dataflows {
		if x == d {
			return true
		}
	}
	return false
}

// describeLocked names dataflow d for an error message: its object's kind
// and name.
func (e *Engine) describeLocked(d dataflow.ID) string {
	if r, ok := e.retired[d]; ok {
		return "dropped " + r.what
	}
	for id, x := range e.dataflows {
		if x == d {
			if o := e.cat.Get(id); o != nil {
				return fmt.Sprintf("%s %q", o.Kind, o.Name)
			}
		}
	}
	return "a running query"
}

// markDroppingLocked marks objs, and the retired indexes among order, as
// going: reads that start from now on end at once. It returns the reads
// in flight that import any of them, and the ids it marked.
func (e *Engine) markDroppingLocked(objs []*catalog.Object, order []doomed) ([]readEnd, []uint64) {
	e.readsMu.Lock()
	defer e.readsMu.Unlock()
	ids := map[uint64]error{}
	for _, o := range objs {
		ids[o.ID] = sqlerr.New(sqlerr.QueryCanceled, "query could not complete because %s %q was dropped", o.Kind, o.Name)
	}
	for _, d := range order {
		if _, ok := ids[d.obj]; !ok && d.obj != 0 {
			ids[d.obj] = sqlerr.New(sqlerr.QueryCanceled, "query could not complete because %s was dropped", d.what)
		}
	}
	marked := make([]uint64, 0, len(ids))
	for id, err := range ids {
		e.dropping[id] = err
		marked = append(marked, id)
	}
	return e.readsOfLocked(ids), marked
}

// readEnd is a read in flight to end, with the error it ends with.
type readEnd struct {
	read *inflightRead
	err  error
}

// readsOfLocked returns the reads in flight that import any of ids, each
// with the error of the first such id it imports. The caller holds
// readsMu.
func (e *Engine) readsOfLocked(ids map[uint64]error) []readEnd {
	var out []readEnd
	for r := range e.reads {
		for _, id := range r.deps {
			if err, ok := ids[id]; ok {
				out = append(out, readEnd{r, err})
				break
			}
		}
	}
	return out
}

// endReads cancels reads with their errors and waits until their
// dataflows are gone. It must not be called with mu held: a read's end
// waits for its dataflow's drop, which waits for the workers.
func (e *Engine) endReads(victims []readEnd) {
	for _, v := range victims {
		v.read.cancel(v.err)
	}
	for _, v := range victims {
		<-v.read.done
	}
}

// dropDataflows drops each dataflow of order, in order, on every worker.
// The order puts importers first, and a drop waits for the importers
// that are being ended elsewhere, so the runtime's drop guard refuses
// none that the plan counted. One it did not count (a dataflow on its
// way out that nobody marked as ending) makes the runtime refuse: the
// dataflow it still reads is then kept, retired, until it goes
// (lingerAfterRefusal), so that a drop neither pulls state from under a
// reader nor leaves a dataflow behind. It returns the dataflows kept so.
// A drop that fails otherwise (the cluster closing) is logged.
func (e *Engine) dropDataflows(order []doomed) (kept []dataflow.ID) {
	for _, d := range order {
		e.awaitEndingImporters(d.id)
		err := e.cluster.Drop(context.Background(), d.id)
		var inUse *arrange.InUseError
		switch {
		case errors.As(err, &inUse):
			e.lingerAfterRefusal(d, err)
			kept = append(kept, d.id)
		case err != nil:
			e.log.Error("a planned dataflow drop failed", "dataflow", d.id, "object", d.what, "error", err)
		}
		e.finishEnding(d.id)
	}
	return kept
}

// lingerAfterRefusal keeps dataflow d, whose drop the runtime refused
// with err because a dataflow still imports it, as a retired index is
// kept: its exports take no new importer, and it is dropped once the
// last one goes (onRetiredIdle). An importer that went between the
// refusal and the retirement told no one: the drops and failures that
// end dataflows sweep idle retired ones after (dropIdleRetired).
func (e *Engine) lingerAfterRefusal(d doomed, err error) {
	e.log.Warn("a dropped dataflow is still read by a dataflow its drop did not count; it stays until that one goes",
		"dataflow", d.id, "object", d.what, "error", err)
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.retired[d.id]; !ok {
		e.retired[d.id] = &retiredIndex{id: d.obj, what: strings.TrimPrefix(d.what, "dropped ")}
	}
	if d.obj != 0 {
		e.reg.Retire(arrange.GlobalID(d.obj))
		e.reg.Retire(compute.ErrorsID(expr.GlobalID(d.obj)))
	}
}

// markEndingLocked records that the dataflows of order are being ended:
// until they are gone, a drop that meets one as an importer of what it
// drops waits for it rather than taking it for a stranger.
func (e *Engine) markEndingLocked(order []doomed) {
	for _, d := range order {
		if _, ok := e.ending[d.id]; !ok {
			e.ending[d.id] = make(chan struct{})
		}
	}
}

// awaitEndingImporters waits until no dataflow that imports from d is
// still being ended by another drop or a failure: the runtime refuses
// to drop d before they are gone.
func (e *Engine) awaitEndingImporters(d dataflow.ID) {
	for {
		var wait chan struct{}
		e.mu.Lock()
		for _, imp := range e.reg.ImportersOf(d) {
			if ch, ok := e.ending[imp]; ok {
				wait = ch
				break
			}
		}
		e.mu.Unlock()
		if wait == nil {
			return
		}
		<-wait
	}
}

// finishEnding records that dataflow d is gone (or its drop is over).
func (e *Engine) finishEnding(d dataflow.ID) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if ch, ok := e.ending[d]; ok {
		close(ch)
		delete(e.ending, d)
	}
}

// dropIdleRetired drops every retired index that no dataflow imports any
// more. The registry's idle callback does the same from a worker; doing
// it here too means a drop that released a retired index has finished
// with it by the time it returns.
func (e *Engine) dropIdleRetired() {
	e.mu.Lock()
	var idle []doomed
	for _, d := range sortedIDs(e.retired) {
		if len(e.reg.ImportersOf(d)) == 0 {
			idle = append(idle, doomed{id: d, what: "dropped " + e.retired[d].what, obj: e.retired[d].id})
			delete(e.retired, d)
		}
	}
	e.markEndingLocked(idle)
	e.mu.Unlock()
	e.dropDataflows(idle)
}

// onRetiredIdle is the registry's idle callback: the retired index's
// dataflow d has no importer left. It runs on a worker's goroutine, so
// the drop (which waits for every worker) runs on another.
func (e *Engine) onRetiredIdle(d dataflow.ID) {
	go func() {
		e.mu.Lock()
		r, ok := e.retired[d]
		e.mu.Unlock()
		if !ok {
			return
		}
		// The entry goes only once the drop is done, so that a drop
		// sweeping idle retired indexes meanwhile drops (and waits for)
		// this one too rather than returning before it is gone; it stays
		// if the drop was refused (lingerAfterRefusal).
		kept := e.dropDataflows([]doomed{{id: d, what: "dropped " + r.what, obj: r.id}})
		if len(kept) == 0 {
			e.mu.Lock()
			delete(e.retired, d)
			e.mu.Unlock()
		}
	}()
}

// doneDropping clears the marks markDroppingLocked set.
func (e *Engine) doneDropping(ids []uint64) {
	e.readsMu.Lock()
	defer e.readsMu.Unlock()
	for _, id := range ids {
		delete(e.dropping, id)
	}
}

// sortedIDs returns the keys of m in increasing order, so that what is
// done for each does not depend on map order.
func sortedIDs[V any](m map[dataflow.ID]V) []dataflow.ID {
	ids := make([]dataflow.ID, 0, len(m))
	for d := range m {
		ids = append(ids, d)
	}
	slices.Sort(ids)
	return ids
}

// joinWhat lists doomed dataflows for a log line.
func joinWhat(ds []doomed) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.what
	}
	return strings.Join(parts, ", ")
}
