package arrange

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"freshet/dataflow"
)

// ErrSourceGone is the error an importing dataflow fails with when the
// arrangement it reads went away without completing (its exporter was
// dropped or failed). It is never mistaken for the empty frontier, which
// would tell readers that all the data is in.
var ErrSourceGone = errors.New("arrangement source gone")

// ErrNoExport is returned by Import for an id that is not exported.
var ErrNoExport = errors.New("no such exported arrangement")

// GlobalID names an exported arrangement (a catalog object's index).
type GlobalID uint64

// Registry holds the exported arrangements of a cluster and who imports
// them. It is the one place where state crosses dataflows, so it is
// reference-checked: a dataflow whose exports have live importers may not
// be dropped (CheckDrop), and an importer's lease is released exactly
// once, when the importing dataflow ends.
//
// Each export has one shard per worker, touched only by that worker's
// goroutine; the registry's own maps are guarded by mu because builds run
// on all workers at once.
type Registry struct {
	workers int
	// onIdle, if set, is told of an exporting dataflow whose exports are
	// all retired and no longer imported: it may now be dropped.
	onIdle func(dataflow.ID)
	mu     struct {
		sync.Mutex
		exports map[GlobalID]*export
	}
}

// NewRegistry returns an empty registry for a cluster of workers workers.
func NewRegistry(workers int) *Registry {
	r := &Registry{workers: workers}
	r.mu.exports = make(map[GlobalID]*export)
	return r
}

type export struct {
	id       GlobalID
	exporter dataflow.ID
	shards   []*shard
	// importers counts, per importing dataflow, the workers on which it
	// still holds a lease. Guarded by Registry.mu.
	importers map[dataflow.ID]int
	// retired is set once the export's catalog object is gone: no new
	// importer may attach, and the exporter is dropped once every export
	// of it is retired and unimported. Guarded by Registry.mu.
	retired bool
	// compaction is the time up to which the exporter's owner allows the
	// trace to compact (its own hold), applied by each worker's arrange
	// operator.
	compaction atomic.Uint64
}

// shard is one worker's part of an export.
type shard struct {
	exp   *export
	trace *Trace
	// hold is the exporter's own lease, advanced by AllowCompaction.
	hold *Handle
	// listeners are the import sources on this worker, fed each new batch.
	listeners []*importSource
	// ended is set when the exporting dataflow ended here, with why.
	ended dataflow.Reason
	// activators wake the arrange operator when compaction is allowed.
	activator *dataflow.Activator
}

// Export registers a under id, from the dataflow being built by b. The
// trace keeps a lease at the dataflow's start until AllowCompaction moves
// it. Every worker's build must export the same ids.
func (r *Registry) Export(b *dataflow.Builder, a *Arranged, id GlobalID) error {
	hold, err := a.Trace.NewHandle(b.Start())
	if err != nil {
		return err
	}
	r.mu.Lock()
	e := r.mu.exports[id]
	if e == nil {
		e = &export{id: id, exporter: b.ID(), shards: make([]*shard, r.workers), importers: map[dataflow.ID]int{}}
		e.compaction.Store(b.Start())
		r.mu.exports[id] = e
	} else if e.exporter != b.ID() {
		r.mu.Unlock()
		hold.Close()
		return fmt.Errorf("arrangement %d is already exported by dataflow %d", id, e.exporter)
	}
	if a.op == nil {
		r.mu.Unlock()
		hold.Close()
		return fmt.Errorf("arrangement %d: only an arrangement made by Arrange can be exported", id)
	}
	s := &shard{exp: e, trace: a.Trace, hold: hold, activator: a.op.Activator()}
	e.shards[b.Index()] = s
	r.mu.Unlock()
	a.shard = s
	b.OnRelease(func(reason dataflow.Reason) { r.exporterEnded(e, s, reason) })
	return nil
}

// exporterEnded runs on the exporter's worker when its dataflow ends
// there. Importers on this worker learn why: after Completed they drain
// and complete; otherwise they fail with ErrSourceGone. A completed
// shard's trace is final and stays readable (Trace, Import) until the
// export is retired; a shard that ended any other way is gone at once.
func (r *Registry) exporterEnded(e *export, s *shard, reason dataflow.Reason) {
	// ended is read by other workers under the lock (forgetIfEndedLocked),
	// so it is written under it too.
	r.mu.Lock()
	s.ended = reason
	if reason != dataflow.Completed {
		e.shards[slices.Index(e.shards, s)] = nil
	}
	r.forgetIfEndedLocked(e)
	r.mu.Unlock()
	if reason != dataflow.Completed {
		// A completed trace keeps its hold: with none, its since would
		// jump to its upper and erase the times readers ask for.
		s.hold.Close()
	}
	for _, l := range s.listeners {
		l.activator.Activate()
	}
}

// forgetIfEndedLocked removes e from the registry once no shard can
// change or be read any more: every shard gone, or every shard ended and
// the export retired.
func (r *Registry) forgetIfEndedLocked(e *export) {
	for _, x := range e.shards {
		if x != nil && (x.ended == 0 || !e.retired) {
			return
		}
	}
	if r.mu.exports[e.id] == e {
		delete(r.mu.exports, e.id)
	}
}

// SetOnIdle installs the function told of an exporting dataflow that has
// become idle (see Retire). It runs on a worker's goroutine or in Retire's
// caller, and must not block.
func (r *Registry) SetOnIdle(f func(dataflow.ID)) {
	r.mu.Lock()
	r.onIdle = f
	r.mu.Unlock()
}

// Retire removes export id from view: no new importer may attach, though
// current importers keep reading. It reports the exporting dataflow and
// whether it is idle now: every export of it retired and none imported.
// If not, the idle function is told later, when its last importer goes.
// Retiring an unknown or retired id reports false.
func (r *Registry) Retire(id GlobalID) (dataflow.ID, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.mu.exports[id]
	if e == nil || e.retired {
		return 0, false
	}
	e.retired = true
	idle := r.idleLocked(e.exporter)
	r.forgetIfEndedLocked(e)
	return e.exporter, idle
}

// idleLocked reports whether every export of dataflow d is retired and
// unimported.
func (r *Registry) idleLocked(d dataflow.ID) bool {
	for _, e := range r.mu.exports {
		if e.exporter != d {
			continue
		}
		if !e.retired {
			return false
		}
		for imp, n := range e.importers {
			if n > 0 && imp != d {
				return false
			}
		}
	}
	return true
}

// AllowCompaction lets export id's trace compact up to t on every worker
// (it never moves back). Readers holding their own leases still pin it.
func (r *Registry) AllowCompaction(id GlobalID, t uint64) {
	r.mu.Lock()
	e := r.mu.exports[id]
	var shards []*shard
	if e != nil {
		for {
			old := e.compaction.Load()
			if t <= old || e.compaction.CompareAndSwap(old, t) {
				break
			}
		}
		shards = slices.Clone(e.shards)
	}
	r.mu.Unlock()
	for _, s := range shards {
		if s != nil && s.activator != nil {
			s.activator.Activate()
		}
	}
}

// Compaction returns the time up to which export id's owner last allowed
// its trace to compact, and whether id is exported (retired exports
// included, until their exporter ends).
func (r *Registry) Compaction(id GlobalID) (uint64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.mu.exports[id]
	if e == nil {
		return 0, false
	}
	return e.compaction.Load(), true
}

// applyCompaction moves the exporter's hold to what AllowCompaction last
// allowed; it runs on the shard's worker.
func (s *shard) applyCompaction() {
	if s.ended != 0 {
		return
	}
	if t := s.exp.compaction.Load(); t > 0 {
		if since, err := s.hold.Since(); err == nil && t > since {
			s.hold.SetSince(t)
		}
	}
}

// publish hands a batch just inserted into the trace to this worker's
// importers.
func (s *shard) publish(b *Batch) {
	for _, l := range s.listeners {
		l.pending = append(l.pending, pendingBatch{batch: b, upper: b.Description().Upper})
		l.activator.Activate()
	}
}

// Importers returns the dataflows that import id, in increasing order.
func (r *Registry) Importers(id GlobalID) []dataflow.ID {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.mu.exports[id]
	if e == nil {
		return nil
	}
	var ids []dataflow.ID
	for d, n := range e.importers {
		if n > 0 {
			ids = append(ids, d)
		}
	}
	slices.Sort(ids)
	return ids
}

// ImportersOf returns the dataflows other than d that import any
// arrangement d exports, in increasing order: the dataflows that must go
// before d may be dropped.
func (r *Registry) ImportersOf(d dataflow.ID) []dataflow.ID {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ids []dataflow.ID
	for _, e := range r.mu.exports {
		if e.exporter != d {
			continue
		}
		for imp, n := range e.importers {
			if n > 0 && imp != d && !slices.Contains(ids, imp) {
				ids = append(ids, imp)
			}
		}
	}
	slices.Sort(ids)
	return ids
}

// CheckDrop refuses the drop of dataflow id while any arrangement it
// exports has importers other than itself, naming them. The caller drops
// importers first (CASCADE), so the runtime never tears down state that
// another dataflow still reads. Install it with Cluster.SetDropGuard.
func (r *Registry) CheckDrop(id dataflow.ID) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var msgs []string
	ids := make([]GlobalID, 0, len(r.mu.exports))
	for gid := range r.mu.exports {
		ids = append(ids, gid)
	}
	slices.Sort(ids)
	for _, gid := range ids {
		e := r.mu.exports[gid]
		if e.exporter != id {
			continue
		}
		var users []string
		for d, n := range e.importers {
			if n > 0 && d != id {
				users = append(users, fmt.Sprint(d))
			}
		}
		if len(users) > 0 {
			slices.Sort(users)
			msgs = append(msgs, fmt.Sprintf("arrangement %d is imported by dataflow %s", gid, strings.Join(users, ", ")))
		}
	}
	if len(msgs) > 0 {
		return &InUseError{Dataflow: id, Detail: strings.Join(msgs, "; ")}
	}
	return nil
}

// InUseError refuses the drop of a dataflow whose exports are imported.
type InUseError struct {
	Dataflow dataflow.ID
	Detail   string
}

func (e *InUseError) Error() string {
	return fmt.Sprintf("cannot drop dataflow %d: %s", e.Dataflow, e.Detail)
}

// Completed reports whether export id's exporter has completed on every
// worker: its trace is final, and the dataflow no longer runs (a view
// over constants completes once it has computed them).
func (r *Registry) Completed(id GlobalID) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.mu.exports[id]
	if e == nil {
		return false
	}
	for _, s := range e.shards {
		if s == nil || s.ended != dataflow.Completed {
			return false
		}
	}
	return true
}

// ImportSinces returns, for each dataflow importing id on worker, the
// since of the lease its import holds there. It must run on that
// worker's goroutine (Cluster.Exec), which owns the import sources.
func (r *Registry) ImportSinces(id GlobalID, worker int) map[dataflow.ID]uint64 {
	r.mu.Lock()
	e := r.mu.exports[id]
	var s *shard
	if e != nil {
		s = e.shards[worker]
	}
	r.mu.Unlock()
	out := map[dataflow.ID]uint64{}
	if s == nil {
		return out
	}
	for _, l := range s.listeners {
		if since, err := l.lease.Since(); err == nil {
			out[l.importer] = since
		}
	}
	return out
}

// Trace returns worker's shard of export id, for a reader that runs on
// that worker's goroutine between steps (a peek) and reads it at once.
// It fails with ErrNoExport for an unknown or retired id and with
// ErrSourceGone once the exporter has ended there other than by
// completing: a completed exporter's trace is final, and readable.
func (r *Registry) Trace(id GlobalID, worker int) (*Trace, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.mu.exports[id]
	if e == nil || e.retired || e.shards[worker] == nil {
		return nil, fmt.Errorf("%w: %d", ErrNoExport, id)
	}
	if s := e.shards[worker]; s.ended != 0 && s.ended != dataflow.Completed {
		return nil, fmt.Errorf("%w: arrangement %d", ErrSourceGone, id)
	}
	return e.shards[worker].trace, nil
}
