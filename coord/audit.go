package coord

import (
	"fmt"
	"slices"
	"strings"

	"freshet/arrange"
	"freshet/catalog"
)

// Audit checks that the catalog and the running dataflows agree, and
// returns an error that lists every disagreement, or nil. It is meant for
// a quiet engine (no statement in flight, so no transient dataflow):
//   - every table, materialized view and index of the catalog has exactly
//     one dataflow, or is marked failed and has none;
//   - no dataflow is known to the engine that the catalog does not hold,
//     except retired indexes that are still imported;
//   - the cluster runs exactly those dataflows, on every worker, and holds
//     no message and no tombstone.
func (e *Engine) Audit() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var problems []string
	failed := e.failedSnapshot()
	for _, o := range e.cat.Objects() {
		switch o.Kind {
		case catalog.Table, catalog.MaterializedView, catalog.Index:
		default:
			continue
		}
		_, running := e.dataflows[o.ID]
		_, broken := failed[o.ID]
		switch {
		case running && broken:
			problems = append(problems, fmt.Sprintf("%s %q is marked failed but has a dataflow", o.Kind, o.Name))
		case !running && !broken:
			problems = append(problems, fmt.Sprintf("%s %q has no dataflow and is not marked failed", o.Kind, o.Name))
		}
	}
	for id := range e.dataflows {
		if e.cat.Get(id) == nil && !isSystemTable(id) {
			problems = append(problems, fmt.Sprintf("a dataflow runs for object %d, which the catalog does not hold", id))
		}
	}
	for id := range failed {
		if e.cat.Get(id) == nil {
			problems = append(problems, fmt.Sprintf("object %d is marked failed but the catalog does not hold it", id))
		}
	}
	for d, r := range e.retired {
		if len(e.reg.ImportersOf(d)) == 0 {
			problems = append(problems, fmt.Sprintf("retired %s (dataflow %d) has no importer left but still runs", r.what, d))
		}
	}
	// A dataflow that completed (a view over constants) has ended and
	// keeps its final trace exported.
	running := len(e.dataflows) + len(e.retired)
	for id := range e.dataflows {
		if e.reg.Completed(arrange.GlobalID(id)) {
			running--
		}
	}
	want := int64(running) * int64(e.workers)
	st := e.cluster.Stats()
	if st.Running != want || st.Building != 0 {
		problems = append(problems, fmt.Sprintf("the cluster runs %d dataflow copies and builds %d; the engine knows %d running dataflows on %d workers (%d copies)",
			st.Running, st.Building, running, e.workers, want))
	}
	if st.Held != 0 || st.Tombstones != 0 {
		problems = append(problems, fmt.Sprintf("the cluster holds %d messages and %d tombstones", st.Held, st.Tombstones))
	}
	if len(problems) == 0 {
		return nil
	}
	slices.Sort(problems)
	return fmt.Errorf("catalog and dataflows disagree: %s", strings.Join(problems, "; "))
}
