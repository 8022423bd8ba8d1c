package coord

import (
	"context"

	"freshet/arrange"
	"freshet/catalog"
	"freshet/dataflow"
)

// ConsoleState is what the web console shows: every table, materialized
// view and index with its state, size and freshness lag, and the
// transient dataflows running, read from the engine at one moment.
type ConsoleState struct {
	// At is the engine's clock, in milliseconds since the Unix epoch.
	At        int64              `json:"at"`
	Objects   []ConsoleObject    `json:"objects"`
	Transient []ConsoleTransient `json:"transient"`
}

// ConsoleObject is one object of ConsoleState.
type ConsoleObject struct {
	ID          uint64   `json:"id"`
	Database    string   `json:"database"`
	Schema      string   `json:"schema"`
	Name        string   `json:"name"`
	Kind        string   `json:"kind"`
	State       string   `json:"state"`
	Dataflow    uint64   `json:"dataflow"`
	MemoryBytes int64    `json:"memoryBytes"`
	Records     int64    `json:"records"`
	Bytes       int64    `json:"bytes"`
	LagMs       int64    `json:"lagMs"`
	DependsOn   []string `json:"dependsOn"`
}

// ConsoleTransient is a query's or a subscription's dataflow.
type ConsoleTransient struct {
	Dataflow    uint64 `json:"dataflow"`
	Kind        string `json:"kind"`
	Statement   string `json:"statement"`
	MemoryBytes int64  `json:"memoryBytes"`
}

// ConsoleGraph is one object's dataflow: its operators and channels, the
// arrangements it imports, the one it exports, and the dataflows that
// share that by importing it.
type ConsoleGraph struct {
	Object     ConsoleObject           `json:"object"`
	Operators  []dataflow.OperatorInfo `json:"operators"`
	Channels   []dataflow.ChannelInfo  `json:"channels"`
	Imports    []ConsoleObject         `json:"imports"`
	ImportedBy []string                `json:"importedBy"`
}

// ConsoleState reads the running engine's state; nil while it restarts.
func (s *Supervisor) ConsoleState(ctx context.Context) *ConsoleState {
	e := s.Engine()
	if e == nil {
		return nil
	}
	st := e.introspect(ctx)
	out := &ConsoleState{At: int64(e.Clock()), Objects: []ConsoleObject{}, Transient: []ConsoleTransient{}}
	for _, o := range st.objects {
		if co, ok := consoleObject(st, o); ok {
			out.Objects = append(out.Objects, co)
		}
	}
	for _, r := range st.reads {
		kind := r.kind
		if kind == "" {
			kind = "transient"
		}
		if kind == "hydration" {
			continue
		}
		out.Transient = append(out.Transient, ConsoleTransient{Dataflow: uint64(r.dataflow), Kind: kind,
			Statement: r.what, MemoryBytes: st.memory[r.dataflow]})
	}
	return out
}

// consoleObject is o as the console shows it; false for what it does not
// show (system tables, schemas, sequences, databases).
func consoleObject(st *engineState, o *catalog.Object) (ConsoleObject, bool) {
	if isSystemTable(o.ID) {
		return ConsoleObject{}, false
	}
	switch o.Kind {
	case catalog.Table, catalog.View, catalog.MaterializedView, catalog.Index:
	default:
		return ConsoleObject{}, false
	}
	co := ConsoleObject{ID: o.ID, Database: o.Database, Schema: o.Schema, Name: o.Name, Kind: o.Kind.String(),
		State: st.objectState(o), DependsOn: []string{}}
	if d := st.dataflows[o.ID]; d != 0 {
		co.Dataflow, co.MemoryBytes = uint64(d), st.memory[d]
	}
	if t, ok := st.totals(o.ID); ok {
		co.Records, co.Bytes, co.LagMs = t.records, t.bytes, t.lag
	}
	deps := objectDeps(o)
	for _, d := range deps {
		if t := st.byID[d]; t != nil {
			co.DependsOn = append(co.DependsOn, t.Name)
		}
	}
	return co, true
}

// ConsoleGraph reads object id's dataflow graph; false if it has none
// running (or the engine restarts).
func (s *Supervisor) ConsoleGraph(ctx context.Context, id uint64) (*ConsoleGraph, bool) {
	e := s.Engine()
	if e == nil {
		return nil, false
	}
	st := e.introspect(ctx)
	o := st.byID[id]
	if o == nil {
		return nil, false
	}
	co, ok := consoleObject(st, o)
	d := st.dataflows[id]
	if !ok || d == 0 {
		return nil, false
	}
	gs, err := e.cluster.Graphs(ctx, []dataflow.ID{d})
	if err != nil {
		return nil, false
	}
	g := &ConsoleGraph{Object: co, Operators: gs[d].Operators, Channels: gs[d].Channels,
		Imports: []ConsoleObject{}, ImportedBy: []string{}}
	deps := objectDeps(o)
	for _, dep := range e.throughViewsUnlocked(deps) {
		if t := st.byID[dep]; t != nil && t.Kind != catalog.View {
			if ci, ok := consoleObject(st, t); ok {
				g.Imports = append(g.Imports, ci)
			}
		}
	}
	byDataflow := st.byDataflow()
	for _, imp := range e.reg.Importers(arrange.GlobalID(id)) {
		if obj := byDataflow[imp]; obj != nil {
			g.ImportedBy = append(g.ImportedBy, obj.Name)
		} else {
			g.ImportedBy = append(g.ImportedBy, "a transient dataflow")
		}
	}
	return g, true
}

// throughViewsUnlocked is throughViewsLocked, taking the lock.
func (e *Engine) throughViewsUnlocked(deps []uint64) []uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.throughViewsLocked(deps)
}
