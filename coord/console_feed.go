package coord

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"freshet/catalog"
	"freshet/dataflow"
	"freshet/pgwire"
	"freshet/repr"
)

// The console's live updates come from two subscriptions over the
// introspection relations' tables (every database's rows): one row per
// object with its dataflow's memory, its lag, its arrangement's records
// and bytes and what it depends on; and the dataflows that belong to no
// object (queries and subscriptions). A consoleFeed keeps their rows, and
// the state they make, at a version that moves with every change; the
// event stream waits for the next version (Supervisor.ConsoleEvents).
// While the feed runs, its subscriptions follow the introspection tables,
// so the engine writes them every second; a feed nobody has asked for
// in consoleIdle ends, and with it those writes.

// consoleObjectsSQL is the objects subscription's query.
var consoleObjectsSQL = fmt.Sprintf(`SUBSCRIBE (
SELECT o.id, o.database::text, o.schema, o.name, o.kind, o.state, o.dataflow,
	d.memory_bytes, f.lag_ms, a.records, a.bytes, p.deps
FROM freshet_catalog.internal_objects o
LEFT JOIN freshet_catalog.internal_dataflows d ON d.id = o.dataflow AND d.object_id = o.id
LEFT JOIN freshet_catalog.internal_frontiers f ON f.object_id = o.id
LEFT JOIN (SELECT object_id, sum(records)::int8 AS records, sum(bytes)::int8 AS bytes
	FROM freshet_catalog.internal_arrangements GROUP BY object_id) a ON a.object_id = o.id
LEFT JOIN (SELECT object_id, array_agg(depends_on ORDER BY depends_on) AS deps
	FROM freshet_catalog.internal_dependencies GROUP BY object_id) p ON p.object_id = o.id
WHERE o.kind IN (%s))`, strings.Join([]string{quoteLiteral(catalog.Table.String()), quoteLiteral(catalog.View.String()),
	quoteLiteral(catalog.MaterializedView.String()), quoteLiteral(catalog.Index.String())}, ", "))

// consoleTransientSQL is the transient dataflows subscription's query.
const consoleTransientSQL = `SUBSCRIBE (SELECT id, kind, statement, memory_bytes
FROM freshet_catalog.internal_dataflows WHERE object_id IS NULL)`

// consoleIdle is how long a feed runs with nobody asking for it.
var consoleIdle = 30 * time.Second

// consoleVersions numbers the feeds' states, across feeds (an engine
// restart starts a new one), so that a client's last version never
// exceeds a new feed's.
var consoleVersions atomic.Uint64

// consoleFeed follows the introspection relations for the console.
type consoleFeed struct {
	e *Engine
	// used is when the feed was last asked for, in Unix nanoseconds.
	used atomic.Int64

	mu sync.Mutex
	// state is the state the rows make, at version; changed is closed
	// (and replaced) when it moves; err is why the feed ended.
	state   *ConsoleState
	version uint64
	changed chan struct{}
	err     error
	// objects and transient are the subscriptions' rows, with their
	// counts, by their encoding; own are the feed's own dataflows.
	objects, transient map[string]feedRow
	own                []dataflow.ID
	// stop ends the feed's subscriptions.
	stop func()
	// primed counts the subscriptions that have sent their snapshot;
	// the state has no version until both have.
	primed int
}

type feedRow struct {
	row []repr.Datum
	n   int64
}

// startConsoleFeed starts a feed on e, planned in a session of b's that
// no client sees.
func startConsoleFeed(e *Engine, b *Backend) (*consoleFeed, error) {
	s := newSession(b, pgwire.CancelKey{}, pgwire.Startup{User: catalog.BootstrapRole, Database: catalog.DefaultDatabase})
	f := &consoleFeed{e: e, changed: make(chan struct{}), objects: map[string]feedRow{}, transient: map[string]feedRow{}}
	f.used.Store(time.Now().UnixNano())
	ctx, cancel := context.WithCancel(context.Background())
	var subs []*Subscription
	for i, sql := range []string{consoleObjectsSQL, consoleTransientSQL} {
		what := []string{"objects", "transient dataflows"}[i]
		sub, err := s.subscribeSQL(withStatementText(ctx, "the web console's subscription to the "+what), sql)
		if err != nil {
			cancel()
			for _, sub := range subs {
				sub.Close()
			}
			return nil, err
		}
		subs = append(subs, sub)
	}
	f.own = []dataflow.ID{subs[0].dataflowID(), subs[1].dataflowID()}
	f.stop = cancel
	var wg sync.WaitGroup
	for i, sub := range subs {
		rows := &f.objects
		if i == 1 {
			rows = &f.transient
		}
		wg.Go(func() { f.follow(ctx, sub, rows) })
	}
	// The feed ends when nobody has asked for it in consoleIdle, or when
	// a subscription ends (the engine closes or restarts).
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
			case <-t.C:
				if time.Since(time.Unix(0, f.used.Load())) < consoleIdle {
					continue
				}
				f.end(errFeedIdle)
			}
			cancel()
			for _, sub := range subs {
				sub.Close()
			}
			wg.Wait()
			return
		}
	}()
	return f, nil
}

var errFeedIdle = fmt.Errorf("the console's feed was idle")

// follow applies sub's batches to rows until it ends, and moves the
// state after each batch that changed them.
func (f *consoleFeed) follow(ctx context.Context, sub *Subscription, rows *map[string]feedRow) {
	for first := true; ; first = false {
		batch, err := sub.Next(ctx)
		if err != nil {
			f.end(err)
			return
		}
		if len(batch.Changes) == 0 && !batch.Done && !first {
			continue
		}
		f.mu.Lock()
		if first {
			f.primed++
		}
		for _, c := range batch.Changes {
			k := string(repr.PackRow(c.Row...))
			r := (*rows)[k]
			r.row, r.n = c.Row, r.n+c.Diff
			if r.n == 0 {
				delete(*rows, k)
			} else {
				(*rows)[k] = r
			}
		}
		if f.primed == 2 {
			f.state = f.build()
			f.moveLocked()
		}
		f.mu.Unlock()
		if batch.Done {
			f.end(fmt.Errorf("the console's subscription completed"))
			return
		}
	}
}

// moveLocked gives the state a new version and wakes its waiters.
func (f *consoleFeed) moveLocked() {
	f.version = consoleVersions.Add(1)
	close(f.changed)
	f.changed = make(chan struct{})
}

// end records why the feed ended and wakes its waiters.
func (f *consoleFeed) end(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
		close(f.changed)
		f.changed = make(chan struct{})
	}
}

// build makes the console's state from the rows. The caller holds mu,
// or has the feed to itself.
func (f *consoleFeed) build() *ConsoleState {
	st := &ConsoleState{At: int64(f.e.Clock()), Objects: []ConsoleObject{}, Transient: []ConsoleTransient{}}
	for _, r := range f.objects {
		d := r.row
		co := ConsoleObject{ID: uint64(d[0].Int()), Database: d[1].Text(), Schema: d[2].Text(), Name: d[3].Text(),
			Kind: d[4].Text(), State: d[5].Text(), Dataflow: uint64(d[6].Int()), MemoryBytes: d[7].Int(),
			LagMs: d[8].Int(), Records: d[9].Int(), Bytes: d[10].Int(), DependsOn: []string{}}
		if deps, err := d[11].Elems(); err == nil && !d[11].IsNull() {
			for _, dep := range deps {
				co.DependsOn = append(co.DependsOn, dep.Text())
			}
		}
		st.Objects = append(st.Objects, co)
	}
	slices.SortFunc(st.Objects, func(a, b ConsoleObject) int { return cmpUint(a.ID, b.ID) })
	for _, r := range f.transient {
		d := r.row
		if slices.Contains(f.own, dataflow.ID(d[0].Int())) {
			continue
		}
		st.Transient = append(st.Transient, ConsoleTransient{Dataflow: uint64(d[0].Int()), Kind: d[1].Text(),
			Statement: d[2].Text(), MemoryBytes: d[3].Int()})
	}
	slices.SortFunc(st.Transient, func(a, b ConsoleTransient) int { return cmpUint(a.Dataflow, b.Dataflow) })
	return st
}

// ConsoleEvents returns the console's state once its version is past
// after (0 for any), or after wait with the state as it is (nil if the
// feed has none yet).
// The state comes from subscriptions over the introspection relations
// (consoleFeed), started at the first call and ended when nobody has
// called for consoleIdle. It fails while the engine restarts, and when
// the feed it started in place of an ended one ends too.
func (s *Supervisor) ConsoleEvents(ctx context.Context, after uint64, wait time.Duration) (*ConsoleState, uint64, error) {
	f, err := s.consoleFeed()
	if err != nil {
		return nil, 0, err
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	restarted := false
	for {
		f.used.Store(time.Now().UnixNano())
		f.mu.Lock()
		st, v, changed, ferr := f.state, f.version, f.changed, f.err
		f.mu.Unlock()
		if ferr != nil {
			// Ended (idle, or its engine restarted): start another, once.
			// A feed that ends again at once has failed, and the call
			// says so rather than spin.
			if restarted {
				return nil, 0, ferr
			}
			if f, err = s.consoleFeed(); err != nil {
				return nil, 0, err
			}
			restarted = true
			continue
		}
		if v > after {
			return st, v, nil
		}
		select {
		case <-changed:
		case <-timer.C:
			return st, v, nil
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		}
	}
}

// consoleFeed returns the running engine's feed, starting one if it has
// none or its last has ended.
func (s *Supervisor) consoleFeed() (*consoleFeed, error) {
	s.mu.Lock()
	e, b, cur := s.engine, s.backend, s.feed
	s.mu.Unlock()
	if e == nil || b == nil {
		return nil, errRestarting
	}
	if cur != nil && cur.e == e && !cur.ended() {
		return cur, nil
	}
	// Started without the supervisor's lock: building its dataflows
	// waits for the workers, and new sessions take that lock.
	f, err := startConsoleFeed(e, b)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur := s.feed; cur != nil && cur.e == s.engine && !cur.ended() {
		// Another request started one meanwhile: keep that one.
		f.end(errFeedIdle)
		f.stop()
		return cur, nil
	}
	s.feed = f
	return f, nil
}

// ended reports whether the feed has ended.
func (f *consoleFeed) ended() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err != nil
}

var errRestarting = fmt.Errorf("the server is restarting")
