package chaos

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"freshet/catalog"
	"freshet/coord"
	"freshet/pgwire"
	"freshet/sqlerr"
	"freshet/storage"
)

var (
	seedFlag  = flag.Uint64("chaos.seed", 1, "seed of the chaos test's choices")
	stepsFlag = flag.Int("chaos.steps", 0, "statements the sessions issue in all; 0 picks the default run's")
)

const (
	sessions = 4
	// roundSteps is how many statements each session issues between two
	// checkpoints.
	roundSteps = 40
	// restartEvery is how many rounds pass between restarts.
	restartEvery = 3
	// stmtTimeout bounds every statement; one that has not returned a
	// little after it is a hang.
	stmtTimeout = 60 * time.Second
	// goroutineSlack is how far the goroutine count may rise above its
	// baseline at a checkpoint.
	goroutineSlack = 64
	// heapSlack is how far the heap may stay above its baseline once
	// everything is dropped: the in-memory filesystem keeps the store's
	// files, which grow with the writes.
	heapSlack = 256 << 20
	dataDir   = "/data"
)

func defaultSteps() int {
	if raceEnabled || testing.Short() {
		return 1600
	}
	return 8000
}

// row is a row of a table: every relation in the test has columns a and b.
type row [2]int64

type stats struct {
	statements, drops, faults, cleanRestarts, killRestarts atomic.Int64
	errored, failedReads, mismatches, hangs, checkpoints   atomic.Int64
}

// harness is the engine under test, the model of acknowledged table
// contents and the names the sessions choose from.
type harness struct {
	t     *testing.T
	fs    *vfs.MemFS
	store *storage.Store
	e     *coord.Engine
	b     *coord.Backend
	st    stats
	// log keeps the engine's warnings and errors, shown after a mismatch.
	log logTail

	mu struct {
		sync.Mutex
		// tables holds each table's acknowledged contents. Invariant:
		// only the session that created a table writes or drops it, so
		// its statements reach the model in the order they took effect.
		tables map[string]map[row]int
		// kinds holds the objects the sessions believe exist, by name;
		// it may be stale between checkpoints.
		kinds map[string]catalog.Kind
		next  int
	}
}

func TestChaos(t *testing.T) {
	seed := *seedFlag
	steps := *stepsFlag
	if steps == 0 {
		steps = defaultSteps()
	}
	t.Logf("seed %d, %d steps; replay: go test ./tests/chaos/ -run TestChaos -v -chaos.seed=%d -chaos.steps=%d", seed, steps, seed, steps)
	h := &harness{t: t, fs: vfs.NewCrashableMem()}
	h.mu.tables = map[string]map[row]int{}
	h.mu.kinds = map[string]catalog.Kind{}
	h.open(h.fs)
	defer func() {
		h.e.Close()
		h.store.Close()
	}()
	rng := rand.New(rand.NewPCG(seed, 0))
	rngs := make([]*rand.Rand, sessions)
	for i := range rngs {
		rngs[i] = rand.New(rand.NewPCG(seed, uint64(i+1)))
	}

	heapBefore := heapAlloc()
	goBefore := runtime.NumGoroutine()
	goMax := goBefore

	rounds := (steps + sessions*roundSteps - 1) / (sessions * roundSteps)
	for round := 1; round <= rounds && !t.Failed(); round++ {
		var wg sync.WaitGroup
		for i := 0; i < sessions; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				h.runSession(i, rngs[i])
			}()
		}
		wg.Wait()
		if t.Failed() {
			break
		}
		h.checkpoint(rng)
		if n := h.settledGoroutines(goBefore + goroutineSlack); n > goMax {
			goMax = n
		}
		if round%restartEvery == 0 && round < rounds {
			h.restart(rng.IntN(2) == 0, rng)
			h.checkpoint(rng)
		}
	}
	if t.Failed() {
		h.report(seed, steps, heapBefore, 0, goBefore, goMax)
		return
	}

	h.dropEverything()
	goAfter := h.settledGoroutines(goBefore + goroutineSlack)
	heapAfter := heapAlloc()
	h.report(seed, steps, heapBefore, heapAfter, goBefore, goAfter)
	t.Logf("goroutines: at most %d at a checkpoint", goMax)
	if heapAfter > heapBefore+heapSlack {
		t.Errorf("heap after dropping everything is %d bytes, baseline %d: more than %d above", heapAfter, heapBefore, heapSlack)
	}
}

func (h *harness) report(seed uint64, steps int, heapBefore, heapAfter uint64, goBefore, goAfter int) {
	s := &h.st
	h.t.Logf("seed %d: %d statements (%d errors with a SQLSTATE, %d reads of failed objects), %d drops, restarts %d clean / %d kill, %d faults injected, %d checkpoints, %d mismatches, %d hangs; heap %.1f MiB before, %.1f MiB after; goroutines %d before, %d after",
		seed, s.statements.Load(), s.errored.Load(), s.failedReads.Load(), s.drops.Load(),
		s.cleanRestarts.Load(), s.killRestarts.Load(), s.faults.Load(), s.checkpoints.Load(),
		s.mismatches.Load(), s.hangs.Load(), float64(heapBefore)/(1<<20), float64(heapAfter)/(1<<20), goBefore, goAfter)
}

func heapAlloc() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// settledGoroutines waits a while for the goroutine count to fall to
// limit or below, and fails the test if it does not.
func (h *harness) settledGoroutines(limit int) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(10 * time.Second); n > limit && time.Now().Before(deadline); n = runtime.NumGoroutine() {
		time.Sleep(50 * time.Millisecond)
	}
	if n > limit {
		h.t.Errorf("%d goroutines at a checkpoint, limit %d", n, limit)
	}
	return n
}

// open starts the engine on fs. Every open must succeed.
func (h *harness) open(fs *vfs.MemFS) {
	h.t.Helper()
	ctx := context.Background()
	store, err := storage.Open(dataDir, storage.Options{FS: fs})
	if err != nil {
		h.t.Fatalf("opening the store: %v", err)
	}
	log := slog.New(slog.NewTextHandler(&h.log, &slog.HandlerOptions{Level: slog.LevelWarn}))
	e, err := coord.Open(ctx, coord.Config{Workers: 2, Store: store, FaultInjection: true, Logger: log}, coord.Rebuild(ctx))
	if err != nil {
		h.t.Fatalf("opening the engine: %v", err)
	}
	if err := coord.RestoreDefaults(e); err != nil {
		h.t.Fatalf("restoring defaults: %v", err)
	}
	h.fs, h.store, h.e, h.b = fs, store, e, coord.NewBackend(e)
}

// restart closes and reopens the engine (clean), or reopens it on a
// crash clone of the filesystem and only then closes the abandoned one
// (kill).
func (h *harness) restart(clean bool, rng *rand.Rand) {
	if clean {
		h.st.cleanRestarts.Add(1)
		h.e.Close()
		if err := h.store.Close(); err != nil {
			h.t.Fatalf("closing the store: %v", err)
		}
		h.open(h.fs)
		return
	}
	h.st.killRestarts.Add(1)
	oldE, oldStore := h.e, h.store
	cfg := vfs.CrashCloneCfg{}
	if rng.IntN(2) == 0 {
		cfg = vfs.CrashCloneCfg{UnsyncedDataPercent: 50, RNG: newMathRand(rng.Int64())}
	}
	clone := h.fs.CrashClone(cfg)
	h.open(clone)
	oldE.Close()
	oldStore.Close()
}

// recorder collects a statement's rows.
type recorder struct{ rows []string }

func (r *recorder) Row(values [][]byte) error {
	vals := make([]string, len(values))
	for i, v := range values {
		vals[i] = "NULL"
		if v != nil {
			vals[i] = string(v)
		}
	}
	r.rows = append(r.rows, strings.Join(vals, ","))
	return nil
}
func (r *recorder) Notice(*sqlerr.Error) error                   { return nil }
func (r *recorder) Flush() error                                 { return nil }
func (r *recorder) CopyIn(pgwire.CopyFormat) (io.Reader, error)  { return strings.NewReader(""), nil }
func (r *recorder) CopyOut(pgwire.CopyFormat) (io.Writer, error) { return io.Discard, nil }
func (r *recorder) Describe([]pgwire.Column) error               { return nil }
func (r *recorder) Complete(string) error                        { return nil }

func (h *harness) session() *coord.Session {
	s, err := h.b.NewSession(context.Background(), pgwire.Startup{User: "chaos", Database: catalog.DefaultDatabase})
	if err != nil {
		h.t.Fatalf("new session: %v", err)
	}
	return s.(*coord.Session)
}

// exec runs sql and checks that it ended in time with success or a
// SQLSTATE; it returns the sorted rows and the error's code ("" for
// success). ok is false after a hang: the caller stops.
func (h *harness) exec(s *coord.Session, sql string) (rows []string, code string, ok bool) {
	h.st.statements.Add(1)
	ctx, cancel := context.WithTimeout(context.Background(), stmtTimeout)
	defer cancel()
	r := &recorder{}
	done := make(chan error, 1)
	go func() { done <- s.Query(ctx, sql, r) }()
	var err error
	select {
	case err = <-done:
	case <-time.After(stmtTimeout + 15*time.Second):
		h.st.hangs.Add(1)
		h.t.Errorf("hang: %s did not return within %v of its deadline", sql, stmtTimeout)
		return nil, "", false
	}
	if ctx.Err() != nil {
		h.st.hangs.Add(1)
		h.t.Errorf("hang: %s ran into its %v deadline (%v)", sql, stmtTimeout, err)
		return nil, "", false
	}
	if err == nil {
		slices.Sort(r.rows)
		return r.rows, "", true
	}
	h.st.errored.Add(1)
	var se *sqlerr.Error
	if !errors.As(err, &se) || se.Code == "" {
		h.t.Errorf("%s: error without a SQLSTATE: %v; catalog: %s", sql, err, h.catalogDump())
		h.t.Logf("the engine's last warnings and errors:\n%s", h.log.String())
		return nil, sqlerr.InternalError, true
	}
	if se.Code == sqlerr.InternalError && h.st.faults.Load() == 0 {
		h.t.Errorf("%s: XX000 with no fault injected: %v", sql, err)
	}
	return nil, se.Code, true
}

// failedCode reports whether code is what a read of a failed object, or
// of one over it, gives.
func failedCode(code string) bool {
	return code == sqlerr.InternalError || code == sqlerr.ObjectNotInPrerequisiteState
}

// pick returns a random name of one of kinds, or "".
func (h *harness) pick(rng *rand.Rand, kinds ...catalog.Kind) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var names []string
	for n, k := range h.mu.kinds {
		if slices.Contains(kinds, k) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	return names[rng.IntN(len(names))]
}

// ownTable returns a random table session i created, or "".
func (h *harness) ownTable(i int, rng *rand.Rand) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	prefix := fmt.Sprintf("t%d_", i)
	var names []string
	for n := range h.mu.tables {
		if strings.HasPrefix(n, prefix) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	return names[rng.IntN(len(names))]
}

func (h *harness) newName(prefix string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.mu.next++
	return fmt.Sprintf("%s%d", prefix, h.mu.next)
}

func (h *harness) created(name string, k catalog.Kind) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.mu.kinds[name] = k
	if k == catalog.Table {
		h.mu.tables[name] = map[row]int{}
	}
}

var relations = []catalog.Kind{catalog.Table, catalog.View, catalog.MaterializedView}

// viewQuery returns a random query over one or two existing relations.
func (h *harness) viewQuery(rng *rand.Rand) string {
	x := h.pick(rng, relations...)
	if x == "" {
		return ""
	}
	switch rng.IntN(5) {
	case 0:
		return fmt.Sprintf("SELECT a, b FROM %s WHERE b > %d", x, rng.IntN(50))
	case 1:
		y := h.pick(rng, relations...)
		return fmt.Sprintf("SELECT l.a, l.b FROM %s AS l JOIN %s AS r ON l.a = r.a WHERE r.b < %d", x, y, 20+rng.IntN(80))
	case 2:
		return fmt.Sprintf("SELECT a, count(*) AS b FROM %s GROUP BY a", x)
	case 3:
		return fmt.Sprintf("SELECT a, sum(a) AS b FROM %s WHERE b %% 2 = %d GROUP BY a", x, rng.IntN(2))
	default:
		return fmt.Sprintf("SELECT a, b + 1 AS b FROM %s", x)
	}
}

// runSession issues roundSteps random statements on a new session as
// session i.
func (h *harness) runSession(i int, rng *rand.Rand) {
	s := h.session()
	defer s.Close()
	for step := 0; step < roundSteps; step++ {
		if !h.step(i, s, rng) {
			return
		}
	}
}

func (h *harness) step(i int, s *coord.Session, rng *rand.Rand) bool {
	switch n := rng.IntN(100); {
	case n < 6:
		name := h.newName(fmt.Sprintf("t%d_", i))
		_, code, ok := h.exec(s, fmt.Sprintf("CREATE TABLE %s (a int, b int)", name))
		if code == "" && ok {
			h.created(name, catalog.Table)
		}
		return ok
	case n < 30:
		t := h.ownTable(i, rng)
		if t == "" {
			return true
		}
		var rows []row
		var vals []string
		for k := 1 + rng.IntN(4); k > 0; k-- {
			r := row{rng.Int64N(10), rng.Int64N(100)}
			rows = append(rows, r)
			vals = append(vals, fmt.Sprintf("(%d, %d)", r[0], r[1]))
		}
		_, code, ok := h.exec(s, fmt.Sprintf("INSERT INTO %s VALUES %s", t, strings.Join(vals, ", ")))
		if code == "" && ok {
			h.mu.Lock()
			for _, r := range rows {
				h.mu.tables[t][r]++
			}
			h.mu.Unlock()
		}
		return ok
	case n < 38:
		t := h.ownTable(i, rng)
		if t == "" {
			return true
		}
		a := rng.Int64N(10)
		_, code, ok := h.exec(s, fmt.Sprintf("UPDATE %s SET b = b + 1 WHERE a = %d", t, a))
		if code == "" && ok {
			h.mu.Lock()
			m := h.mu.tables[t]
			next := map[row]int{}
			for r, c := range m {
				if r[0] == a {
					r[1]++
				}
				next[r] += c
			}
			h.mu.tables[t] = next
			h.mu.Unlock()
		}
		return ok
	case n < 44:
		t := h.ownTable(i, rng)
		if t == "" {
			return true
		}
		a := rng.Int64N(10)
		_, code, ok := h.exec(s, fmt.Sprintf("DELETE FROM %s WHERE a = %d", t, a))
		if code == "" && ok {
			h.mu.Lock()
			for r := range h.mu.tables[t] {
				if r[0] == a {
					delete(h.mu.tables[t], r)
				}
			}
			h.mu.Unlock()
		}
		return ok
	case n < 58:
		x := h.pick(rng, relations...)
		if x == "" {
			return true
		}
		_, _, ok := h.exec(s, fmt.Sprintf("SELECT a, b FROM %s", x))
		return ok
	case n < 78:
		q := h.viewQuery(rng)
		if q == "" {
			return true
		}
		kind, word, prefix := catalog.View, "VIEW", "v"
		if rng.IntN(2) == 0 {
			kind, word, prefix = catalog.MaterializedView, "MATERIALIZED VIEW", "m"
		}
		name := h.newName(prefix)
		_, code, ok := h.exec(s, fmt.Sprintf("CREATE %s %s AS %s", word, name, q))
		if code == "" && ok {
			h.created(name, kind)
		}
		return ok
	case n < 85:
		x := h.pick(rng, relations...)
		if x == "" {
			return true
		}
		name := h.newName("i")
		col := []string{"a", "b", "a, b"}[rng.IntN(3)]
		_, code, ok := h.exec(s, fmt.Sprintf("CREATE INDEX %s ON %s (%s)", name, x, col))
		if code == "" && ok {
			h.created(name, catalog.Index)
		}
		return ok
	case n < 97:
		return h.dropRandom(i, s, rng)
	default:
		x := h.pick(rng, catalog.Table, catalog.MaterializedView, catalog.Index)
		if x == "" {
			return true
		}
		h.st.faults.Add(1)
		_, _, ok := h.exec(s, fmt.Sprintf("SET freshet_inject_fault = '%s:%d'", x, rng.IntN(2)))
		return ok
	}
}

func kindWord(k catalog.Kind) string {
	switch k {
	case catalog.Table:
		return "TABLE"
	case catalog.View:
		return "VIEW"
	case catalog.MaterializedView:
		return "MATERIALIZED VIEW"
	default:
		return "INDEX"
	}
}

// dropRandom drops a random view, materialized view or index, or one of
// session i's tables, with or without CASCADE.
func (h *harness) dropRandom(i int, s *coord.Session, rng *rand.Rand) bool {
	var name string
	var kind catalog.Kind
	if rng.IntN(4) == 0 {
		name, kind = h.ownTable(i, rng), catalog.Table
	} else {
		name = h.pick(rng, catalog.View, catalog.MaterializedView, catalog.Index)
		h.mu.Lock()
		kind = h.mu.kinds[name]
		h.mu.Unlock()
	}
	if name == "" {
		return true
	}
	cascade := ""
	if rng.IntN(2) == 0 {
		cascade = " CASCADE"
	}
	_, code, ok := h.exec(s, fmt.Sprintf("DROP %s %s%s", kindWord(kind), name, cascade))
	if kind == catalog.Table && code != "" && code != "2BP01" {
		h.t.Logf("DROP TABLE %s%s: %s", name, cascade, code)
	}
	switch {
	case !ok:
	case code == "":
		h.st.drops.Add(1)
		h.mu.Lock()
		delete(h.mu.kinds, name)
		if kind == catalog.Table {
			delete(h.mu.tables, name)
		}
		h.mu.Unlock()
	case code == "42P01" || code == "42704":
		h.mu.Lock()
		if kind != catalog.Table {
			delete(h.mu.kinds, name)
		}
		h.mu.Unlock()
	}
	return ok
}

type object struct {
	name string
	kind catalog.Kind
	sql  string
}

func (h *harness) objects() []object {
	var objs []object
	h.e.Catalog(func(c *catalog.Catalog) error {
		for _, o := range c.Objects() {
			if o.Database != catalog.DefaultDatabase || o.Schema != catalog.DefaultSchema {
				continue
			}
			if o.Kind.IsRelation() || o.Kind == catalog.Index {
				objs = append(objs, object{o.Name, o.Kind, o.SQL})
			}
		}
		return nil
	})
	sort.Slice(objs, func(i, j int) bool { return objs[i].name < objs[j].name })
	return objs
}

// catalogDump lists the catalog's objects with their ids, for a failure
// report that names an internal id.
func (h *harness) catalogDump() string {
	var b strings.Builder
	h.e.Catalog(func(c *catalog.Catalog) error {
		for _, o := range c.Objects() {
			fmt.Fprintf(&b, "%d=%s %s on=%d deps=%v sql=%q; ", o.ID, o.Kind, o.Name, o.On, o.DependsOn, o.SQL)
		}
		return nil
	})
	return b.String()
}

func (h *harness) mismatch(format string, args ...any) {
	h.st.mismatches.Add(1)
	h.t.Errorf(format, args...)
	h.t.Logf("the engine's last warnings and errors:\n%s", h.log.String())
}

// logTail keeps the last lines written to it that are not about a
// failure the test injected.
type logTail struct {
	mu    sync.Mutex
	lines []string
}

func (l *logTail) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	line := string(p)
	if strings.Contains(line, `msg="dataflow failed"`) && strings.Contains(line, "injected fault") {
		return len(p), nil
	}
	l.lines = append(l.lines, line)
	if len(l.lines) > 20 {
		l.lines = l.lines[1:]
	}
	return len(p), nil
}

func (l *logTail) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "")
}

// checkpoint runs with every session stopped: it compares every table
// with the model and every view with its query run from scratch, checks
// the audit, and drops some failed objects.
func (h *harness) checkpoint(rng *rand.Rand) {
	h.st.checkpoints.Add(1)
	s := h.session()
	defer s.Close()
	objs := h.objects()
	h.mu.Lock()
	h.mu.kinds = map[string]catalog.Kind{}
	inCatalog := map[string]bool{}
	for _, o := range objs {
		h.mu.kinds[o.name] = o.kind
		inCatalog[o.name] = true
	}
	for name := range h.mu.tables {
		if !inCatalog[name] {
			h.mismatch("table %s, created and never dropped, is missing from the catalog", name)
		}
	}
	model := map[string][]string{}
	for name, m := range h.mu.tables {
		var rows []string
		for r, c := range m {
			for ; c > 0; c-- {
				rows = append(rows, fmt.Sprintf("%d,%d", r[0], r[1]))
			}
		}
		slices.Sort(rows)
		model[name] = rows
	}
	h.mu.Unlock()

	var failed []object
	for _, o := range objs {
		if o.kind == catalog.Index {
			continue
		}
		got, code, ok := h.exec(s, fmt.Sprintf("SELECT a, b FROM %s", o.name))
		if !ok {
			return
		}
		if code != "" {
			if !failedCode(code) || h.st.faults.Load() == 0 {
				h.mismatch("read of %s %s at a checkpoint: %s", o.kind, o.name, code)
			}
			h.st.failedReads.Add(1)
			if code == sqlerr.InternalError {
				failed = append(failed, o)
			}
			continue
		}
		if o.kind == catalog.Table {
			want, known := model[o.name]
			if !known {
				h.mismatch("table %s is in the catalog but its CREATE was never acknowledged", o.name)
				continue
			}
			if !slices.Equal(got, want) {
				h.mismatch("table %s holds %v, acknowledged writes give %v", o.name, got, want)
			}
			continue
		}
		want, code, ok := h.exec(s, o.sql)
		if !ok {
			return
		}
		if code != "" {
			h.mismatch("%s %s reads fine but its query %q fails with %s", o.kind, o.name, o.sql, code)
			continue
		}
		if !slices.Equal(got, want) {
			h.mismatch("%s %s holds %v, its query %q gives %v", o.kind, o.name, got, o.sql, want)
		}
	}
	if err := h.e.Audit(); err != nil {
		h.mismatch("audit: %v", err)
	}
	for _, o := range failed {
		if rng.IntN(2) == 0 {
			continue
		}
		_, code, ok := h.exec(s, fmt.Sprintf("DROP %s %s CASCADE", kindWord(o.kind), o.name))
		if !ok {
			return
		}
		if code != "" && code != "42P01" && code != "42704" {
			h.mismatch("DROP of failed %s %s: %s", o.kind, o.name, code)
			continue
		}
		h.st.drops.Add(1)
		h.mu.Lock()
		delete(h.mu.kinds, o.name)
		delete(h.mu.tables, o.name)
		h.mu.Unlock()
	}
	if err := h.e.Audit(); err != nil {
		h.mismatch("audit after dropping failed objects: %v", err)
	}
}

// dropEverything drops every table with CASCADE, which takes every other
// object with it, and checks that nothing is left.
func (h *harness) dropEverything() {
	s := h.session()
	defer s.Close()
	for _, o := range h.objects() {
		if o.kind != catalog.Table {
			continue
		}
		_, code, ok := h.exec(s, fmt.Sprintf("DROP TABLE %s CASCADE", o.name))
		if !ok {
			return
		}
		if code != "" {
			h.mismatch("DROP TABLE %s CASCADE at the end: %s", o.name, code)
		}
		h.st.drops.Add(1)
	}
	if left := h.objects(); len(left) != 0 {
		h.mismatch("objects left after dropping every table: %v", left)
	}
	if err := h.e.Audit(); err != nil {
		h.mismatch("audit after dropping everything: %v", err)
	}
}
