package coord

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"

	"freshet/arrange"
	"freshet/catalog"
	"freshet/dataflow"
	"freshet/planner"
	"freshet/repr"
	"freshet/sqlerr"
)

// internalSchema holds the introspection relations: what the engine runs
// and holds. Each is a view over a system table of its own
// (introspectTable) that the engine writes with its state: before every
// statement that reads one, and, while a materialized view, an index or
// a subscription follows them, every introspectEvery. They join with each
// other and with the catalog, a query sees the state as the statement
// starts, and a SUBSCRIBE or a materialized view over them changes as the
// engine does.
const internalSchema = "freshet_internal"

// internalView is one introspection relation: its columns, and its rows
// from the engine's state, each with the database it belongs to ("" for
// one that shows in every database).
type internalView struct {
	columns []planner.RelationColumn
	rows    func(st *engineState) []dbRow
}

// dbRow is a row of an introspection relation, as SQL literals, and the
// database whose sessions see it.
type dbRow struct {
	db   string
	lits []string
}

var internalViews = map[string]internalView{
	"objects": {columns: []planner.RelationColumn{
		col("id", repr.Int8, false), col("oid", oidType, false), col("schema", repr.Text, false),
		col("name", repr.Text, false), col("kind", repr.Text, false), col("owner", repr.Text, true),
		col("dataflow", repr.Int8, true), col("state", repr.Text, false),
	}, rows: (*engineState).internalObjects},
	"dependencies": {columns: []planner.RelationColumn{
		col("object_id", repr.Int8, false), col("object", repr.Text, false),
		col("depends_on_id", repr.Int8, false), col("depends_on", repr.Text, false),
	}, rows: (*engineState).internalDependencies},
	"dataflows": {columns: []planner.RelationColumn{
		col("id", repr.Int8, false), col("object_id", repr.Int8, true), col("object", repr.Text, true),
		col("kind", repr.Text, false), col("state", repr.Text, false), col("workers", repr.Int4, false),
		col("memory_bytes", repr.Int8, false), col("statement", repr.Text, true),
		col("created_at", repr.TimestampTZ, true),
	}, rows: (*engineState).internalDataflows},
	"arrangements": {columns: []planner.RelationColumn{
		col("object_id", repr.Int8, false), col("object", repr.Text, false), col("worker", repr.Int4, false),
		col("records", repr.Int8, false), col("batches", repr.Int4, false), col("bytes", repr.Int8, false),
		col("leases", repr.Int4, false), col("since", repr.Numeric, false), col("upper", repr.Numeric, false),
		col("merge_pending", repr.Int8, false),
	}, rows: (*engineState).internalArrangements},
	"frontiers": {columns: []planner.RelationColumn{
		col("object_id", repr.Int8, false), col("object", repr.Text, false),
		col("write_frontier", repr.Numeric, false), col("read_frontier", repr.Numeric, false),
		col("lag_ms", repr.Int8, false),
	}, rows: (*engineState).internalFrontiers},
	"operators": {columns: []planner.RelationColumn{
		col("dataflow_id", repr.Int8, false), col("id", repr.Int4, false), col("name", repr.Text, false),
		col("inputs", repr.Int4, false), col("outputs", repr.Int4, false), col("queued", repr.Int8, false),
		col("schedules", repr.Int8, false), col("busy_ms", repr.Float8, false), col("longest_ms", repr.Float8, false),
	}, rows: (*engineState).internalOperators},
	"channels": {columns: []planner.RelationColumn{
		col("dataflow_id", repr.Int8, false), col("id", repr.Int8, false),
		col("from_operator", repr.Int4, false), col("from_port", repr.Int4, false),
		col("to_operator", repr.Int4, false), col("to_port", repr.Int4, false), col("pact", repr.Text, false),
	}, rows: (*engineState).internalChannels},
	"exports": {columns: []planner.RelationColumn{
		col("object_id", repr.Int8, false), col("object", repr.Text, false), col("dataflow_id", repr.Int8, false),
		col("importers", repr.Int4, false),
	}, rows: (*engineState).internalExports},
	"imports": {columns: []planner.RelationColumn{
		col("dataflow_id", repr.Int8, false), col("importer_id", repr.Int8, true), col("importer", repr.Text, true),
		col("object_id", repr.Int8, false), col("object", repr.Text, false), col("lease_since", repr.Numeric, true),
	}, rows: (*engineState).internalImports},
	"sessions": {columns: []planner.RelationColumn{
		col("pid", repr.Int4, false), col("datname", repr.Text, false), col("user", repr.Text, false),
		col("application_name", repr.Text, true), col("client_addr", repr.Text, true), col("state", repr.Text, false),
		col("statement", repr.Text, true), col("backend_start", repr.TimestampTZ, true), col("statement_start", repr.TimestampTZ, true),
	}, rows: (*engineState).internalSessions},
	"hydration": {columns: []planner.RelationColumn{
		col("object_id", repr.Int8, false), col("object", repr.Text, false), col("hydrated", repr.Bool, false),
		col("records_read", repr.Int8, true), col("records_to_read", repr.Int8, true),
	}, rows: (*engineState).internalHydration},
}

// resolveInternal resolves freshet_internal.name: the rows of its table
// that belong to the session's database or to every database.
func (s *Session) resolveInternal(name string) (planner.Relation, bool) {
	t := introspectTableNamed(name)
	if t == nil {
		return planner.Relation{}, false
	}
	sql := "SELECT " + columnNames(t.view.columns) + " FROM " + systemSchema + "." + t.tableName() +
		" WHERE database IN (" + quoteLiteral(s.database) + ", '')"
	return planner.Relation{
		Name:    planner.QualifiedName{Database: s.database, Schema: internalSchema, Name: name},
		Kind:    planner.KindView,
		Columns: t.view.columns,
		SQL:     sql,
	}, true
}

// engineState is what the introspection relations show, read at once.
type engineState struct {
	e         *Engine
	workers   int
	objects   []*catalog.Object
	byID      map[uint64]*catalog.Object
	dataflows map[uint64]dataflow.ID // object id to its dataflow
	failed    map[uint64]error
	creating  map[uint64]bool
	memory    map[dataflow.ID]int64
	// reading is what each dataflow has read of its imports, and had
	// to read at its build (dataflow.Cluster.Reading).
	reading map[dataflow.ID][2]int64
	reads   []readInfo
	// built is when each dataflow was built.
	built map[dataflow.ID]time.Time
	// sessions are the clients' sessions, by process id.
	sessions []sessionInfo
	fed      uint64
	// given is, by object, the time up to which every table under it
	// has been advanced (advance.go): its upper can be no further.
	given map[uint64]uint64
	// traces are the exported arrangements' shards, by object and
	// worker.
	traces map[uint64][]traceInfo
}

// sessionInfo is a client session as freshet_internal.sessions shows it.
type sessionInfo struct {
	pid                          uint32
	database, user, app, addr    string
	state, statement             string
	backendStart, statementStart uint64
}

type readInfo struct {
	dataflow dataflow.ID
	kind     string
	what     string
}

type traceInfo struct {
	records, batches, leases int
	bytes, mergePending      int64
	since, upper             uint64
	// importers are the since of each importing dataflow's lease.
	importers map[dataflow.ID]uint64
}

// traceTotals are an exported arrangement's figures over its shards.
type traceTotals struct {
	records, bytes int64
	// upper is the least upper of the shards (the write frontier),
	// since the greatest since.
	upper, since uint64
	// lag is how far upper is behind the newest write fed that
	// concerns the object (the time its tables were advanced to), in
	// the oracle's milliseconds: 0 once every such write is in.
	lag int64
}

// totals sums object id's arrangement's shards; false if it exports
// none.
func (st *engineState) totals(id uint64) (traceTotals, bool) {
	shards := st.traces[id]
	if len(shards) == 0 {
		return traceTotals{}, false
	}
	t := traceTotals{upper: uint64(dataflow.Done)}
	for _, ti := range shards {
		t.records += int64(ti.records)
		t.bytes += ti.bytes
		t.upper = min(t.upper, ti.upper)
		t.since = max(t.since, ti.since)
	}
	given, ok := st.given[id]
	if !ok {
		given = st.fed
	}
	if t.upper <= given {
		t.lag = int64(given - t.upper + 1)
	}
	return t, true
}

// introspect reads the engine's state for the introspection relations.
func (e *Engine) introspect(ctx context.Context) *engineState {
	st := &engineState{e: e, workers: e.workers, byID: map[uint64]*catalog.Object{}, dataflows: map[uint64]dataflow.ID{},
		creating: map[uint64]bool{}, traces: map[uint64][]traceInfo{}}
	e.mu.Lock()
	st.objects = slices.Clone(e.cat.Objects())
	for id, d := range e.dataflows {
		st.dataflows[id] = d
	}
	st.fed = e.fed
	st.given = map[uint64]uint64{}
	for id := range e.dataflows {
		st.given[id] = e.givenLocked(id)
	}
	e.mu.Unlock()
	for _, o := range st.objects {
		st.byID[o.ID] = o
	}
	st.failed = e.failedSnapshot()
	st.memory = e.cluster.MemoryByDataflow()
	st.built = e.cluster.Built()
	st.reading = map[dataflow.ID][2]int64{}
	for _, d := range st.dataflows {
		read, toRead, _ := e.cluster.Reading(d)
		st.reading[d] = [2]int64{read, toRead}
	}
	e.readsMu.Lock()
	for id := range e.creating {
		st.creating[id] = true
	}
	for r := range e.reads {
		if r.dataflow != 0 {
			st.reads = append(st.reads, readInfo{dataflow: r.dataflow, kind: r.kind, what: r.what})
		}
	}
	e.readsMu.Unlock()
	st.sessions = e.sessionInfos()
	var ids []uint64
	for id := range st.dataflows {
		if o := st.byID[id]; o != nil && !isSystemTable(id) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	// Exec returns early if ctx ends first, and the workers that have not
	// run the function yet run it later: once it has returned, abandoned
	// keeps them from writing what the caller now reads.
	var mu sync.Mutex
	abandoned := false
	defer func() {
		mu.Lock()
		abandoned = true
		mu.Unlock()
	}()
	_ = e.cluster.Exec(ctx, func(w int) bool {
		local := map[uint64]traceInfo{}
		for _, id := range ids {
			tr, err := e.reg.Trace(arrange.GlobalID(id), w)
			if err != nil {
				continue
			}
			local[id] = traceInfo{records: tr.Len(), batches: tr.BatchCount(), leases: tr.Leases(),
				bytes: tr.SharedBytes(), mergePending: tr.MergePending(), since: tr.Since(), upper: tr.Upper(),
				importers: e.reg.ImportSinces(arrange.GlobalID(id), w)}
		}
		mu.Lock()
		defer mu.Unlock()
		if abandoned {
			return true
		}
		for id, ti := range local {
			if st.traces[id] == nil {
				st.traces[id] = make([]traceInfo, e.workers)
			}
			st.traces[id][w] = ti
		}
		return true
	})
	return st
}

// objectState is an object's state: running, hydrating or failed; a
// view, a sequence, a schema has no dataflow and is "defined".
func (st *engineState) objectState(o *catalog.Object) string {
	switch {
	case st.failed[o.ID] != nil:
		return "failed"
	case st.creating[o.ID]:
		return "hydrating"
	case st.dataflows[o.ID] != 0:
		return "running"
	}
	return "defined"
}

// byDataflow maps each table's, view's and index's dataflow to it.
func (st *engineState) byDataflow() map[dataflow.ID]*catalog.Object {
	out := make(map[dataflow.ID]*catalog.Object, len(st.dataflows))
	for id, d := range st.dataflows {
		if o := st.byID[id]; o != nil {
			out[d] = o
		}
	}
	return out
}

// visible lists the relations, indexes and sequences of every
// database, by id.
func (st *engineState) visible() []*catalog.Object {
	var out []*catalog.Object
	for _, o := range st.objects {
		if isSystemTable(o.ID) {
			continue
		}
		switch o.Kind {
		case catalog.Table, catalog.View, catalog.MaterializedView, catalog.Index, catalog.Sequence:
			out = append(out, o)
		}
	}
	slices.SortFunc(out, func(a, b *catalog.Object) int { return cmpUint(a.ID, b.ID) })
	return out
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (st *engineState) internalObjects() []dbRow {
	var rows []dbRow
	for _, o := range st.visible() {
		df := sqlNull
		if d := st.dataflows[o.ID]; d != 0 {
			df = sqlInt(uint64(d))
		}
		owner := sqlNull
		if o.Owner != "" {
			owner = sqlText(o.Owner)
		}
		rows = append(rows, dbRow{o.Database, []string{sqlInt(o.ID), sqlInt(relationOID(o.ID)), sqlText(o.Schema), sqlText(o.Name),
			sqlText(o.Kind.String()), owner, df, sqlText(st.objectState(o))}})
	}
	return rows
}

func (st *engineState) internalDependencies() []dbRow {
	var rows []dbRow
	for _, o := range st.visible() {
		for _, d := range objectDeps(o) {
			if t := st.byID[d]; t != nil {
				rows = append(rows, dbRow{o.Database, []string{sqlInt(o.ID), sqlText(o.Name), sqlInt(d), sqlText(t.Name)}})
			}
		}
	}
	return rows
}

func (st *engineState) internalDataflows() []dbRow {
	var rows []dbRow
	workers := sqlInt(st.workers)
	for _, o := range st.visible() {
		d := st.dataflows[o.ID]
		if d == 0 {
			continue
		}
		rows = append(rows, dbRow{o.Database, []string{sqlInt(uint64(d)), sqlInt(o.ID), sqlText(o.Name), sqlText(o.Kind.String()),
			sqlText(st.objectState(o)), workers, sqlInt(st.memory[d]), sqlNull, st.builtAt(d)}})
	}
	for _, r := range st.reads {
		kind, state := r.kind, "running"
		if kind == "" {
			kind = "transient"
		}
		if kind == "hydration" {
			continue // the object's own dataflow, listed above
		}
		what := sqlNull
		if r.what != "" {
			what = sqlText(r.what)
		}
		rows = append(rows, dbRow{"", []string{sqlInt(uint64(r.dataflow)), sqlNull, sqlNull, sqlText(kind), sqlText(state),
			workers, sqlInt(st.memory[r.dataflow]), what, st.builtAt(r.dataflow)}})
	}
	return rows
}

// builtAt is when dataflow d was built, as a timestamptz literal; NULL
// if it has ended.
func (st *engineState) builtAt(d dataflow.ID) string {
	t, ok := st.built[d]
	if !ok {
		return sqlNull
	}
	return sqlMillis(uint64(t.UnixMilli()))
}

func (st *engineState) internalArrangements() []dbRow {
	var rows []dbRow
	for _, o := range st.visible() {
		for w, ti := range st.traces[o.ID] {
			rows = append(rows, dbRow{o.Database, []string{sqlInt(o.ID), sqlText(o.Name), strconv.Itoa(w), sqlInt(ti.records),
				sqlInt(ti.batches), sqlInt(ti.bytes), sqlInt(ti.leases), sqlTime(ti.since), sqlTime(ti.upper),
				sqlInt(ti.mergePending)}})
		}
	}
	return rows
}

func (st *engineState) internalFrontiers() []dbRow {
	var rows []dbRow
	for _, o := range st.visible() {
		if t, ok := st.totals(o.ID); ok {
			rows = append(rows, dbRow{o.Database, []string{sqlInt(o.ID), sqlText(o.Name), sqlTime(t.upper), sqlTime(t.since), sqlInt(t.lag)}})
		}
	}
	return rows
}

func (st *engineState) internalHydration() []dbRow {
	var rows []dbRow
	for _, o := range st.visible() {
		if o.Kind != catalog.MaterializedView && o.Kind != catalog.Index {
			continue
		}
		hydrated := "true"
		if st.creating[o.ID] || st.failed[o.ID] != nil {
			hydrated = "false"
		}
		read, toRead := sqlNull, sqlNull
		if d := st.dataflows[o.ID]; d != 0 {
			r := st.reading[d]
			read, toRead = sqlInt(min(r[0], r[1])), sqlInt(r[1])
		}
		rows = append(rows, dbRow{o.Database, []string{sqlInt(o.ID), sqlText(o.Name), hydrated, read, toRead}})
	}
	return rows
}

// sessionInfos lists the live sessions of the engine's backends, by
// process id.
func (e *Engine) sessionInfos() []sessionInfo {
	e.backendsMu.Lock()
	backends := slices.Clone(e.backends)
	e.backendsMu.Unlock()
	var out []sessionInfo
	for _, b := range backends {
		for _, s := range b.liveSessions() {
			a := &s.activity
			a.mu.Lock()
			si := sessionInfo{pid: s.key.ProcessID, database: s.database, user: s.startup.User, app: a.appName,
				state: a.state, statement: a.query, backendStart: a.backendStart, statementStart: a.queryStart}
			a.mu.Unlock()
			if tcp, ok := s.startup.RemoteAddr.(*net.TCPAddr); ok {
				si.addr = tcp.IP.String()
			}
			out = append(out, si)
		}
	}
	slices.SortFunc(out, func(x, y sessionInfo) int { return cmpUint(uint64(x.pid), uint64(y.pid)) })
	return out
}

// internalSessions shows every session, in every database, as
// pg_stat_activity does.
func (st *engineState) internalSessions() []dbRow {
	text := func(s string) string {
		if s == "" {
			return sqlNull
		}
		return sqlText(s)
	}
	var rows []dbRow
	for _, si := range st.sessions {
		rows = append(rows, dbRow{"", []string{sqlInt(si.pid), sqlText(si.database), sqlText(si.user), text(si.app),
			text(si.addr), sqlText(si.state), text(si.statement), sqlMillis(si.backendStart), sqlMillis(si.statementStart)}})
	}
	return rows
}

// sqlMillis is a time in milliseconds since the Unix epoch as a
// timestamptz literal, NULL for 0.
func sqlMillis(ms uint64) string {
	if ms == 0 {
		return sqlNull
	}
	return sqlText(repr.FormatText(repr.NewTimestampTZ(int64(ms)*1000 - unixToPostgresMicros)))
}

// sqlMs is a duration in milliseconds, to the microsecond.
func sqlMs(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', -1, 64)
}

// sqlTime is a timestamp as a numeric literal.
func sqlTime(t uint64) string { return strconv.FormatUint(t, 10) }

// explainView runs EXPLAIN MATERIALIZED VIEW name: the view's plan as its
// dataflow was built (planned again from its definition, with the search
// path and time zone it was created with), the arrangements it imports,
// the one it exports (records and bytes, summed over the workers) and
// the dataflows that import that.
func (s *Session) explainView(ctx context.Context, st *planner.ExplainView) (result, error) {
	var o *catalog.Object
	err := s.engine.Catalog(func(c *catalog.Catalog) error {
		var err error
		o, err = s.lookupIn(c, st.Name, s.searchPath())
		return err
	})
	if err != nil {
		return result{}, err
	}
	if o.Kind != catalog.MaterializedView {
		return result{}, sqlerr.New(sqlerr.WrongObjectType, "%q is not a materialized view", o.Name)
	}
	planning := &Session{engine: s.engine, backend: s.backend, database: o.Database, settings: settingsIn(o.TimeZone)}
	if o.SearchPath != "" {
		planning.settings["search_path"] = o.SearchPath
	}
	stmts, err := planner.Plan(planning.catalog(), fmt.Sprintf("EXPLAIN CREATE MATERIALIZED VIEW %s AS %s", quoteIdent(o.Name), o.SQL))
	if err != nil {
		return result{}, err
	}
	ex, ok := stmts[0].(*planner.Explain)
	if !ok {
		return result{}, sqlerr.AssertionFailedf("EXPLAIN of %s planned as %T", o.Name, stmts[0])
	}
	res, err := s.explain(ctx, ex)
	if err != nil {
		return result{}, err
	}
	state := s.engine.introspect(ctx)
	var records, bytes int64
	for _, ti := range state.traces[o.ID] {
		records += int64(ti.records)
		bytes += ti.bytes
	}
	line := func(format string, args ...any) {
		res.rows = append(res.rows, [][]byte{[]byte(fmt.Sprintf(format, args...))})
	}
	if d := state.dataflows[o.ID]; d != 0 {
		line("Dataflow %d: %s, %d bytes held", d, state.objectState(o), state.memory[d])
	}
	line("Exports materialized view %s (g%d): %d records, %d bytes", o.Name, o.ID, records, bytes)
	byDataflow := state.byDataflow()
	for _, d := range s.engine.reg.Importers(arrange.GlobalID(o.ID)) {
		if obj := byDataflow[d]; obj != nil {
			line("Imported by %s %s (dataflow %d)", obj.Kind.String(), obj.Name, d)
		} else {
			line("Imported by dataflow %d (transient)", d)
		}
	}
	return res, nil
}

// graphs reads the graphs of every dataflow st knows (worker 0's).
func (st *engineState) graphs() ([]dataflow.ID, map[dataflow.ID]dataflow.Graph) {
	var ids []dataflow.ID
	for _, d := range st.dataflows {
		ids = append(ids, d)
	}
	for _, r := range st.reads {
		ids = append(ids, r.dataflow)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	gs, _ := st.e.cluster.Graphs(context.Background(), ids)
	return ids, gs
}

func (st *engineState) internalOperators() []dbRow {
	ids, gs := st.graphs()
	var rows []dbRow
	for _, id := range ids {
		for _, op := range gs[id].Operators {
			rows = append(rows, dbRow{"", []string{sqlInt(uint64(id)), sqlInt(op.Index), sqlText(op.Name),
				sqlInt(op.Inputs), sqlInt(op.Outputs), sqlInt(op.Queued),
				sqlInt(op.Schedules), sqlMs(op.Busy), sqlMs(op.Longest)}})
		}
	}
	return rows
}

func (st *engineState) internalChannels() []dbRow {
	ids, gs := st.graphs()
	var rows []dbRow
	for _, id := range ids {
		for _, c := range gs[id].Channels {
			rows = append(rows, dbRow{"", []string{sqlInt(uint64(id)), sqlInt(c.ID), sqlInt(c.From), sqlInt(c.FromPort),
				sqlInt(c.To), sqlInt(c.ToPort), sqlText(c.Pact)}})
		}
	}
	return rows
}

// importers returns, for each exported object, the dataflows importing
// its arrangement now.
func (st *engineState) importers() ([]*catalog.Object, map[uint64][]dataflow.ID) {
	var objs []*catalog.Object
	out := map[uint64][]dataflow.ID{}
	for _, o := range st.visible() {
		if st.dataflows[o.ID] == 0 {
			continue
		}
		objs = append(objs, o)
		out[o.ID] = st.e.reg.Importers(arrange.GlobalID(o.ID))
	}
	return objs, out
}

func (st *engineState) internalExports() []dbRow {
	objs, imps := st.importers()
	var rows []dbRow
	for _, o := range objs {
		rows = append(rows, dbRow{o.Database, []string{sqlInt(o.ID), sqlText(o.Name), sqlInt(uint64(st.dataflows[o.ID])), sqlInt(len(imps[o.ID]))}})
	}
	return rows
}

func (st *engineState) internalImports() []dbRow {
	objs, imps := st.importers()
	byDataflow := st.byDataflow()
	var rows []dbRow
	for _, o := range objs {
		for _, d := range imps[o.ID] {
			importerID, importer := sqlNull, sqlNull
			if im := byDataflow[d]; im != nil {
				importerID, importer = sqlInt(im.ID), sqlText(im.Name)
			}
			// The lease's since, the least over the workers: how far the
			// importer lets the arrangement compact.
			since, seen := uint64(0), false
			for _, ti := range st.traces[o.ID] {
				if s, ok := ti.importers[d]; ok && (!seen || s < since) {
					since, seen = s, true
				}
			}
			leaseSince := sqlNull
			if seen {
				leaseSince = sqlTime(since)
			}
			rows = append(rows, dbRow{o.Database, []string{sqlInt(uint64(d)), importerID, importer, sqlInt(o.ID), sqlText(o.Name), leaseSince}})
		}
	}
	return rows
}
