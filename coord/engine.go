package coord

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/cockroachdb/pebble/v2/vfs"

	"freshet/arrange"
	"freshet/catalog"
	"freshet/compute"
	"freshet/dataflow"
	"freshet/expr"
	"freshet/internal/prefault"
	"freshet/repr"
	"freshet/sqlerr"
	"freshet/storage"
)

// Config configures an Engine.
type Config struct {
	// Workers is the number of dataflow workers; zero means one per core.
	Workers int
	// DataDir is where storage keeps its files.
	DataDir string
	// Store, if set, is used instead of opening DataDir (tests pass an
	// in-memory store).
	Store *storage.Store
	// StorageFS, if set, is the filesystem DataDir is opened in instead of
	// the operating system's (tests inject disk faults).
	StorageFS vfs.FS
	// Metrics, if set, receives what the engine and its sessions observe.
	Metrics *Metrics
	// Logger receives the engine's log lines.
	Logger *slog.Logger
	// OnOpen, if set, is called by a Supervisor each time it has opened
	// an engine: at the start, and after each restart in place.
	OnOpen func()
	// Clock returns the current time in milliseconds; nil means the wall
	// clock.
	Clock func() uint64
	// NoPeek makes every read build a dataflow, even one a peek could
	// answer (tests compare the two).
	NoPeek bool
	// MemoryLimit, if positive, is the live heap in bytes past which the
	// engine cancels transient reads, newest first, with 53200 (see
	// governMemory). Zero means no limit.
	MemoryLimit int64
	// heap, if set, replaces the reading of the live heap that the memory
	// governor compares with MemoryLimit (tests).
	heap func() int64
	// progress, if set, replaces when hydrating creates report their
	// progress (tests).
	progress *progressConfig
	// introspectEvery, if positive, replaces how often the introspection
	// tables are written while something follows them (tests).
	introspectEvery time.Duration
	// logCompactionMin, if positive, replaces logCompactionMin (tests).
	logCompactionMin int64
	// FaultInjection enables SET freshet_inject_fault (see InjectFault),
	// for tests that drive the failure path over SQL. Never in production.
	FaultInjection bool
}

// Engine runs the SQL server's state: the catalog, durable storage, the
// dataflow cluster and the arrangement registry. Every table is a
// dataflow that arranges its updates and exports them; every materialized
// view and index is a dataflow that imports what it reads and exports its
// result; every other read is a transient dataflow.
type Engine struct {
	log      *slog.Logger
	cluster  *dataflow.Cluster
	reg      *arrange.Registry
	store    *storage.Store
	ownStore bool
	// progress is when hydrating creates report their progress.
	progress progressConfig
	workers  int
	noPeek   bool
	// faultInjection is Config.FaultInjection.
	faultInjection bool
	// streamedRows counts the rows that streamed reads (StreamRows) took
	// from their cursors.
	streamedRows atomic.Int64
	// clockSeen is the latest time Clock returned.
	clockSeen atomic.Uint64
	// closed ends the failure watcher.
	closed chan struct{}
	// dmlMu serializes the statements that read tables and then write
	// (UPDATE, DELETE, INSERT … SELECT, COMMIT of a block), so that no
	// write lands between such a statement's read and its write.
	dmlMu waitLock

	// mu serializes DDL and writes: timestamps are handed out and fed to
	// table inputs in order.
	mu     waitLock
	cat    *catalog.Catalog
	oracle oracle
	// pending are the writes that have a timestamp and are not yet fed,
	// in timestamp order; fed is the time of the last write fed, the time
	// reads see; fedCond signals feeding.
	pending []*pendingWrite
	fed     uint64
	fedCond *sync.Cond
	// lastWrite is the time of the last write fed to each table.
	lastWrite map[uint64]uint64
	// splitReadFed counts the writes fed split while they were read
	// (split.go). Guarded by mu.
	splitReadFed int
	// holds counts the reads holding each time against compaction;
	// compacted is the time up to which compaction was last allowed.
	holds     map[uint64]int
	compacted uint64
	tables    map[uint64]*table
	dataflows map[uint64]dataflow.ID
	// under maps each materialized view and index to the tables under
	// its dataflow; companions caches, by table, the tables a write to
	// it advances; eager counts the subscriptions under which each table
	// is, which every write advances (advance.go).
	under      map[uint64][]uint64
	companions map[uint64][]*table
	eager      map[uint64]int
	// retired are the dataflows of indexes dropped while other dataflows
	// still import them, by dataflow: they left the catalog, keep
	// serving (and compacting for) their importers, and are dropped when
	// the last one goes.
	retired map[dataflow.ID]*retiredIndex
	// ending are the dataflows a drop or a failure has decided to end
	// and not yet ended on every worker; each channel is closed when its
	// dataflow is gone. A drop that must end one of their exports first
	// waits for them (see dropDataflows).
	ending map[dataflow.ID]chan struct{}
	// readsMu guards reads: the transient reads in flight, so that a
	// DROP can end the ones that read what it drops.
	readsMu sync.Mutex
	reads   map[*inflightRead]struct{}
	// readSeq numbers reads in the order they start (inflightRead.seq).
	readSeq uint64
	// creating are the creates whose dataflows are hydrating, by object
	// id (see hydrate), under readsMu.
	creating map[uint64]*hydration
	// metrics is Config.Metrics; sessions counts the sessions open.
	metrics  *Metrics
	sessions atomic.Int64
	// memoryOver is set while the heap is over the memory limit with no
	// transient work left to cancel: writes wait (awaitMemory).
	memoryOver atomic.Bool
	// dropping marks the collections a DROP is removing, with the error
	// a read of them gets.
	dropping map[uint64]error
	// failed marks the catalog objects whose dataflows failed (or could
	// not be built at restart), with the error a read of them gets; see
	// handleFailure.
	failed map[uint64]error
	// idxMu guards indexes and viewIndex, which build functions read on
	// worker goroutines while mu is held by the builder's caller. indexes
	// maps each index's id to the relation it is on; a view's first index
	// serves reads of the view (viewIndex).
	idxMu     sync.Mutex
	indexes   map[uint64]uint64
	viewIndex map[uint64]uint64
	// joinable are the indexes keyed by plain columns, which joins in
	// the dataflows of views and indexes built later read instead of
	// arranging their inputs again (compute.Indexes); guarded by idxMu.
	joinable map[uint64]compute.Index
	// indexSince is the time each index's dataflow was built at: its
	// arrangement holds no time before it (peekSourceLocked); guarded
	// by idxMu.
	indexSince map[uint64]uint64
	// defaults holds the DEFAULT scalars of table columns, by table id
	// and column; nil where the default is NULL.
	defaults map[uint64][]expr.Scalar
	// keys holds the unique keys of the tables that have any (unique.go);
	// keysEpoch counts changes to it, so that a writer that computed its
	// key deltas without mu can tell whether they still apply.
	keys      map[uint64]*tableKeys
	keysEpoch uint64
	// sys is what the system tables hold (systables.go).
	sys systemState
	// intro is what the introspection tables hold and who follows them.
	intro introspectState
	// backends are the engine's backends, whose sessions
	// freshet_internal.sessions shows.
	backendsMu sync.Mutex
	backends   []*Backend
	// seqs are the sequences' positions (sequences.go).
	seqs sequences
	// altered maps each table whose rows ALTER TABLE rewrote since the
	// engine started to the time of the last rewrite: reads at earlier
	// times are refused (alter.go). Guarded by mu.
	altered map[uint64]uint64
	// shapes maps each table that ALTER TABLE changed since the engine
	// started to its shape generation, one more at each change; absent
	// is zero. Writes carry the generation they were planned against
	// (TableWrite.Shape). Guarded by mu.
	shapes map[uint64]uint64
	// compactor compacts the tables' logs on disk (log_compaction.go).
	compactor logCompactor
	// quiescing counts the ALTER TABLEs waiting for the writes in flight
	// to drain: while it is not zero, new writes wait before taking a
	// timestamp, so that a steady stream of them cannot keep the ALTER
	// waiting. Guarded by mu; changes are broadcast on fedCond.
	quiescing int
}

// table is a table's dataflow: one input per worker.
type table struct {
	inputs []*dataflow.InputHandle[arrange.Chunk]
	// advanced is the time the inputs were last advanced to (advance.go).
	advanced uint64
}

// Open starts an engine: it opens storage, loads the catalog, rebuilds
// every table from its log and every view and index from its definition.
// rebuild plans a stored view or index again (the coordinator's planner);
// it may be nil when the catalog has none.
func Open(ctx context.Context, cfg Config, rebuild func(e *Engine, o *catalog.Object) error) (*Engine, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	store := cfg.Store
	own := false
	if store == nil {
		var err error
		if store, err = storage.Open(cfg.DataDir, storage.Options{Logger: log, FS: cfg.StorageFS, OnSync: cfg.Metrics.observeSync}); err != nil {
			return nil, err
		}
		own = true
	}
	clock := cfg.Clock
	if clock == nil {
		clock = func() uint64 { return uint64(time.Now().UnixMilli()) }
	}
	e := &Engine{
		progress:       defaultProgress,
		dmlMu:          newWaitLock(),
		mu:             newWaitLock(),
		log:            log,
		cluster:        dataflow.NewCluster(dataflow.Config{Workers: workers}),
		reg:            arrange.NewRegistry(workers),
		store:          store,
		ownStore:       own,
		workers:        workers,
		noPeek:         cfg.NoPeek,
		faultInjection: cfg.FaultInjection,
		tables:         map[uint64]*table{},
		dataflows:      map[uint64]dataflow.ID{},
		retired:        map[dataflow.ID]*retiredIndex{},
		ending:         map[dataflow.ID]chan struct{}{},
		defaults:       map[uint64][]expr.Scalar{},
		keys:           map[uint64]*tableKeys{},
		indexes:        map[uint64]uint64{},
		viewIndex:      map[uint64]uint64{},
		joinable:       map[uint64]compute.Index{},
		indexSince:     map[uint64]uint64{},
		reads:          map[*inflightRead]struct{}{},
		creating:       map[uint64]*hydration{},
		metrics:        cfg.Metrics,
		dropping:       map[uint64]error{},
		failed:         map[uint64]error{},
		lastWrite:      map[uint64]uint64{},
		holds:          map[uint64]int{},
		compactor:      logCompactor{min: cmp.Or(cfg.logCompactionMin, logCompactionMin), logs: map[uint64]*tableLog{}},
	}
	e.closed = make(chan struct{})
	e.cluster.SetDropGuard(e.reg.CheckDrop)
	// A retired index's dataflow goes when its last importer does.
	e.reg.SetOnIdle(e.onRetiredIdle)
	if cfg.progress != nil {
		e.progress = *cfg.progress
	}
	go e.watchFailures()
	every := defaultIntrospectEvery
	if cfg.introspectEvery > 0 {
		every = cfg.introspectEvery
	}
	go e.followIntrospection(every)
	if cfg.MemoryLimit > 0 {
		heap := cfg.heap
		if heap == nil {
			heap = liveHeap
		}
		go e.governMemory(cfg.MemoryLimit, heap)
	}
	upper, err := store.LoadTimestampUpper()
	if err != nil {
		e.Close()
		return nil, err
	}
	e.oracle = oracle{clock: clock, last: upper, upper: upper, persist: store.AllocateTimestamps}
	e.fed = upper
	e.fedCond = sync.NewCond(&e.mu)
	if err := e.load(ctx, rebuild); err != nil {
		e.Close()
		return nil, err
	}
	if err := e.dropLeftoverTemp(ctx); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// load restores the catalog and the dataflows of its objects.
func (e *Engine) load(ctx context.Context, rebuild func(*Engine, *catalog.Object) error) error {
	recs, err := e.store.LoadCatalog()
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		e.cat = catalog.New()
		if err := e.persistCatalog(ctx, e.cat.Objects(), nil); err != nil {
			return err
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		return e.startSystemTablesLocked(ctx)
	}
	objs := make([]*catalog.Object, 0, len(recs))
	for _, r := range recs {
		o, err := catalog.Decode(r.Value)
		if err != nil {
			return err
		}
		objs = append(objs, o)
	}
	if e.cat, err = catalog.Load(objs); err != nil {
		return err
	}
	if v, ok, err := e.store.GetMeta(metaNextObjectID); err != nil {
		return err
	} else if ok && len(v) == 8 {
		e.cat.SetNextID(binary.BigEndian.Uint64(v))
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	// Views over the catalog's relations read the system tables: they
	// hold the catalog before any view is rebuilt.
	if err := e.startSystemTablesLocked(ctx); err != nil {
		return err
	}
	for _, o := range e.cat.Objects() {
		switch o.Kind {
		case catalog.Table:
			if err := e.buildTableLocked(ctx, o, true); err != nil {
				return err
			}
		case catalog.MaterializedView, catalog.Index:
			if rebuild == nil {
				return sqlerr.AssertionFailedf("no planner to rebuild %s %s", o.Kind, o.Name)
			}
			var err error
			if err = e.failedErr(o.DependsOn); err == nil {
				e.mu.Unlock()
				err = rebuild(e, o)
				e.mu.Lock()
			}
			if err != nil {
				// The server starts whatever one object's definition
				// does: the object stays, marked failed, and says why
				// when it is read; DROP removes it.
				err = sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "%s %q could not be rebuilt at startup: %s", o.Kind, o.Name, sqlerr.From(err).Message)
				e.log.Error("rebuilding an object failed; it is marked failed", "object", o.Name, "kind", o.Kind.String(), "error", err)
				e.markFailed(o, err)
			}
		}
	}
	// Rebuilding a view completes its columns' types in place; the
	// system tables are written again from every object, and only what
	// differs is written.
	for _, r := range e.sys.objects {
		r.obj = nil
	}
	// Reads start at the restart's time: the logs' history before it is
	// nobody's to read (a compacted log no longer has it), and a log that
	// has outgrown its table is compacted.
	e.allowCompactionLocked()
	e.startLogCompactionsLocked()
	return e.publishCatalogLocked(ctx)
}

// Catalog runs f with the catalog under the engine's lock.
func (e *Engine) Catalog(f func(c *catalog.Catalog) error) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return f(e.cat)
}

// Close stops the cluster and closes storage.
func (e *Engine) Close() {
	e.saveSequences()
	e.stopLogCompactions()
	close(e.closed)
	e.cluster.Close()
	if e.ownStore {
		e.store.Close()
	}
}

func (e *Engine) persistCatalog(ctx context.Context, put []*catalog.Object, del []*catalog.Object) error {
	txn := &storage.Txn{}
	for _, o := range put {
		txn.Catalog = append(txn.Catalog, storage.CatalogRecord{ID: o.ID, Value: catalog.Encode(o)})
	}
	for _, o := range del {
		txn.DeleteCatalog = append(txn.DeleteCatalog, o.ID)
		if o.Kind == catalog.Table {
			txn.DropTables = append(txn.DropTables, o.ID)
		}
	}
	// Ids are never reused, across restarts too: the next id is kept with
	// every catalog change.
	txn.Meta = append(txn.Meta, storage.MetaRecord{Key: metaNextObjectID,
		Value: binary.BigEndian.AppendUint64(nil, e.cat.NextID())})
	return e.store.Commit(ctx, txn)
}

// metaNextObjectID is the storage setting that holds the catalog's next
// object id.
const metaNextObjectID = "catalog.next_object_id"

// CreateDatabase adds a database.
func (e *Engine) CreateDatabase(ctx context.Context, name string) error {
	if err := e.mu.acquire(ctx); err != nil {
		return err
	}
	defer e.mu.Unlock()
	objs, err := e.cat.CreateDatabase(name)
	if err != nil {
		return err
	}
	if err := e.persistCatalog(ctx, objs, nil); err != nil {
		e.cat.Remove(objs)
		return err
	}
	return e.catalogChangedLocked(ctx)
}

// CreateTable adds a table and starts its dataflow. defaults are its
// columns' DEFAULT scalars (nil for NULL), kept for INSERT's planning.
// seqs are the sequences of its serial and identity columns, created
// with it, owned by it: each column's default becomes its sequence's
// nextval.
func (e *Engine) CreateTable(ctx context.Context, o *catalog.Object, defaults []expr.Scalar, seqs ...*catalog.Object) error {
	if err := e.mu.acquire(ctx); err != nil {
		return err
	}
	defer e.mu.Unlock()
	if _, err := e.cat.Create(o); err != nil {
		return err
	}
	created := []*catalog.Object{o}
	for _, seq := range seqs {
		seq.On = o.ID
		// PostgreSQL's choice of a free name: t_id_seq, t_id_seq1, ...
		base := seq.Name
		for n := 1; ; n++ {
			if _, err := e.cat.Resolve(seq.Database, seq.Schema, seq.Name); err != nil {
				break
			}
			seq.Name = fmt.Sprintf("%s%d", base, n)
		}
		if _, err := e.cat.Create(seq); err != nil {
			e.cat.Remove(created)
			return err
		}
		created = append(created, seq)
		i := seq.Seq.Column - 1
		qualified := quoteIdentIfNeeded(seq.Name)
		if seq.Schema != catalog.DefaultSchema {
			// Planned again at restart, in the default search path.
			qualified = quoteIdentIfNeeded(seq.Schema) + "." + qualified
		}
		o.Columns[i].Default = fmt.Sprintf("nextval(%s::regclass)", quoteLiteral(qualified))
		defaults[i] = expr.CallVariadic{Func: expr.NextVal, Args: []expr.Scalar{
			expr.Literal{Value: repr.NewOID(repr.KindRegclass, uint32(relationOID(seq.ID))), Type: repr.Regclass}}}
	}
	if err := e.persistCatalog(ctx, created, nil); err != nil {
		e.cat.Remove(created)
		return err
	}
	// The catalog record is durable: the build must not be abandoned
	// halfway by a cancel, and if it fails the create is undone.
	if err := e.buildTableLocked(context.WithoutCancel(ctx), o, false); err != nil {
		return e.undoCreateLocked(ctx, o, err, created[1:]...)
	}
	if defaults != nil {
		e.defaults[o.ID] = defaults
	}
	return e.catalogChangedLocked(ctx)
}

// CreateSequence adds a sequence (CREATE SEQUENCE): a catalog record,
// with no dataflow.
func (e *Engine) CreateSequence(ctx context.Context, o *catalog.Object) error {
	if err := e.mu.acquire(ctx); err != nil {
		return err
	}
	defer e.mu.Unlock()
	if _, err := e.cat.Create(o); err != nil {
		return err
	}
	if err := e.persistCatalog(ctx, []*catalog.Object{o}, nil); err != nil {
		e.cat.Remove([]*catalog.Object{o})
		return err
	}
	return e.catalogChangedLocked(ctx)
}

// undoCreateLocked removes an object whose dataflow could not be built
// from the catalog, durably, and returns the build's error.
func (e *Engine) undoCreateLocked(ctx context.Context, o *catalog.Object, cause error, with ...*catalog.Object) error {
	objs := append([]*catalog.Object{o}, with...)
	if err := e.persistCatalog(context.WithoutCancel(ctx), nil, objs); err != nil {
		e.log.Error("undoing a failed create", "object", o.Name, "error", err)
	}
	e.forgetKeysLocked(o)
	e.cat.Remove(objs)
	return cause
}

// SetDefaults records a table's column defaults (at restart, planned
// again from their SQL).
func (e *Engine) SetDefaults(id uint64, defaults []expr.Scalar) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.defaults[id] = defaults
}

// columnDefault returns the DEFAULT of column i of table id, or nil. The
// caller holds mu (through Catalog).
func (e *Engine) columnDefault(id uint64, i int) expr.Scalar {
	if d := e.defaults[id]; i < len(d) {
		return d[i]
	}
	return nil
}

// source is how the engine's dataflows read: by importing exports, rows
// of indexes taken from their vals.
func (e *Engine) source() compute.Source {
	return compute.ImportedSource(e.reg, e.isIndex)
}

// isIndex reports whether id is an index, whose arrangement holds each
// row as the val under its key.
func (e *Engine) isIndex(id expr.GlobalID) bool {
	e.idxMu.Lock()
	defer e.idxMu.Unlock()
	_, ok := e.indexes[uint64(id)]
	return ok
}

// sharedSourceLocked is the source of a materialized view's or an
// index's dataflow (compute.SharedSource): it imports rows shared but
// from the tables that ALTER TABLE rewrote since the engine started.
func (e *Engine) sharedSourceLocked() compute.Source {
	altered := maps.Clone(e.shapes)
	return compute.SharedSource(e.reg, e.isIndex, func(id expr.GlobalID) bool {
		_, ok := altered[uint64(id)]
		return !ok
	})
}

// joinIndexes returns the indexes that joins of a dataflow built now
// read, in id order so that every worker's build sees the same list.
func (e *Engine) joinIndexes() *compute.Indexes {
	e.idxMu.Lock()
	defer e.idxMu.Unlock()
	ix := &compute.Indexes{Import: func(b *dataflow.Builder, id expr.GlobalID) (*arrange.Arranged, dataflow.Stream[arrange.Update], error) {
		return compute.ImportIndex(e.reg, b, id)
	}}
	for _, id := range slices.Sorted(maps.Keys(e.joinable)) {
		ix.List = append(ix.List, e.joinable[id])
	}
	return ix
}

// joinIndexKeys returns the key columns of the indexes on relation id
// that joins may read, in the order of the indexes' ids.
func (e *Engine) joinIndexKeys(id uint64) [][]int {
	e.idxMu.Lock()
	defer e.idxMu.Unlock()
	var keys [][]int
	for _, ix := range slices.Sorted(maps.Keys(e.joinable)) {
		if i := e.joinable[ix]; i.On == expr.GlobalID(id) {
			keys = append(keys, i.Keys)
		}
	}
	return keys
}

// IndexOfView returns the index that serves reads of view id, if any.
func (e *Engine) IndexOfView(id uint64) (uint64, bool) {
	e.idxMu.Lock()
	defer e.idxMu.Unlock()
	i, ok := e.viewIndex[id]
	return i, ok
}

// indexedRelation returns the relation that index id is on, if id is an
// index.
func (e *Engine) indexedRelation(id uint64) (uint64, bool) {
	e.idxMu.Lock()
	defer e.idxMu.Unlock()
	on, ok := e.indexes[id]
	return on, ok
}

// forgetIndex stops reads from using index o.
func (e *Engine) forgetIndex(o *catalog.Object) {
	e.idxMu.Lock()
	defer e.idxMu.Unlock()
	delete(e.indexes, o.ID)
	delete(e.joinable, o.ID)
	delete(e.indexSince, o.ID)
	if e.viewIndex[o.On] == o.ID {
		delete(e.viewIndex, o.On)
	}
}

// catalogObject returns the object with id, or nil.
func (e *Engine) catalogObject(id uint64) *catalog.Object {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cat.Get(id)
}

// defaultOf returns the DEFAULT of column i of table id, or nil.
func (e *Engine) defaultOf(id uint64, i int) expr.Scalar {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.columnDefault(id, i)
}

// CreateView adds a view that is not materialized: a name for a query,
// planned again wherever it is read, with no dataflow of its own.
func (e *Engine) CreateView(ctx context.Context, o *catalog.Object, names map[uint64]string) error {
	if err := e.mu.acquire(ctx); err != nil {
		return err
	}
	defer e.mu.Unlock()
	if err := e.checkDependsLocked(o, names); err != nil {
		return err
	}
	if _, err := e.cat.Create(o); err != nil {
		return err
	}
	if err := e.persistCatalog(ctx, []*catalog.Object{o}, nil); err != nil {
		e.cat.Remove([]*catalog.Object{o})
		return err
	}
	return e.catalogChangedLocked(ctx)
}

// CreateIndex adds an index on relation on: a dataflow that arranges the
// relation's rows by the key scalars and exports the arrangement under
// the index's id, for later dataflows to import. A unique index (o.Unique)
// is also a unique key of its table from then on; if the table's rows
// already repeat a key value it fails with 23505 and adds nothing.
//
// Like CreateMaterializedView, it answers once the index is hydrated.
func (e *Engine) CreateIndex(ctx context.Context, o *catalog.Object, on expr.Relation, keys []expr.Scalar, onName string) error {
	h, err := e.createIndex(ctx, o, on, keys, onName)
	if err != nil {
		return err
	}
	return e.hydrate(ctx, o, h)
}

func (e *Engine) createIndex(ctx context.Context, o *catalog.Object, on expr.Relation, keys []expr.Scalar, onName string) (*hydration, error) {
	if err := e.awaitMemory(ctx); err != nil {
		return nil, err
	}
	if err := e.mu.acquire(ctx); err != nil {
		return nil, err
	}
	defer e.mu.Unlock()
	if err := e.flushForBuildLocked(ctx, on); err != nil {
		return nil, err
	}
	if err := e.checkDependsLocked(o, map[uint64]string{o.On: onName}); err != nil {
		return nil, err
	}
	if err := e.checkPlanReadsLocked(o, on); err != nil {
		return nil, err
	}
	if t := e.cat.Get(o.On); o.Unique && t != nil {
		// The key is counted from the table's log, which must hold every
		// write that has a timestamp; mu is then held until the key is
		// enforced, so none slips in between.
		for e.pendingWriteTo([]*catalog.Object{t}) {
			e.fedCond.Wait()
		}
	}
	if _, err := e.cat.Create(o); err != nil {
		return nil, err
	}
	if o.Unique {
		if err := e.addUniqueIndexLocked(o); err != nil {
			e.cat.Remove([]*catalog.Object{o})
			return nil, err
		}
	}
	if err := e.persistCatalog(ctx, []*catalog.Object{o}, nil); err != nil {
		e.forgetKeysLocked(o)
		e.cat.Remove([]*catalog.Object{o})
		return nil, err
	}
	if err := e.buildIndexLocked(context.WithoutCancel(ctx), o, on, keys); err != nil {
		return nil, e.undoCreateLocked(ctx, o, err)
	}
	if err := e.catalogChangedLocked(ctx); err != nil {
		return nil, err
	}
	return e.startHydrationLocked(o), nil
}

// checkDependsLocked checks, as a create commits, that everything o was
// planned over still exists and has not failed: the plan was made without
// the engine's lock, and a DROP may have committed since. names names
// o's dependencies for the error.
func (e *Engine) checkDependsLocked(o *catalog.Object, names map[uint64]string) error {
	deps := objectDeps(o)
	for _, id := range deps {
		d := e.cat.Get(id)
		if d == nil {
			if n, ok := names[id]; ok {
				return sqlerr.New(sqlerr.UndefinedTable, "relation %q does not exist", n)
			}
			return sqlerr.New(sqlerr.UndefinedTable, "a relation that %q reads was dropped while it was being created", o.Name)
		}
		if e.creatingLocked(id) {
			// Its create may yet be undone, taking o with it.
			return sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "relation %q is still being created", d.Name).
				WithHint("Wait for its CREATE statement to finish.")
		}
	}
	return e.failedErr(e.throughViewsLocked(deps))
}

// checkPlanReadsLocked checks, as o's create commits, that every
// relation o's plan reads is still in the catalog. checkDependsLocked
// does not cover it all: a view read through its index is planned as a
// read of the index, but o depends on the view. A DROP INDEX that
// commits between the plan and this check leaves the view, and the
// index's dataflow running until the DROP drops it, after the lock is
// released: o's dataflow would import it then, an importer the DROP
// never counted, and the runtime would refuse to drop the index's
// dataflow (the case lingerAfterRefusal was added for). Such a plan is
// stale, and fails as a write's stale plan does (40001), to be run, and
// so planned, again.
func (e *Engine) checkPlanReadsLocked(o *catalog.Object, plan expr.Relation) error {
	for _, id := range dependencies(plan) {
		if id == 0 || isSystemTable(id) || e.cat.Get(id) != nil {
			continue
		}
		return sqlerr.New(sqlerr.SerializationFailure, "could not serialize access: an index that %q was planned to read was dropped while it was being created", o.Name).
			WithHint("Run the statement again.")
	}
	return nil
}

// objectDeps returns what o reads: its DependsOn and, for an index, what
// it is on.
func objectDeps(o *catalog.Object) []uint64 {
	deps := slices.Clone(o.DependsOn)
	if o.On != 0 && !slices.Contains(deps, o.On) {
		deps = append(deps, o.On)
	}
	return deps
}

// throughViewsLocked returns deps with what their views read added: a
// view has no dataflow of its own, so whatever reads it (an index on it,
// a materialized view over it) imports what it reads, and a failure
// there is the reader's too.
func (e *Engine) throughViewsLocked(deps []uint64) []uint64 {
	deps = slices.Clone(deps)
	for i := 0; i < len(deps); i++ {
		if d := e.cat.Get(deps[i]); d != nil && d.Kind == catalog.View {
			for _, r := range d.DependsOn {
				if !slices.Contains(deps, r) {
					deps = append(deps, r)
				}
			}
		}
	}
	return deps
}

// createError turns the error of a create over deps whose source ended
// while the create built its dataflow into that source's failure: the
// create held the engine's lock, so the failure watcher could not mark
// it yet.
func (e *Engine) createError(ctx context.Context, deps []uint64, err error) error {
	if !errors.Is(err, arrange.ErrNoExport) && !errors.Is(err, arrange.ErrSourceGone) {
		return err
	}
	e.mu.Lock()
	deps = e.throughViewsLocked(deps)
	e.mu.Unlock()
	return e.awaitFailure(ctx, deps, err)
}

// RebuildIndex starts the dataflow of an index loaded from the catalog.
func (e *Engine) RebuildIndex(ctx context.Context, o *catalog.Object, on expr.Relation, keys []expr.Scalar) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.buildIndexLocked(ctx, o, on, keys)
}

func (e *Engine) buildIndexLocked(ctx context.Context, o *catalog.Object, on expr.Relation, keys []expr.Scalar) error {
	e.noteSystemReaderLocked(o.ID, on)
	e.noteImportsLocked(o.ID, dependencies(on))
	ix := e.joinIndexes()
	source := e.sharedSourceLocked()
	err := e.buildExportLocked(ctx, o, func(b *dataflow.Builder) error {
		return compute.ExportIndex(b, e.reg, on, keys, source, ix, expr.GlobalID(o.ID))
	})
	if err != nil {
		e.forgetImportsLocked(o.ID)
		return err
	}
	e.idxMu.Lock()
	e.indexes[o.ID] = o.On
	e.indexSince[o.ID] = e.fed
	if cols, ok := columnKeys(keys); ok {
		e.joinable[o.ID] = compute.Index{ID: expr.GlobalID(o.ID), On: expr.GlobalID(o.On), Keys: cols, Width: len(on.Typ())}
	}
	if on := e.cat.Get(o.On); on != nil && on.Kind == catalog.View {
		if _, taken := e.viewIndex[o.On]; !taken {
			e.viewIndex[o.On] = o.ID
		}
	}
	e.idxMu.Unlock()
	return nil
}

// columnKeys returns the columns of keys if every key is a plain column.
func columnKeys(keys []expr.Scalar) ([]int, bool) {
	cols := make([]int, len(keys))
	for i, k := range keys {
		c, ok := k.(expr.Column)
		if !ok {
			return nil, false
		}
		cols[i] = c.Index
	}
	return cols, len(cols) > 0
}

// buildTableLocked starts a table's dataflow and, on restart, arranges
// the table's log into it, from which it also counts the values of the
// table's unique keys.
//
// The log is arranged at one time, the read time, and the dataflow
// starts there: after a restart nothing reads the table at an earlier
// time (reads and new dataflows start at the read time, and an earlier
// AS OF is refused as compacted), so the history between its writes is
// not rebuilt. Each worker's shard of the table's arrangement then starts
// from one batch of that time (arrange.ArrangeChunks), which replayLog
// builds: a batch with no column of times, which views import by
// sharing it.
func (e *Engine) buildTableLocked(ctx context.Context, o *catalog.Object, replay bool) error {
	t := &table{inputs: make([]*dataflow.InputHandle[arrange.Chunk], e.workers)}
	var tk *tableKeys
	if defs := e.cat.UniqueKeys(o.ID); len(defs) > 0 {
		tk = &tableKeys{columns: o.Columns}
		for _, d := range defs {
			tk.keys = append(tk.keys, newUniqueKey(d))
		}
	}
	start := uint64(0)
	var seeds []*arrange.Batch
	if replay {
		start = e.oracle.read()
		r, err := e.replayLog(o, start, tk)
		if err != nil {
			return err
		}
		seeds = r.batches
		e.resetLogLocked(o.ID, r.updates, r.rows)
		if r.dealt >= replayCollectBytes {
			// The chunks the rows were dealt into are garbage now, as
			// large as the table. Collected at once, their memory serves
			// what comes next (the next table's replay, the views'
			// hydration) instead of memory new to the process, which
			// costs more than the collection where a page fault is
			// dear: at 4M rows, a restart took a quarter fewer faults.
			runtime.GC()
		}
	}
	var exportErr error
	var errMu sync.Mutex
	id, err := e.cluster.Build(ctx, start, func(b *dataflow.Builder) {
		h, s := dataflow.NewInputHandle[arrange.Chunk](b, o.Name)
		t.inputs[b.Index()] = h
		var seed *arrange.Batch
		if seeds != nil {
			seed = seeds[b.Index()]
		}
		a := arrange.ArrangeChunks(s, o.Name, seed)
		if err := e.reg.Export(b, a, arrange.GlobalID(o.ID)); err != nil {
			errMu.Lock()
			exportErr = err
			errMu.Unlock()
		}
	})
	if err != nil {
		return err
	}
	if exportErr != nil {
		e.cluster.Drop(context.WithoutCancel(ctx), id)
		return exportErr
	}
	e.tables[o.ID] = t
	e.dataflows[o.ID] = id
	e.companions = nil
	if tk != nil {
		for _, k := range tk.keys {
			if v, dup := k.duplicated(); dup {
				// The log was written by checked writes: this is a bug,
				// and later inserts of the value will be refused.
				e.log.Error("a table's log breaks its unique key", "table", o.Name, "key", k.def.Name, "value", repr.Row(v).String())
			}
		}
		e.setKeysLocked(o.ID, tk)
	}
	t.advanced = e.oracle.read() + 1
	for _, h := range t.inputs {
		if err := h.Advance(t.advanced); err != nil {
			return err
		}
	}
	return nil
}

// replayCollectBytes is the least log, dealt at a restart, after which
// the engine collects the garbage at once (buildTableLocked).
const replayCollectBytes = 16 << 20

// TableWrite is one row change of a write transaction.
type TableWrite struct {
	Table uint64
	Row   repr.Row
	Diff  int64
	// Shape is the table's shape generation the row was made for
	// (planner.Target.Shape); a write of another generation than the
	// table's is refused with 40001 (checkShapesLocked). Zero for a
	// table never altered since the engine started.
	Shape uint64
}

// Write commits a write transaction: one timestamp for all its changes,
// durable before it returns, then fed to the tables' dataflows. Every
// table's input advances past the timestamp, so reads at it complete.
//
// Concurrent writes take their timestamps in order under the engine's
// lock, make themselves durable without it (so storage's group commit
// gathers them into one sync), and are fed to the dataflows strictly in
// timestamp order: a write waits for every earlier one to be fed or to
// have failed. A write is acknowledged only once it is fed, so a read at
// the last fed time sees every acknowledged write.
func (e *Engine) Write(ctx context.Context, writes []TableWrite) (uint64, error) {
	return e.write(ctx, writesOf(writes))
}

// durableWrites is a write's changes as its tables' logs take them: the
// n writes that change something, read from their parts where they are.
type durableWrites struct {
	ws writeSet
	n  int
}

func newDurableWrites(ws writeSet) durableWrites {
	d := durableWrites{ws: ws}
	for w := range ws.all() {
		if w.Diff != 0 {
			d.n++
		}
	}
	return d
}

func (d durableWrites) Len() int { return d.n }

func (d durableWrites) Each(fn func(table uint64, row []byte, diff int64)) {
	for w := range d.ws.all() {
		if w.Diff != 0 {
			fn(w.Table, w.Row, w.Diff)
		}
	}
}

// write is Write for writes in parts.
func (e *Engine) write(ctx context.Context, writes writeSet) (uint64, error) {
	return e.writeSplit(ctx, writes, nil)
}

// writeSplit is write for writes that read, when it is not nil, split
// while they were read (splitWhileRead, finished): their commit writes
// its blocks, and their feed sends its messages.
func (e *Engine) writeSplit(ctx context.Context, writes writeSet, read *splitWrites) (_ uint64, err error) {
	start := time.Now()
	n := writes.len()
	d := newDurableWrites(writes)
	if read != nil && (!read.read || read.rows != d.n || read.blocks.Len() != d.n) {
		return 0, sqlerr.AssertionFailedf("a write of %d rows split while read as %d", d.n, read.rows)
	}
	defer func() {
		if err == nil {
			e.metrics.observeWrite(n, time.Since(start))
		}
	}()
	for w := range writes.all() {
		if isSystemTable(w.Table) {
			return 0, sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied: %q is a system catalog", systemTableName(w.Table))
		}
	}
	if err := e.awaitMemory(ctx); err != nil {
		return 0, err
	}
	if err := e.mu.acquire(ctx); err != nil {
		return 0, err
	}
	for e.quiescing > 0 {
		e.fedCond.Wait()
	}
	if err := e.checkShapesLocked(writes); err != nil {
		e.mu.Unlock()
		return 0, err
	}
	keys, err := e.admitLocked(writes)
	// admitLocked may let go of the lock, and an ALTER TABLE may change
	// a table's shape meanwhile: the writes are checked again, and a
	// stale row's failure is reported as what it is.
	if serr := e.checkShapesLocked(writes); serr != nil {
		if err == nil {
			settleLocked(keys, false)
		}
		err = serr
	}
	if err != nil {
		e.mu.Unlock()
		return 0, err
	}
	ts, err := e.oracle.next(ctx)
	if err != nil {
		settleLocked(keys, false)
		e.mu.Unlock()
		return 0, err
	}
	p := &pendingWrite{ts: ts, writes: writes, keys: keys}
	e.pending = append(e.pending, p)
	e.mu.Unlock()

	split := read
	var werr error
	switch {
	case d.n == 0:
	case read != nil:
		werr = e.store.Commit(ctx, &storage.Txn{Time: ts, Updates: &read.blocks})
		// The blocks are in storage now; the rows are held by the
		// writes and the messages.
		read.blocks = storage.Blocks{}
	default:
		split, werr = e.commitSplitting(ctx, ts, d, writes)
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	p.durable, p.err, p.split = true, werr, split
	e.feedDurableLocked()
	if werr == nil {
		e.noteLogLocked(writes)
	}
	for !p.fed {
		e.fedCond.Wait()
	}
	if p.err != nil {
		return 0, p.err
	}
	return ts, nil
}

// commitSplitting commits d, writes' durable updates, at ts, and while
// the commit builds its batch and syncs splits writes for the feed
// (split.go), which then only sends them. A fault in the split leaves
// the write to be split as it is fed; the commit is waited for whatever
// happens, so that storage never counts it in flight for ever.
func (e *Engine) commitSplitting(ctx context.Context, ts uint64, d durableWrites, writes writeSet) (split *splitWrites, err error) {
	wait := e.store.StartCommit(ctx, &storage.Txn{Time: ts, Updates: d})
	defer func() {
		if r := recover(); r != nil {
			e.log.Error("splitting a write for its feed failed; it is split as it is fed", "panic", r)
			split = nil
		}
		err = wait()
	}()
	return splitDuring(writes, e.workers), nil
}

// pendingWrite is a write between its timestamp and its feeding.
type pendingWrite struct {
	ts     uint64
	writes writeSet
	// keys are the write's unique key deltas, reserved until it is
	// settled.
	keys []*keyDelta
	// split, set once it is durable, is writes split by worker ahead
	// of the feed (split.go).
	split   *splitWrites
	durable bool
	fed     bool
	err     error
}

// feedDurableLocked feeds the pending writes that are durable, in
// timestamp order, up to the first that is not yet, and wakes the
// writers waiting for theirs.
func (e *Engine) feedDurableLocked() {
	for len(e.pending) > 0 && e.pending[0].durable {
		q := e.pending[0]
		e.pending = e.pending[1:]
		settleLocked(q.keys, q.err == nil)
		if q.err == nil {
			q.err = e.feedLocked(q)
		}
		q.fed = true
	}
	e.allowCompactionLocked()
	e.fedCond.Broadcast()
}

// pendingWriteTo reports whether a write not yet fed touches one of the
// tables among objs.
func (e *Engine) pendingWriteTo(objs []*catalog.Object) bool {
	for _, p := range e.pending {
		for _, part := range p.writes {
			for k := range part.len() {
				if slices.ContainsFunc(objs, func(o *catalog.Object) bool {
					return o.Kind == catalog.Table && o.ID == part.table(k)
				}) {
					return true
				}
				if part.packed != nil {
					// One table throughout.
					break
				}
			}
		}
	}
	return false
}

// feedLocked sends a durable write to its tables' inputs and advances
// every input past it. The write goes as split ahead (split.go), or,
// for the writes ALTER TABLE and the system tables feed, as split now:
// in one slice per run of writes to one table and worker, not one send
// per row, since a send takes the input's lock and queues an operation
// that the worker takes apart again, which for a bulk load of a million
// rows cost more than the rows' arrangement.
func (e *Engine) feedLocked(p *pendingWrite) error {
	sp := p.split
	if sp == nil {
		sp = splitDuring(p.writes, e.workers)
	} else if sp.read {
		e.splitReadFed++
	}
	p.split = nil
	var written []uint64
	for i := range sp.runs {
		r := &sp.runs[i]
		t := e.tables[r.table]
		if t == nil {
			continue
		}
		e.lastWrite[r.table] = p.ts
		if !slices.Contains(written, r.table) {
			written = append(written, r.table)
		}
		r.sendLocked(e, t, p.ts)
	}
	// The write's tables, and those a view over them also reads, move
	// past it (advance.go).
	e.advanceWrittenLocked(p, written)
	e.fed = p.ts
	return nil
}

// WrittenSince reports whether any of the tables was written after ts.
func (e *Engine) WrittenSince(tables []uint64, ts uint64) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, t := range tables {
		if e.lastWrite[t] > ts {
			return true
		}
	}
	return false
}

// AcquireRead returns the time a read now sees (every acknowledged
// write) and holds it against compaction until release is called, once.
func (e *Engine) AcquireRead() (ts uint64, release func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	ts = e.fed
	e.holds[ts]++
	var once sync.Once
	return ts, func() {
		once.Do(func() {
			e.mu.Lock()
			defer e.mu.Unlock()
			if e.holds[ts]--; e.holds[ts] == 0 {
				delete(e.holds, ts)
			}
		})
	}
}

// compactionEvery is how far, in milliseconds, the compaction frontier
// moves before exports are told: telling them activates every worker.
const compactionEvery = 1000

// allowCompactionLocked lets every export compact up to the oldest time
// a read still holds, or the last fed time.
func (e *Engine) allowCompactionLocked() {
	frontier := e.fed
	for t := range e.holds {
		frontier = min(frontier, t)
	}
	if frontier < e.compacted+compactionEvery {
		return
	}
	// No export may compact past a time its tables' inputs have not
	// passed: the tables that writes did not concern catch up first
	// (advance.go).
	e.catchUpAllLocked()
	e.compacted = frontier
	for id := range e.dataflows {
		e.reg.AllowCompaction(arrange.GlobalID(id), frontier)
		e.reg.AllowCompaction(compute.ErrorsID(expr.GlobalID(id)), frontier)
	}
	// A retired index still serves its importers, and compacts as any
	// export does: its importers' own leases hold what they read.
	for _, r := range e.retired {
		e.reg.AllowCompaction(arrange.GlobalID(r.id), frontier)
		e.reg.AllowCompaction(compute.ErrorsID(expr.GlobalID(r.id)), frontier)
	}
}

// Clock returns the oracle clock's current time, in milliseconds since
// the Unix epoch, and never less than it returned before: a clock that
// steps back does not make now() run backwards.
func (e *Engine) Clock() uint64 {
	for {
		c, seen := e.oracle.clock(), e.clockSeen.Load()
		if c <= seen {
			return seen
		}
		if e.clockSeen.CompareAndSwap(seen, c) {
			return c
		}
	}
}

// ReadTime returns the time a read now sees: every acknowledged write.
func (e *Engine) ReadTime() uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.fed
}

// Read evaluates plan at time ts (use ReadTime) in a transient dataflow
// that imports what the plan reads, and returns the rows. The dataflow is
// dropped when Read returns, also when ctx is canceled (57014).
func (e *Engine) Read(ctx context.Context, plan expr.Relation, ts uint64) (expr.Collection, error) {
	res, err := e.readAt(ctx, plan, ts)
	if err != nil {
		return nil, err
	}
	return res.decoded(plan)
}

// ReadEncoded is Read with the rows in their encoding (repr.Row), sorted
// and consolidated: a write of what it reads (INSERT … SELECT) stores
// them as they are, without decoding and encoding every row again.
func (e *Engine) ReadEncoded(ctx context.Context, plan expr.Relation, ts uint64) ([]arrange.Update, error) {
	res, err := e.readAt(ctx, plan, ts)
	if err != nil {
		return nil, err
	}
	return res.encoded(), nil
}

// readResult is what a read gives: a dataflow's rows in their encoding,
// or a peek's rows decoded.
type readResult struct {
	updates []arrange.Update
	rows    expr.Collection
	peeked  bool
}

// decoded returns the result's rows decoded as plan's types.
func (r readResult) decoded(plan expr.Relation) (expr.Collection, error) {
	if r.peeked {
		return r.rows, nil
	}
	types := plan.Typ()
	rts := make([]repr.Type, len(types))
	for i, t := range types {
		rts[i] = t.Type
	}
	out := make(expr.Collection, 0, len(r.updates))
	for _, u := range r.updates {
		ds, err := repr.Row(u.Key).Datums(rts)
		if err != nil {
			return nil, sqlerr.Wrapf(err, sqlerr.InternalError, "decoding a result row")
		}
		out = append(out, expr.Row{Datums: ds, Diff: u.Diff})
	}
	return out, nil
}

// encoded returns the result's rows encoded.
func (r readResult) encoded() []arrange.Update {
	if !r.peeked {
		return r.updates
	}
	out := make([]arrange.Update, len(r.rows))
	for i, row := range r.rows {
		out[i] = arrange.Update{Key: repr.PackRow(row.Datums...), Diff: row.Diff}
	}
	return out
}

// readAt is Read's work: WITH RECURSIVE's rounds, the check of the
// shapes read, and the read itself.
func (e *Engine) readAt(ctx context.Context, plan expr.Relation, ts uint64) (readResult, error) {
	if expr.ContainsRecursive(plan) {
		// WITH RECURSIVE: each round is a read at ts, until one adds
		// no row; the query then reads the rows as a constant.
		var err error
		plan, err = expr.ExpandRecursive(plan, func(p expr.Relation) (expr.Collection, error) {
			res, err := e.readAt(ctx, p, ts)
			if err != nil {
				return nil, err
			}
			return res.decoded(p)
		}, func() error {
			if ctx.Err() != nil {
				return readError(ctx, ctx.Err())
			}
			return nil
		})
		if err != nil {
			return readResult{}, err
		}
	}
	deps := dependencies(plan)
	e.mu.Lock()
	err := e.checkReadShapesLocked(plan, ts)
	if err == nil {
		e.catchUpLocked(deps)
	}
	e.mu.Unlock()
	if err != nil {
		return readResult{}, err
	}
	res, err := e.read(ctx, plan, deps, ts)
	if errors.Is(err, arrange.ErrNoExport) || errors.Is(err, arrange.ErrSourceGone) {
		return readResult{}, e.awaitFailure(ctx, deps, err)
	}
	return res, err
}

// awaitFailure returns the failure of one of deps that ended under a
// read. A drop ends the reads over what it drops before it ends their
// sources, so a source that ends under a read has failed on some worker,
// and the failure watcher is about to mark it: the read reports that
// mark, as one that started a moment later would.
func (e *Engine) awaitFailure(ctx context.Context, deps []uint64, gone error) error {
	deadline := time.Now().Add(failureWait)
	for {
		if err := e.failedErr(deps); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return readError(ctx, ctx.Err())
		}
		if time.Now().After(deadline) {
			return sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "a relation the query reads ended while it was read: %v", gone)
		}
		time.Sleep(time.Millisecond)
	}
}

// failureWait bounds how long a read whose source ended waits for the
// failure to be marked.
const failureWait = 5 * time.Second

// beginRead registers a read of deps in flight, so that a DROP of one of
// them, its failure or the memory governor can end it through the
// returned context. The caller ends the read with endRead.
func (e *Engine) beginRead(ctx context.Context, deps []uint64) (context.Context, *inflightRead, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	read := &inflightRead{deps: deps, cancel: cancel, done: make(chan struct{}), what: statementText(ctx)}
	e.readsMu.Lock()
	defer e.readsMu.Unlock()
	for _, id := range read.deps {
		// A read that starts while its collection is being dropped ends
		// at once, as one in flight would.
		if err, dropping := e.dropping[id]; dropping {
			cancel(nil)
			return nil, nil, err
		}
	}
	// A read of a failed object (or of anything over one) ends at once
	// with the failure.
	if err := e.failedErrLocked(read.deps); err != nil {
		cancel(nil)
		return nil, nil, err
	}
	e.readSeq++
	read.seq = e.readSeq
	e.reads[read] = struct{}{}
	return ctx, read, nil
}

// endRead ends a read that beginRead registered.
func (e *Engine) endRead(read *inflightRead) {
	e.readsMu.Lock()
	delete(e.reads, read)
	e.readsMu.Unlock()
	read.cancel(nil)
	close(read.done)
}

func (e *Engine) read(ctx context.Context, plan expr.Relation, deps []uint64, ts uint64) (readResult, error) {
	ctx, read, err := e.beginRead(ctx, deps)
	if err != nil {
		return readResult{}, err
	}
	// dataflow is the read's transient dataflow, once built; the read
	// ends (done) only after it is dropped on every worker.
	var dataflowID dataflow.ID
	defer func() {
		end := func() {
			if dataflowID != 0 {
				e.cluster.Drop(context.Background(), dataflowID)
			}
			e.endRead(read)
		}
		if ctx.Err() != nil && dataflowID != 0 {
			// A cancelled read answers its client at once; its dataflow
			// goes when the workers finish their current step, and the
			// read counts as in flight (for DROP and the memory
			// governor) until then.
			go end()
			return
		}
		end()
	}()
	// now() left in the plan (a caller without a session's choice) is
	// the read time: the oracle's milliseconds since the Unix epoch.
	plan = expr.ReplaceNow(plan, repr.NewTimestampTZ(repr.TimestampFromTime(time.UnixMilli(int64(ts)))))
	if c, ok := plan.(expr.Constant); ok {
		return constantRead(ctx, c)
	}
	if c, ok := compute.FoldConstant(plan); ok {
		return constantRead(ctx, c)
	}
	if p, ok := compute.PeekOf(plan); ok && !e.noPeek {
		rows, err := e.peek(ctx, p, ts)
		return readResult{rows: rows, peeked: true}, err
	}
	type sink struct {
		mu sync.Mutex
		// rows in chunks (nextReadChunk): one slice grown by append would
		// copy a large result over and over.
		rows [][]arrange.Update
		errs []arrange.Update
	}
	sinks := make([]sink, e.workers)
	probes := make([]*dataflow.Probe, e.workers)
	buildErrs := make([]error, e.workers)
	id, err := e.cluster.Build(ctx, ts, func(b *dataflow.Builder) {
		w := b.Index()
		// Known before any operator of the read runs here, so before
		// it can fail here.
		e.readsMu.Lock()
		read.dataflow = b.ID()
		e.readsMu.Unlock()
		c, err := compute.Render(b, plan, e.source())
		if err != nil {
			buildErrs[w] = err
			b.RequestDrop()
			return
		}
		s := &sinks[w]
		// The rows collected are the read's state: its dataflow's
		// account holds them, for the memory governor.
		acct := b.Account()
		rows := dataflow.Inspect(c.Rows, "collect", func(_ uint64, u arrange.Update) {
			acct.Add(int64(len(u.Key)+len(u.Val)) + int64(unsafe.Sizeof(u)))
			s.mu.Lock()
			if n := len(s.rows); n == 0 || len(s.rows[n-1]) == cap(s.rows[n-1]) {
				c := make([]arrange.Update, 0, nextReadChunk(s.rows))
				prefault.Slice(c)
				s.rows = append(s.rows, c)
			}
			last := &s.rows[len(s.rows)-1]
			*last = append(*last, u)
			s.mu.Unlock()
		})
		errs := dataflow.Inspect(c.Errs, "collect errors", func(_ uint64, u arrange.Update) {
			s.mu.Lock()
			s.errs = append(s.errs, u)
			s.mu.Unlock()
		})
		probes[w] = dataflow.NewProbe(dataflow.Concat(rows, errs, "read"))
	})
	// The build command is queued even when ctx ended while waiting for
	// it, so the drop is unconditional; it follows the build in every
	// worker's queue.
	dataflowID = id
	if err != nil {
		return readResult{}, readError(ctx, err)
	}
	for _, err := range buildErrs {
		if err != nil {
			return readResult{}, err
		}
	}
	for w, p := range probes {
		if p == nil {
			return readResult{}, sqlerr.New(sqlerr.InternalError, "the read's dataflow could not be built on worker %d", w)
		}
		if err := p.WaitPast(ctx, ts); err != nil {
			if errors.Is(err, dataflow.ErrFailed) && ctx.Err() == nil {
				// The read failed on worker w: either a source it
				// imports failed there first, and the failure watcher
				// is about to mark it and end this read with that
				// mark, or the read itself failed, and the watcher
				// ends it with its own failure.
				return readResult{}, e.awaitFailure(ctx, deps, err)
			}
			return readResult{}, readError(ctx, err)
		}
	}
	n := 0
	for i := range sinks {
		s := &sinks[i]
		s.mu.Lock()
		for _, c := range s.rows {
			n += len(c)
		}
		s.mu.Unlock()
	}
	rows := make([]arrange.Update, 0, n)
	prefault.Slice(rows)
	var errs []arrange.Update
	for i := range sinks {
		s := &sinks[i]
		s.mu.Lock()
		for _, c := range s.rows {
			rows = appendUpTo(rows, c, ts)
		}
		errs = appendUpTo(errs, s.errs, ts)
		s.mu.Unlock()
	}
	for _, u := range consolidateUpdates(errs) {
		if u.Diff > 0 {
			return readResult{}, compute.DecodeError(u.Key)
		}
	}
	return readResult{updates: consolidateUpdates(rows)}, nil
}

// constantRead answers a read of a constant, an INSERT … VALUES's above
// all, without a dataflow: its rows are the read's, encoded and
// consolidated as a dataflow's would be. Building and dropping one on
// every worker cost a 1,000-row INSERT little CPU but much time behind
// the workers' other work (a view's maintenance of the write before).
//
// It is read in the session: a cancel that came while the statement was
// planned (a session function such as pg_cancel_backend(pg_backend_pid())
// runs then) ends it with 57014, as it ends a dataflow's read.
func constantRead(ctx context.Context, c expr.Constant) (readResult, error) {
	if err := ctx.Err(); err != nil {
		return readResult{}, readError(ctx, err)
	}
	if err := expr.Check(c); err != nil {
		return readResult{}, err
	}
	us := make([]arrange.Update, len(c.Rows))
	for i, r := range c.Rows {
		us[i] = arrange.Update{Key: repr.PackRow(r.Datums...), Diff: r.Diff}
	}
	return readResult{updates: consolidateUpdates(us)}, nil
}

// readChunk is the most rows a read collects in one slice.
const readChunk = 4096

// nextReadChunk is the room of the slice a read collects its next rows
// in, after the chunks it holds: 16 rows at first, doubling up to
// readChunk. Most reads return a few rows, and a first chunk of
// readChunk rows (256 KiB, zeroed) on every worker cost a one-row query
// more than the rest of its read.
func nextReadChunk(chunks [][]arrange.Update) int {
	if n := len(chunks); n > 0 {
		return min(2*cap(chunks[n-1]), readChunk)
	}
	return 16
}

// appendUpTo appends to dst the updates of src at times up to ts.
func appendUpTo(dst, src []arrange.Update, ts uint64) []arrange.Update {
	for _, u := range src {
		if u.Time <= ts {
			dst = append(dst, u)
		}
	}
	return dst
}

// consolidateUpdates sorts us by key and sums the diffs of equal keys,
// dropping those that sum to zero, in place. The keys are rows in their
// encoding, which is canonical: equal rows have equal bytes, and the
// order of the bytes is the rows' (so the result is what
// expr.Consolidate gives for the decoded rows).
func consolidateUpdates(us []arrange.Update) []arrange.Update {
	slices.SortFunc(us, func(a, b arrange.Update) int { return bytes.Compare(a.Key, b.Key) })
	out := us[:0]
	for i := 0; i < len(us); {
		u := us[i]
		j := i + 1
		for ; j < len(us) && bytes.Equal(us[j].Key, u.Key); j++ {
			u.Diff += us[j].Diff
		}
		if u.Diff != 0 {
			out = append(out, arrange.Update{Key: u.Key, Diff: u.Diff})
		}
		i = j
	}
	return out
}

// peek answers a read that only maps, filters and projects one
// arrangement by reading the arrangement's trace at ts on every worker,
// without building a dataflow. Each worker waits (between its steps) until
// its shard has passed ts, then reads it in one go.
func (e *Engine) peek(ctx context.Context, p compute.Peek, ts uint64) (expr.Collection, error) {
	src, own := e.peekSource(p, ts)
	return e.peekVia(ctx, p, src, own, ts)
}

// peekVia is peek from src, or from own, the arrangement the peek gets,
// if src is an index that cannot be read (fallBack).
func (e *Engine) peekVia(ctx context.Context, p compute.Peek, src, own peekSource, ts uint64) (expr.Collection, error) {
	rows, err := e.peekFrom(ctx, p, src, ts)
	if fallBack(src, err) {
		rows, err = e.peekFrom(ctx, p, own, ts)
	}
	return rows, err
}

// peekFrom is peek of arrangement src.
func (e *Engine) peekFrom(ctx context.Context, p compute.Peek, src peekSource, ts uint64) (expr.Collection, error) {
	var mu sync.Mutex
	var rows []expr.Row
	var firstErr error
	fail := func(err error) bool {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		return true
	}
	err := e.cluster.Exec(ctx, func(w int) (done bool) {
		defer func() {
			if v := recover(); v != nil {
				done = fail(sqlerr.AssertionFailedf("peek on worker %d: %v", w, v))
			}
		}()
		if ctx.Err() != nil {
			return fail(readError(ctx, ctx.Err()))
		}
		tr, err := e.reg.Trace(arrange.GlobalID(src.id), w)
		if err != nil {
			return fail(err)
		}
		errs, err := e.reg.Trace(compute.ErrorsID(p.Get.ID), w)
		if err != nil {
			errs = nil // tables have no error collection
		}
		if tr.Upper() <= ts || (errs != nil && errs.Upper() <= ts) {
			return false
		}
		if errs != nil {
			var rowErr error
			if err := readTrace(errs, ts, nil, func(key, _ []byte, _ int64) error {
				rowErr = compute.DecodeError(key)
				return rowErr
			}); err != nil {
				return fail(err)
			}
		}
		var (
			local   []expr.Row
			outs    [][]repr.Datum
			scratch compute.PeekScratch
		)
		if err := readTrace(tr, ts, src.ranges, func(key, val []byte, n int64) error {
			row := key
			if src.keyed {
				row = val
			}
			if p.Rejects(row, &scratch) {
				return nil
			}
			var err error
			if outs, err = p.Rows(row, outs[:0]); err != nil {
				return err
			}
			for _, o := range outs {
				local = append(local, expr.Row{Datums: o, Diff: n})
			}
			return nil
		}); err != nil {
			return fail(err)
		}
		mu.Lock()
		rows = append(rows, local...)
		mu.Unlock()
		return true
	})
	if err != nil {
		return nil, readError(ctx, err)
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return expr.Consolidate(rows), nil
}

// peekSource is the arrangement a peek reads: its id, the runs of keys
// the read seeks to (compute.Peek.KeyRanges; nil: all of it) and how
// much of the key they bound, whether its vals are the rows (an
// index's), and whether it is an index read in place of the arrangement
// the peek gets.
type peekSource struct {
	id     uint64
	ranges []compute.KeyRange
	score  int
	keyed  bool
	index  bool
}

// peekSourceLocked returns the arrangement peek p reads at ts, and the
// arrangement p gets, which the read falls back to if the first is an
// index gone or too new by the time the read takes its cursors. The
// caller holds mu, under which an index is built and marked hydrating.
//
// A Get reads its own arrangement (a table's or view's, keyed by the
// row, or an index's), unless another index on the same relation, keyed
// by plain columns (one that holds every row) and as wide as the read,
// has more of its leading key columns bounded by the peek (KeyRanges'
// score): `WHERE customer = 5` over an index on (customer) seeks in the
// index. An index
// built after ts, still hydrating or being dropped is passed over; of
// two indexes alike, the older is read, and the Get's own arrangement
// over either.
func (e *Engine) peekSourceLocked(p compute.Peek, ts uint64) (src, own peekSource) {
	id := uint64(p.Get.ID)
	e.idxMu.Lock()
	rel, keyed := e.indexes[id]
	own = peekSource{id: id, keyed: keyed}
	switch ix, joinable := e.joinable[id]; {
	case !keyed:
		rel = id
		own.ranges, own.score = p.KeyRanges(nil)
	case joinable:
		// The key of any other index is not made of its rows' encodings.
		own.ranges, own.score = p.KeyRanges(ix.Keys)
	}
	var better []peekSource
	for _, ix := range e.joinable {
		if uint64(ix.On) != rel || uint64(ix.ID) == id || ix.Width < len(p.Get.Types) || e.indexSince[uint64(ix.ID)] > ts {
			continue
		}
		if ranges, score := p.KeyRanges(ix.Keys); score > own.score {
			better = append(better, peekSource{id: uint64(ix.ID), ranges: ranges, score: score, keyed: true, index: true})
		}
	}
	e.idxMu.Unlock()
	src = own
	e.readsMu.Lock()
	defer e.readsMu.Unlock()
	for _, c := range better {
		_, creating := e.creating[c.id]
		_, dropping := e.dropping[c.id]
		if creating || dropping {
			continue
		}
		if c.score > src.score || c.score == src.score && c.id < src.id {
			src = c
		}
	}
	return src, own
}

// peekSource is peekSourceLocked for a caller that does not hold mu.
func (e *Engine) peekSource(p compute.Peek, ts uint64) (src, own peekSource) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.peekSourceLocked(p, ts)
}

// sourceGone reports whether err is a read's arrangement gone from the
// registry.
func sourceGone(err error) bool {
	return errors.Is(err, arrange.ErrNoExport) || errors.Is(err, arrange.ErrSourceGone)
}

// fallBack reports whether a peek of src that ended with err is read
// again from the arrangement the peek gets: src is an index read in its
// place, and gone (a DROP INDEX before the read took its cursors) or
// built after the read's time (peekSourceLocked passes those over; this
// is the net under it). No row was read then: each error comes before
// the cursors are taken.
func fallBack(src peekSource, err error) bool {
	return src.index && (sourceGone(err) || errors.Is(err, arrange.ErrCompacted))
}

// readTrace calls f for every (key, val) of tr with a nonzero count at
// ts whose key lies in ranges (nil: every key), holding a lease at ts
// while it reads.
func readTrace(tr *arrange.Trace, ts uint64, ranges []compute.KeyRange, f func(key, val []byte, count int64) error) error {
	h, err := tr.NewHandle(ts)
	if err != nil {
		return err
	}
	defer h.Close()
	c, err := h.Cursor()
	if err != nil {
		return err
	}
	for w := compute.WalkRanges(c, ranges); w.Valid(); w.Step() {
		for ; c.ValValid(); c.StepVal() {
			if n := c.Count(ts); n != 0 {
				if err := f(c.Key(), c.Val(), n); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// inflightRead is a transient read in progress.
type inflightRead struct {
	// deps are the collections the read imports.
	deps   []uint64
	cancel context.CancelCauseFunc
	// dataflow is the read's transient dataflow once it is built (under
	// readsMu), so that its failure can end the read.
	dataflow dataflow.ID
	// seq orders reads by start: the memory governor cancels the newest
	// among those holding the same.
	seq  uint64
	done chan struct{}
	// what is the text of the statement the read is for, for errors.
	what string
	// kind is what the read is: "" for a query's, "hydration" for a
	// create's, "subscription" (freshet_internal.dataflows).
	kind string
}

// dependencies lists the collections a plan imports.
func dependencies(plan expr.Relation) []uint64 {
	var ids []uint64
	var walk func(r expr.Relation)
	walk = func(r expr.Relation) {
		if g, ok := r.(expr.Get); ok && !slices.Contains(ids, uint64(g.ID)) {
			ids = append(ids, uint64(g.ID))
		}
		for _, c := range r.Children() {
			walk(c)
		}
	}
	walk(plan)
	return ids
}

// readError explains why a read stopped: the error a DROP gave as the
// cause of its context, or 57014 for a cancel.
func readError(ctx context.Context, err error) error {
	// A read ended by the engine (a drop, a failure, the memory
	// governor) carries its reason as the context's cause.
	var se *sqlerr.Error
	if cause := context.Cause(ctx); cause != nil && errors.As(cause, &se) {
		return cause
	}
	return canceled(err)
}

// canceled maps a context's end to 57014.
func canceled(err error) error {
	if err == context.Canceled || err == context.DeadlineExceeded {
		return sqlerr.New(sqlerr.QueryCanceled, "canceling statement due to user request")
	}
	return err
}

// CreateMaterializedView adds o and starts the dataflow that maintains
// plan and exports it under o's id.
//
// It answers once the dataflow has read its input as of its build (see
// hydrate); a create that is cancelled, times out or passes the memory
// limit meanwhile is undone.
func (e *Engine) CreateMaterializedView(ctx context.Context, o *catalog.Object, plan expr.Relation, names map[uint64]string) error {
	h, err := e.createMaterializedView(ctx, o, plan, names)
	if err != nil {
		return err
	}
	return e.hydrate(ctx, o, h)
}

func (e *Engine) createMaterializedView(ctx context.Context, o *catalog.Object, plan expr.Relation, names map[uint64]string) (*hydration, error) {
	if err := e.awaitMemory(ctx); err != nil {
		return nil, err
	}
	if err := e.mu.acquire(ctx); err != nil {
		return nil, err
	}
	defer e.mu.Unlock()
	if err := e.flushForBuildLocked(ctx, plan); err != nil {
		return nil, err
	}
	if err := e.checkDependsLocked(o, names); err != nil {
		return nil, err
	}
	if err := e.checkPlanReadsLocked(o, plan); err != nil {
		return nil, err
	}
	if _, err := e.cat.Create(o); err != nil {
		return nil, err
	}
	if err := e.persistCatalog(ctx, []*catalog.Object{o}, nil); err != nil {
		e.cat.Remove([]*catalog.Object{o})
		return nil, err
	}
	if err := e.buildViewLocked(context.WithoutCancel(ctx), o, plan); err != nil {
		return nil, e.undoCreateLocked(ctx, o, err)
	}
	if err := e.catalogChangedLocked(ctx); err != nil {
		return nil, err
	}
	return e.startHydrationLocked(o), nil
}

// RebuildView starts the dataflow of a view or index loaded from the
// catalog (at restart).
func (e *Engine) RebuildView(ctx context.Context, o *catalog.Object, plan expr.Relation) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.buildViewLocked(ctx, o, plan)
}

func (e *Engine) buildViewLocked(ctx context.Context, o *catalog.Object, plan expr.Relation) error {
	e.noteSystemReaderLocked(o.ID, plan)
	e.noteImportsLocked(o.ID, dependencies(plan))
	ix := e.joinIndexes()
	source := e.sharedSourceLocked()
	err := e.buildExportLocked(ctx, o, func(b *dataflow.Builder) error {
		c, err := compute.RenderIndexed(b, plan, source, ix)
		if err != nil {
			return err
		}
		return compute.Export(b, e.reg, c, expr.GlobalID(o.ID))
	})
	if err != nil {
		e.forgetImportsLocked(o.ID)
	}
	return err
}

// buildExportLocked builds the dataflow of object o at the read time with
// build, which exports what o's readers import. A build that fails on a
// worker drops the dataflow there; the first failure is returned.
func (e *Engine) buildExportLocked(ctx context.Context, o *catalog.Object, build func(*dataflow.Builder) error) error {
	errs := make([]error, e.workers)
	id, err := e.cluster.Build(ctx, e.fed, func(b *dataflow.Builder) {
		if err := build(b); err != nil {
			errs[b.Index()] = err
			b.RequestDrop()
		}
	})
	if err != nil {
		return err
	}
	for _, err := range errs {
		if err != nil {
			// The build failed on some worker: drop it on all.
			e.cluster.Drop(context.WithoutCancel(ctx), id)
			return err
		}
	}
	e.dataflows[o.ID] = id
	return nil
}

// Stats returns the cluster's counters.
func (e *Engine) Stats() dataflow.Stats { return e.cluster.Stats() }
