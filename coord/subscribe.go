package coord

import (
	"context"
	"errors"
	"slices"
	"sync"
	"unsafe"

	"freshet/arrange"
	"freshet/compute"
	"freshet/dataflow"
	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// maxSubscribeBacklog bounds the bytes of changes a subscription holds
// that its client has not taken yet. A client that falls this far behind
// gets 53200 and its subscription ends: the server never holds unbounded
// memory for a client that stops reading.
var maxSubscribeBacklog int64 = 256 << 20

// SubscribeOptions are SUBSCRIBE's options.
type SubscribeOptions struct {
	// Snapshot sends the rows as of the start time first (SNAPSHOT,
	// default true); without it only the changes after it are sent.
	Snapshot bool
	// AsOf, if set, is the start time instead of the current read time.
	AsOf *uint64
	// UpTo, if set, ends the subscription once every change before it
	// has been sent.
	UpTo *uint64
}

// SubscribeChange is one row of a subscription's output: a change of
// Diff copies of Row at Time.
type SubscribeChange struct {
	Time uint64
	Diff int64
	Row  []repr.Datum
}

// SubscribeBatch is what a subscription has to say when its frontier
// moves: the changes at times before Progress, in time order, each time's
// changes consolidated, and the new frontier: every change before it has
// been sent. Done is set on the last batch: UP TO was reached, or the
// query's inputs are constants and it completed (Progress is then
// dataflow.Done).
type SubscribeBatch struct {
	Changes  []SubscribeChange
	Progress uint64
	Done     bool
}

// Subscription is a running SUBSCRIBE: a dataflow that maintains the
// query and hands its changes, time by time, to Next. It is a read in
// flight over what it imports until Close, so a DROP of one of them, its
// failure or the memory governor ends it with that error.
type Subscription struct {
	e      *Engine
	types  []repr.Type
	opts   SubscribeOptions
	start  uint64
	read   *inflightRead
	ctx    context.Context
	df     dataflow.ID
	probes []*dataflow.Probe
	// follows says it reads an introspection table (and counts among
	// those that keep them written).
	follows bool
	// followed are the tables under it, which every write advances
	// while it runs (Engine.followLocked).
	followed []uint64
	// frontier is the frontier sent last (the start before the first
	// batch); first is set until the first batch is sent.
	frontier uint64
	first    bool

	// built is closed once the dataflow's build returned (df is set).
	built chan struct{}

	mu      sync.Mutex
	pending []arrange.Update
	held    int64
	account *dataflow.Account
}

// Subscribe starts a subscription to plan. It returns once its dataflow
// is built; Next waits for its batches. ctx bounds only the start: the
// subscription runs until Close.
func (e *Engine) Subscribe(ctx context.Context, plan expr.Relation, opts SubscribeOptions) (*Subscription, error) {
	if expr.ContainsRecursive(plan) {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "SUBSCRIBE to WITH RECURSIVE is not supported")
	}
	ts, release := e.AcquireRead()
	defer release()
	if opts.AsOf != nil {
		ts = *opts.AsOf
	}
	if opts.UpTo != nil && *opts.UpTo < ts {
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "UP TO (%d) is before the start time (%d)", *opts.UpTo, ts)
	}
	deps := dependencies(plan)
	// The subscription outlives the statement that starts it (a cursor
	// is fetched from by later statements): its context is its own.
	rctx, read, err := e.beginRead(context.WithoutCancel(ctx), deps)
	if err != nil {
		return nil, err
	}
	sub := &Subscription{e: e, opts: opts, start: ts, read: read, ctx: rctx, frontier: ts, first: true, built: make(chan struct{})}
	// However the read ends (Close, a DROP, a failure, the memory
	// governor), the dataflow goes and the read with it: a DROP waits
	// for that, not for the client's next FETCH.
	if readsIntrospection(plan) {
		// The introspection tables are written on a timer while it
		// runs, so that it follows the engine's state.
		sub.follows = true
		e.intro.following.Add(1)
	}
	e.mu.Lock()
	sub.followed = e.followLocked(deps)
	e.mu.Unlock()
	context.AfterFunc(rctx, sub.teardown)
	for _, t := range plan.Typ() {
		sub.types = append(sub.types, t.Type)
	}
	sub.probes = make([]*dataflow.Probe, e.workers)
	buildErrs := make([]error, e.workers)
	plan = withNow(plan, ts)
	id, err := e.cluster.Build(rctx, ts, func(b *dataflow.Builder) {
		w := b.Index()
		e.readsMu.Lock()
		read.dataflow, read.kind = b.ID(), "subscription"
		e.readsMu.Unlock()
		c, err := compute.Render(b, plan, e.source())
		if err != nil {
			buildErrs[w] = err
			b.RequestDrop()
			return
		}
		if w == 0 {
			sub.mu.Lock()
			sub.account = b.Account()
			sub.mu.Unlock()
		}
		acct := b.Account()
		collect := func(_ uint64, u arrange.Update) { sub.push(acct, u) }
		rows := dataflow.Inspect(c.Rows, "subscribe", collect)
		errs := dataflow.Inspect(c.Errs, "subscribe errors", func(_ uint64, u arrange.Update) {
			// An error row ends the subscription with its error.
			read.cancel(compute.DecodeError(u.Key))
		})
		sub.probes[w] = dataflow.NewProbe(dataflow.Concat(rows, errs, "subscribe"))
	})
	sub.df = id
	close(sub.built)
	if err == nil {
		for _, berr := range buildErrs {
			if berr != nil {
				err = berr
				break
			}
		}
	}
	if err != nil {
		sub.Close()
		if errors.Is(err, arrange.ErrCompacted) {
			return nil, sqlerr.New(sqlerr.InvalidParameterValue, "AS OF (%d) is before the time the inputs are compacted to", ts)
		}
		if errors.Is(err, arrange.ErrNoExport) || errors.Is(err, arrange.ErrSourceGone) {
			return nil, e.awaitFailure(ctx, deps, err)
		}
		return nil, readError(rctx, err)
	}
	return sub, nil
}

// push adds a change the dataflow made, charging its bytes to the
// subscription's account, and ends the subscription if its client has
// fallen too far behind.
func (sub *Subscription) push(acct *dataflow.Account, u arrange.Update) {
	n := int64(len(u.Key)+len(u.Val)) + int64(unsafe.Sizeof(u))
	acct.Add(n)
	sub.mu.Lock()
	sub.pending = append(sub.pending, u)
	sub.held += n
	over := sub.held > maxSubscribeBacklog
	sub.mu.Unlock()
	if over {
		sub.read.cancel(sqlerr.New(sqlerr.OutOfMemory, "out of memory").
			WithDetail("The subscription's client fell more than %s behind its changes.", mib(maxSubscribeBacklog)).
			WithHint("Read the subscription's rows faster, or subscribe to less."))
	}
}

// Start returns the subscription's start time (its snapshot's time).
func (sub *Subscription) Start() uint64 { return sub.start }

// dataflowID is the subscription's dataflow.
func (sub *Subscription) dataflowID() dataflow.ID { return sub.df }

// Next waits until the subscription's frontier moves and returns what it
// has to say then. It fails when ctx ends (57014), or when the
// subscription was ended: by a DROP of what it reads (that error), a
// failure, the memory governor, or a client too far behind (53200).
func (sub *Subscription) Next(ctx context.Context) (SubscribeBatch, error) {
	for {
		f, err := sub.frontierNow()
		if err != nil {
			return SubscribeBatch{}, err
		}
		if upTo := sub.opts.UpTo; upTo != nil && f > *upTo {
			f = *upTo
		}
		moved := f > sub.frontier || (sub.first && f > sub.start)
		if sub.opts.UpTo != nil && f >= *sub.opts.UpTo {
			moved = true
		}
		if moved {
			return sub.take(f)
		}
		if err := sub.wait(ctx, max(sub.frontier, sub.start)); err != nil {
			return SubscribeBatch{}, err
		}
	}
}

// frontierNow returns the least frontier over the workers.
func (sub *Subscription) frontierNow() (uint64, error) {
	if err := sub.ended(); err != nil {
		return 0, err
	}
	f := dataflow.Frontier(0)
	for i, p := range sub.probes {
		pf, err := p.Frontier()
		if err != nil {
			if err := sub.ended(); err != nil {
				return 0, err
			}
			return 0, sub.e.awaitFailure(sub.ctx, sub.read.deps, err)
		}
		if i == 0 || pf < f {
			f = pf
		}
	}
	return uint64(f), nil
}

// ended returns why the subscription was ended from elsewhere, or nil.
func (sub *Subscription) ended() error {
	if sub.ctx.Err() != nil {
		return readError(sub.ctx, sub.ctx.Err())
	}
	return nil
}

// wait blocks until every worker's frontier has passed t, ctx ends, or
// the subscription is ended.
func (sub *Subscription) wait(ctx context.Context, t uint64) error {
	both, stop := context.WithCancel(ctx)
	defer stop()
	unhook := context.AfterFunc(sub.ctx, stop)
	defer unhook()
	for _, p := range sub.probes {
		if err := p.WaitPast(both, t); err != nil {
			if err := sub.ended(); err != nil {
				return err
			}
			if ctx.Err() != nil {
				return readError(ctx, ctx.Err())
			}
			return sub.e.awaitFailure(sub.ctx, sub.read.deps, err)
		}
	}
	return nil
}

// take removes the changes before f from the backlog and makes them a
// batch.
func (sub *Subscription) take(f uint64) (SubscribeBatch, error) {
	sub.mu.Lock()
	var ready []arrange.Update
	keep := sub.pending[:0]
	var freed int64
	for _, u := range sub.pending {
		if u.Time < f || (sub.first && u.Time <= sub.start) {
			ready = append(ready, u)
			freed += int64(len(u.Key)+len(u.Val)) + int64(unsafe.Sizeof(u))
		} else {
			keep = append(keep, u)
		}
	}
	clear(sub.pending[len(keep):])
	sub.pending = keep
	sub.held -= freed
	sub.account.Add(-freed)
	sub.mu.Unlock()

	first := sub.first
	sub.first = false
	type key struct {
		time uint64
		row  string
	}
	sums := map[key]int64{}
	for _, u := range ready {
		t := u.Time
		if t <= sub.start {
			if !first || !sub.opts.Snapshot {
				continue
			}
			t = sub.start
		}
		sums[key{t, string(u.Key)}] += u.Diff
	}
	keys := make([]key, 0, len(sums))
	for k, n := range sums {
		if n != 0 {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.time != b.time {
			if a.time < b.time {
				return -1
			}
			return 1
		}
		if a.row < b.row {
			return -1
		}
		if a.row > b.row {
			return 1
		}
		return 0
	})
	batch := SubscribeBatch{Progress: f}
	for _, k := range keys {
		ds, err := repr.Row(k.row).Datums(sub.types)
		if err != nil {
			return SubscribeBatch{}, sqlerr.Wrapf(err, sqlerr.InternalError, "decoding a subscription's row")
		}
		batch.Changes = append(batch.Changes, SubscribeChange{Time: k.time, Diff: sums[k], Row: ds})
	}
	sub.frontier = f
	// A dataflow that completed (over constants only) changes no more.
	if (sub.opts.UpTo != nil && f >= *sub.opts.UpTo) || f == uint64(dataflow.Done) {
		batch.Done = true
	}
	return batch, nil
}

// Close ends the subscription: its dataflow is dropped and its read ends.
// It returns at once; the drop completes in the background.
func (sub *Subscription) Close() { sub.read.cancel(nil) }

// teardown drops the subscription's dataflow, once built, and ends its
// read. It runs once, when the read's context ends.
func (sub *Subscription) teardown() {
	if sub.follows {
		sub.e.intro.following.Add(-1)
	}
	go func() {
		<-sub.built
		if sub.df != 0 {
			sub.e.cluster.Drop(context.Background(), sub.df)
		}
		sub.e.endRead(sub.read)
		sub.e.mu.Lock()
		sub.e.unfollowLocked(sub.followed)
		sub.e.mu.Unlock()
	}()
}
