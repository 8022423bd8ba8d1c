package dataflow

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The tests in this file check that dropping a dataflow is safe: the
// lifecycle rules of DESIGN.md ("Dataflow lifecycle and drop") and the
// invariants I1–I11 of research/drop-safety.md. Each test names the
// scenario of that page's §4 it covers. The Sim tests are seeded, so a
// failing seed replays exactly; the few that need real goroutines use
// the Cluster and wait on probes and command completions, never on time
// (a context bound only turns a hang into a failure).

// maxEvents bounds every simulation phase: a phase that needs more is a
// livelock, reported as a failure rather than a hang.
const maxEvents = 400000

// harness is a Sim whose workers send through a counting allocator and
// report every end, so tests can check silence (I3) and "exactly one end
// event" on any run.
type harness struct {
	*Sim
	log *opLog
	// ends[id][w] lists the reasons dataflow id ended with on worker w.
	ends map[ID][][]Reason
	// sent[id][w] counts messages (data and progress) worker w sent for id.
	sent map[ID][]int
	// silenceBroken describes every message or progress batch a worker
	// sent for a dataflow that was not running there: ended, not yet
	// built, or failed in the current step.
	silenceBroken []string
	// attentionBroken describes every step after which a worker's
	// attention list broke its invariant (attentionViolation).
	attentionBroken []string
}

// countingAllocator is the Sim's network seen through the harness: every
// send is counted and checked against the sender's ended dataflows.
type countingAllocator struct {
	*SimNetwork
	h *harness
}

func (a *countingAllocator) Send(m Message) {
	a.h.noteSend(m.From, m.Channel.Dataflow, func() string {
		return fmt.Sprintf("message on channel %s to worker %d", m.Channel, m.To)
	})
	a.SimNetwork.Send(m)
}

// newHarness returns a simulation of workers workers under seed whose
// workers are instrumented. Messages injected with h.Net.Send bypass the
// counting, as a peer's would.
func newHarness(workers int, seed uint64) *harness {
	sim := NewSim(workers, seed)
	h := &harness{Sim: sim, log: newOpLog(), ends: make(map[ID][][]Reason), sent: make(map[ID][]int)}
	alloc := &countingAllocator{SimNetwork: sim.Net, h: h}
	for i := range sim.Workers {
		w := NewWorker(i, alloc, func(f Failure) { sim.Failures = append(sim.Failures, f) })
		w.onEnd = h.noteEnd
		w.onPublish = func(w int, id ID, batch []Delta) {
			h.noteSend(w, id, func() string { return fmt.Sprintf("progress batch %v", batch) })
		}
		w.afterStep = func(w *Worker) {
			if msg := attentionViolation(w); msg != "" {
				h.attentionBroken = append(h.attentionBroken, msg)
			}
		}
		sim.Workers[i] = w
	}
	return h
}

func (h *harness) noteEnd(w int, id ID, r Reason) {
	if h.ends[id] == nil {
		h.ends[id] = make([][]Reason, len(h.Workers))
	}
	h.ends[id][w] = append(h.ends[id][w], r)
}

func (h *harness) noteSend(w int, id ID, what func() string) {
	// A worker may send for a dataflow only while it runs there: not
	// after its end began (the end event comes last), not before its
	// build, and not after an operator of it failed in this step.
	switch df := h.Workers[w].live[id]; {
	case h.endedOn(w, id) || (df == nil && h.Workers[w].hwm >= id) || (df != nil && df.state == Ended):
		h.silenceBroken = append(h.silenceBroken, fmt.Sprintf("worker %d sent %s for dataflow %d after it ended there", w, what(), id))
	case df == nil:
		h.silenceBroken = append(h.silenceBroken, fmt.Sprintf("worker %d sent %s for dataflow %d before building it", w, what(), id))
	case df.failed:
		h.silenceBroken = append(h.silenceBroken, fmt.Sprintf("worker %d sent %s for dataflow %d after an operator of it failed", w, what(), id))
	}
	if h.sent[id] == nil {
		h.sent[id] = make([]int, len(h.Workers))
	}
	h.sent[id][w]++
}

// endedOn reports whether dataflow id ended on worker w.
func (h *harness) endedOn(w int, id ID) bool {
	return h.ends[id] != nil && len(h.ends[id][w]) > 0
}

// endedEverywhere reports whether dataflow id ended on every worker.
func (h *harness) endedEverywhere(id ID) bool {
	for w := range h.Workers {
		if !h.endedOn(w, id) {
			return false
		}
	}
	return true
}

// liveEverywhere reports whether dataflow id is built and running on
// every worker.
func (h *harness) liveEverywhere(id ID) bool {
	for _, w := range h.Workers {
		if w.live[id] == nil {
			return false
		}
	}
	return true
}

// sentBy returns how many messages worker w sent for dataflow id.
func (h *harness) sentBy(id ID, w int) int {
	if h.sent[id] == nil {
		return 0
	}
	return h.sent[id][w]
}

func (h *harness) sentTotal(id ID) int {
	n := 0
	for _, c := range h.sent[id] {
		n += c
	}
	return n
}

// runQuiet runs the simulation until nothing is left to do.
func (h *harness) runQuiet(t *testing.T) {
	t.Helper()
	if !h.Run(maxEvents) {
		t.Fatalf("simulation still busy after %d events (livelock?); stats %+v", maxEvents, h.Stats())
	}
	h.checkAttention(t)
}

// runUntil runs the simulation until cond holds.
func (h *harness) runUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !h.RunUntil(maxEvents, cond) {
		t.Fatalf("never reached: %s; stats %+v, failures %v", what, h.Stats(), h.Failures)
	}
	h.checkAttention(t)
}

// runEvents performs up to n events; it stops early if the simulation
// goes quiet.
func (h *harness) runEvents(n int) {
	h.Wake()
	for i := 0; i < n && h.Event(); i++ {
	}
}

// runQuietChecking runs the simulation until nothing is left to do,
// calling check before every event; check returns a non-empty
// description of a violation.
func (h *harness) runQuietChecking(t *testing.T, check func() string) {
	t.Helper()
	h.Wake()
	for i := 0; ; i++ {
		h.checkAttention(t)
		if msg := check(); msg != "" {
			t.Fatalf("after %d events: %s", i, msg)
		}
		if i == maxEvents {
			t.Fatalf("simulation still busy after %d events", maxEvents)
		}
		if !h.Event() {
			return
		}
	}
}

// checkNoFailures fails the test if any failure was reported.
func (h *harness) checkNoFailures(t *testing.T) {
	t.Helper()
	for _, f := range h.Failures {
		t.Errorf("unexpected failure: %v\n%s", f, f.Stack)
	}
}

// checkAttention fails the test if a step left a worker's attention list
// broken: a live dataflow with work that no step would visit.
func (h *harness) checkAttention(t *testing.T) {
	t.Helper()
	if len(h.attentionBroken) > 0 {
		t.Fatalf("attention list: %s", h.attentionBroken[0])
	}
}

// checkSilence fails the test if a worker sent anything for a dataflow
// after it ended there (I3).
func (h *harness) checkSilence(t *testing.T) {
	t.Helper()
	for _, s := range h.silenceBroken {
		t.Error(s)
	}
}

// checkEnds fails the test unless dataflow id ended exactly once on
// every worker, with reason want.
func (h *harness) checkEnds(t *testing.T, id ID, want Reason) {
	t.Helper()
	for w := range h.Workers {
		var got []Reason
		if h.ends[id] != nil {
			got = h.ends[id][w]
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("dataflow %d on worker %d: end events %v, want exactly one %v", id, w, got, want)
		}
	}
}

// checkClean fails the test unless no worker holds anything for any
// dataflow: no live dataflow, no held message, no tombstone, no queued
// drop request, nothing in flight, and the live counters at zero.
func (h *harness) checkClean(t *testing.T) {
	t.Helper()
	for _, w := range h.Workers {
		if len(w.live) != 0 || len(w.attention) != 0 {
			t.Errorf("worker %d: %d live dataflows, %d needing attention", w.index, len(w.live), len(w.attention))
		}
		if len(w.held) != 0 {
			t.Errorf("worker %d: held messages for %d dataflows", w.index, len(w.held))
		}
		if len(w.tombstones) != 0 {
			t.Errorf("worker %d: %d tombstones", w.index, len(w.tombstones))
		}
		if len(w.dropRequests) != 0 {
			t.Errorf("worker %d: %d drop requests left", w.index, len(w.dropRequests))
		}
		st := w.Stats()
		if st.Building != 0 || st.Running != 0 || st.Operators != 0 || st.Channels != 0 || st.Held != 0 || st.Tombstones != 0 {
			t.Errorf("worker %d: live counters not zero: %+v", w.index, st)
		}
	}
	if n := h.Net.InFlight(); n != 0 {
		t.Errorf("%d messages still in flight", n)
	}
	if len(h.Net.queues) != 0 {
		t.Errorf("network keeps %d queues", len(h.Net.queues))
	}
}

// forWorkers runs f as one subtest per worker count.
func forWorkers(t *testing.T, counts []int, f func(t *testing.T, workers int)) {
	t.Helper()
	for _, n := range counts {
		t.Run(fmt.Sprintf("W=%d", n), func(t *testing.T) { f(t, n) })
	}
}

// mix is the hash every exchange in these tests uses.
func mix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// sourceValue is the n-th record the source salted with salt emits on
// worker w.
func sourceValue(salt uint64, w, n int) uint64 {
	return mix(salt ^ (uint64(w)<<32 | uint64(n)))
}

// opKey names one operator of one dataflow on one worker.
type opKey struct {
	df     ID
	worker int
	name   string
}

// opLog records how often each operator was scheduled and the reasons
// its Shutdown was called with. It is safe for concurrent use.
type opLog struct {
	mu        sync.Mutex
	scheduled map[opKey]int
	shutdowns map[opKey][]Reason
}

func newOpLog() *opLog {
	return &opLog{scheduled: make(map[opKey]int), shutdowns: make(map[opKey][]Reason)}
}

// logic returns run as a Logic whose calls are recorded under k; with a
// nil log it records nothing.
func (l *opLog) logic(k opKey, run func()) Logic {
	if l == nil {
		return ScheduleFunc(run)
	}
	return &loggedLogic{log: l, key: k, run: run}
}

func (l *opLog) schedules(k opKey) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.scheduled[k]
}

func (l *opLog) reasons(k opKey) []Reason {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.shutdowns[k])
}

// checkShutdownOnce fails the test unless every named operator of df was
// shut down exactly once on every worker, with reason want.
func (l *opLog) checkShutdownOnce(t *testing.T, df ID, workers int, want Reason, names ...string) {
	t.Helper()
	for w := 0; w < workers; w++ {
		for _, name := range names {
			if got := l.reasons(opKey{df, w, name}); len(got) != 1 || got[0] != want {
				t.Errorf("operator %s of dataflow %d on worker %d: Shutdown reasons %v, want exactly one %v", name, df, w, got, want)
			}
		}
	}
}

type loggedLogic struct {
	log   *opLog
	key   opKey
	run   func()
	ended bool
}

func (l *loggedLogic) Schedule() {
	l.log.mu.Lock()
	l.log.scheduled[l.key]++
	ended := l.ended
	l.log.mu.Unlock()
	if ended {
		panic(fmt.Sprintf("%v scheduled after its Shutdown", l.key))
	}
	l.run()
}

func (l *loggedLogic) Shutdown(r Reason) {
	l.log.mu.Lock()
	l.log.shutdowns[l.key] = append(l.log.shutdowns[l.key], r)
	l.ended = true
	l.log.mu.Unlock()
}

// logicFuncs is a Logic made of two functions.
type logicFuncs struct {
	schedule func()
	shutdown func(Reason)
}

func (l logicFuncs) Schedule() { l.schedule() }

func (l logicFuncs) Shutdown(r Reason) {
	if l.shutdown != nil {
		l.shutdown(r)
	}
}

// source adds an operator that, each time it runs, gives perStep records
// at its capability's time, then moves the capability one time on and
// asks to run again. After total records (never, if total is 0) it
// releases its capability. Its n-th record is sourceValue(salt, w, n).
func source(b *Builder, name string, perStep, total int, salt uint64, log *opLog) Stream[uint64] {
	ob := b.NewOperator(name)
	out, s := NewOutput[uint64](ob)
	w := b.Index()
	key := opKey{b.ID(), w, name}
	ob.Build(func(op *Operator, caps []*Capability) Logic {
		capability := caps[0]
		n := 0
		return log.logic(key, func() {
			if capability == nil {
				return
			}
			recs := make([]uint64, 0, perStep)
			for i := 0; i < perStep && (total == 0 || n < total); i++ {
				recs = append(recs, sourceValue(salt, w, n))
				n++
			}
			out.GiveSlice(capability.Time(), recs)
			if total > 0 && n >= total {
				capability.Release()
				capability = nil
				return
			}
			capability.Downgrade(capability.Time() + 1)
			op.Activate()
		})
	})
	return s
}

// sourceOutput returns every record (time, value) the source emits on
// every worker, sorted.
func sourceOutput(workers, perStep, total int, salt uint64, f func(uint64) (uint64, bool)) []timed {
	var out []timed
	for w := 0; w < workers; w++ {
		for n := 0; n < total; n++ {
			if v, ok := f(sourceValue(salt, w, n)); ok {
				out = append(out, timed{uint64(n / perStep), v})
			}
		}
	}
	sortTimed(out)
	return out
}

// relay adds an operator that passes s on through pact.
func relay(s Stream[uint64], name string, pact Pact[uint64], log *opLog) Stream[uint64] {
	b := s.Builder()
	ob := b.NewOperator(name)
	in := NewInput(ob, s, pact)
	out, next := NewOutput[uint64](ob)
	key := opKey{b.ID(), b.Index(), name}
	ob.Build(func(_ *Operator, caps []*Capability) Logic {
		caps[0].Release()
		return log.logic(key, func() {
			for {
				t, data, ok := in.Next()
				if !ok {
					return
				}
				out.GiveSlice(t, data)
			}
		})
	})
	return next
}

// timed is one record with its time, as a sink saw it.
type timed struct{ time, value uint64 }

func sortTimed(ts []timed) {
	slices.SortFunc(ts, func(a, b timed) int {
		if a.time != b.time {
			if a.time < b.time {
				return -1
			}
			return 1
		}
		if a.value != b.value {
			if a.value < b.value {
				return -1
			}
			return 1
		}
		return 0
	})
}

// collector keeps what a capture operator saw on each worker. It is safe
// for concurrent use.
type collector struct {
	mu  sync.Mutex
	got [][]timed
}

func newCollector(workers int) *collector { return &collector{got: make([][]timed, workers)} }

// capture adds an Inspect that records every record into c.
func capture(s Stream[uint64], name string, c *collector) Stream[uint64] {
	w := s.Builder().Index()
	return Inspect(s, name, func(t uint64, r uint64) {
		c.mu.Lock()
		c.got[w] = append(c.got[w], timed{t, r})
		c.mu.Unlock()
	})
}

// perWorker returns what worker w saw, sorted.
func (c *collector) perWorker(w int) []timed {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := slices.Clone(c.got[w])
	sortTimed(out)
	return out
}

// all returns what every worker saw, sorted.
func (c *collector) all() []timed {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []timed
	for _, g := range c.got {
		out = append(out, g...)
	}
	sortTimed(out)
	return out
}

// checkSameTimed fails the test unless got equals want.
func checkSameTimed(t *testing.T, what string, got, want []timed) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	t.Errorf("%s: got %d records, want %d", what, len(got), len(want))
	for i := 0; i < len(got) || i < len(want); i++ {
		var g, w timed
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("%s: first difference at %d: got %v want %v", what, i, g, w)
			return
		}
	}
}

func allSet[T any](ps []*T) bool {
	for _, p := range ps {
		if p == nil {
			return false
		}
	}
	return true
}

// TestDropIdleDataflowFreesEverythingAndShutsDownOnce covers scenario 1:
// dropping a built, idle dataflow leaves no live dataflow, zero operator,
// channel and held counts, one Dropped end event per worker, and calls
// every operator's Shutdown exactly once with Dropped.
func TestDropIdleDataflowFreesEverythingAndShutsDownOnce(t *testing.T) {
	forWorkers(t, []int{1, 2, 4}, func(t *testing.T, workers int) {
		forSeeds(t, 20, func(t *testing.T, seed uint64) {
			h := newHarness(workers, seed)
			inputs := make([]*InputHandle[uint64], workers)
			id := h.Build(0, func(b *Builder) {
				in, s := NewInputHandle[uint64](b, "input")
				inputs[b.Index()] = in
				s = relay(s, "shuffle", Exchange(mix), h.log)
				s = relay(s, "spread", Broadcast[uint64](), h.log)
				NewProbe(s)
			})
			h.runUntil(t, "built everywhere", func() bool { return h.liveEverywhere(id) })
			for w, in := range inputs {
				if err := in.Send(0, uint64(w), uint64(w)+10); err != nil {
					t.Fatal(err)
				}
				if err := in.Advance(1); err != nil {
					t.Fatal(err)
				}
			}
			// Idle: the inputs hold capabilities at 1, nothing moves.
			h.runQuiet(t)
			st := h.Stats()
			if st.Running != int64(workers) || st.Operators != int64(4*workers) || st.Channels != int64(4*workers) {
				t.Fatalf("before drop: stats %+v, want %d running, %d operators, %d channels", st, workers, 4*workers, 4*workers)
			}

			h.Drop(id)
			h.runQuiet(t)

			h.checkNoFailures(t)
			h.checkClean(t)
			h.checkEnds(t, id, Dropped)
			h.log.checkShutdownOnce(t, id, workers, Dropped, "shuffle", "spread")
			h.checkSilence(t)
			if st := h.Stats(); st.Dropped != int64(workers) || st.Completed != 0 || st.Failed != 0 {
				t.Errorf("after drop: stats %+v, want %d dropped", st, workers)
			}
		})
	})
}

// TestDropDuringExchangeTrafficDiscardsWithoutDeadlock covers scenario
// 2: worker 0 drops a dataflow while its peers keep sending to it
// through an exchange for thousands of events; then they drop too. No
// failure, no deadlock, nothing left anywhere, and the traffic to worker
// 0 was discarded, never held.
func TestDropDuringExchangeTrafficDiscardsWithoutDeadlock(t *testing.T) {
	forWorkers(t, []int{2, 4}, func(t *testing.T, workers int) {
		forSeeds(t, 10, func(t *testing.T, seed uint64) {
			h := newHarness(workers, seed)
			id := h.Build(0, func(b *Builder) {
				s := source(b, "gen", 4, 0, seed, nil)
				s = relay(s, "shuffle", Exchange(mix), nil)
				NewProbe(s)
			})
			h.runUntil(t, "exchange traffic on every worker", func() bool {
				if !h.liveEverywhere(id) {
					return false
				}
				for w := 0; w < workers; w++ {
					if h.sentBy(id, w) < 20 {
						return false
					}
				}
				return true
			})

			h.Enqueue(0, Command{ID: id})
			h.runUntil(t, "worker 0 dropped", func() bool { return h.endedOn(0, id) })
			w0 := h.Workers[0]
			discarded := w0.Stats().Discarded
			sentByPeers := h.sentTotal(id) - h.sentBy(id, 0)
			for i := 0; i < 3000 && h.Event(); i++ {
				if len(w0.held) != 0 {
					t.Fatalf("worker 0 holds messages for an ended dataflow: %v", w0.held)
				}
			}
			if h.sentTotal(id)-h.sentBy(id, 0) <= sentByPeers {
				t.Fatalf("peers stopped sending after worker 0 dropped; the test exercised nothing")
			}
			if w0.Stats().Discarded <= discarded {
				t.Errorf("worker 0 discarded nothing after its drop (before %d, after %d)", discarded, w0.Stats().Discarded)
			}

			for w := 1; w < workers; w++ {
				h.Enqueue(w, Command{ID: id})
			}
			h.runQuiet(t)

			h.checkNoFailures(t)
			h.checkClean(t)
			h.checkEnds(t, id, Dropped)
			h.checkSilence(t)
			if h.Stats().Discarded == 0 {
				t.Errorf("nothing was discarded")
			}
		})
	})
}

// TestLateMessagesAfterDropAreDiscardedNotHeld covers scenario 3 (and
// H8): messages carrying a dropped dataflow's channel ids, injected after
// every worker dropped it, are discarded and counted on arrival, never
// held, and never reach the newer dataflow that is running meanwhile.
func TestLateMessagesAfterDropAreDiscardedNotHeld(t *testing.T) {
	forWorkers(t, []int{1, 2, 4}, func(t *testing.T, workers int) {
		forSeeds(t, 20, func(t *testing.T, seed uint64) {
			h := newHarness(workers, seed)
			old := h.Build(0, func(b *Builder) {
				s := source(b, "gen", 2, 0, seed, nil)
				s = relay(s, "shuffle", Exchange(mix), nil)
				NewProbe(s)
			})
			h.runUntil(t, "traffic", func() bool { return h.liveEverywhere(old) && h.sentTotal(old) > 10*workers })
			h.Drop(old)
			h.runQuiet(t)

			inputs := make([]*InputHandle[uint64], workers)
			col := newCollector(workers)
			next := h.Build(0, func(b *Builder) {
				in, s := NewInputHandle[uint64](b, "input")
				inputs[b.Index()] = in
				s = relay(s, "shuffle", Exchange(mix), nil)
				capture(s, "capture", col)
			})
			discarded := make([]int64, workers)
			for w, wk := range h.Workers {
				discarded[w] = wk.Stats().Discarded
			}
			// Inject, before and after the newer build, data on the old
			// data channel, progress on the old progress channel, and a
			// message for a channel index the old dataflow never had.
			injected := make([]int64, workers)
			inject := func() {
				for to := 0; to < workers; to++ {
					for from := 0; from < workers; from++ {
						h.Net.Send(Message{Channel: ChannelID{old, 1}, From: from, To: to, Time: 0, Data: []uint64{42}})
						h.Net.Send(Message{Channel: ChannelID{old, progressChannel}, From: from, To: to, Seq: 1 << 20, Progress: []Delta{{Loc: 0, Time: 0, Diff: 1}}})
						h.Net.Send(Message{Channel: ChannelID{old, 9}, From: from, To: to, Time: 5, Data: []uint64{7}})
						injected[to] += 3
					}
				}
			}
			inject()
			h.runUntil(t, "newer dataflow built", func() bool { return allSet(inputs) })
			inject()
			var want []timed
			for w, in := range inputs {
				for i := 0; i < 5; i++ {
					v := uint64(1000*w + i)
					if err := in.Send(uint64(i), v); err != nil {
						t.Fatal(err)
					}
					want = append(want, timed{uint64(i), v})
				}
				if err := in.Close(); err != nil {
					t.Fatal(err)
				}
			}
			sortTimed(want)
			h.runQuietChecking(t, func() string {
				for _, wk := range h.Workers {
					if len(wk.held[old]) != 0 {
						return fmt.Sprintf("worker %d holds late messages", wk.index)
					}
				}
				return ""
			})

			h.checkNoFailures(t)
			for w, wk := range h.Workers {
				if got := wk.Stats().Discarded - discarded[w]; got != injected[w] {
					t.Errorf("worker %d discarded %d late messages, want %d", w, got, injected[w])
				}
			}
			checkSameTimed(t, "newer dataflow's output", col.all(), want)
			h.checkEnds(t, next, Completed)
			h.checkClean(t)
			h.checkSilence(t)
		})
	})
}

// TestEarlyMessagesAreHeldUntilBuildAndDelivered covers scenario 4: one
// worker's build is delayed while its peers build, run and send to it;
// their messages (data and progress) are held, and once it builds they
// are delivered: the output is complete and nothing was discarded.
func TestEarlyMessagesAreHeldUntilBuildAndDelivered(t *testing.T) {
	forWorkers(t, []int{2, 4}, func(t *testing.T, workers int) {
		forSeeds(t, 50, func(t *testing.T, seed uint64) {
			h := newHarness(workers, seed)
			late := int(seed % uint64(workers))
			id := h.NextID()
			inputs := make([]*InputHandle[uint64], workers)
			col := newCollector(workers)
			build := Command{ID: id, Start: 0, Build: func(b *Builder) {
				in, s := NewInputHandle[uint64](b, "input")
				inputs[b.Index()] = in
				s = relay(s, "shuffle", Exchange(mix), nil)
				s = capture(s, "capture", col)
				NewProbe(s)
			}}
			for w := 0; w < workers; w++ {
				if w != late {
					h.Enqueue(w, build)
				}
			}
			h.runUntil(t, "peers built", func() bool {
				for w, in := range inputs {
					if w != late && in == nil {
						return false
					}
				}
				return true
			})
			var want []timed
			feed := func(w int) {
				for i := 0; i < 20; i++ {
					v := uint64(w)<<32 | uint64(i)
					if err := inputs[w].Send(uint64(i/4), v); err != nil {
						t.Fatal(err)
					}
					want = append(want, timed{uint64(i / 4), v})
				}
				if err := inputs[w].Close(); err != nil {
					t.Fatal(err)
				}
			}
			for w := range inputs {
				if w != late {
					feed(w)
				}
			}
			lw := h.Workers[late]
			maxHeld := int64(0)
			h.runQuietChecking(t, func() string {
				maxHeld = max(maxHeld, lw.Stats().Held)
				if h.endedOn(late, id) {
					return "the late worker ended a dataflow it never built"
				}
				return ""
			})
			if maxHeld == 0 || len(lw.held[id]) == 0 {
				t.Fatalf("nothing was held on the late worker (max held %d)", maxHeld)
			}
			if inputs[late] != nil {
				t.Fatalf("late worker built before its command")
			}

			h.Enqueue(late, build)
			h.runUntil(t, "late worker built", func() bool { return inputs[late] != nil })
			if lw.Stats().Held != 0 || len(lw.held) != 0 {
				t.Errorf("late worker still holds %d messages after its build", lw.Stats().Held)
			}
			feed(late)
			sortTimed(want)
			h.runQuiet(t)

			h.checkNoFailures(t)
			checkSameTimed(t, "output", col.all(), want)
			h.checkEnds(t, id, Completed)
			if d := h.Stats().Discarded; d != 0 {
				t.Errorf("%d messages discarded; early messages were lost", d)
			}
			h.checkClean(t)
			h.checkSilence(t)
		})
	})
}

// TestSlowBuilderAfterPeerDroppedLeavesNoBuffers covers scenario 5:
// worker 0 builds and drops D before the other workers build it. Their
// sends to worker 0 are discarded, never held, and after they drop too no
// buffer is left on any worker or in the network.
func TestSlowBuilderAfterPeerDroppedLeavesNoBuffers(t *testing.T) {
	forWorkers(t, []int{2, 4}, func(t *testing.T, workers int) {
		forSeeds(t, 10, func(t *testing.T, seed uint64) {
			h := newHarness(workers, seed)
			id := h.NextID()
			built := make([]bool, workers)
			build := Command{ID: id, Start: 0, Build: func(b *Builder) {
				built[b.Index()] = true
				s := source(b, "gen", 3, 0, seed, nil)
				s = relay(s, "shuffle", Exchange(mix), nil)
				NewProbe(s)
			}}
			h.Enqueue(0, build)
			h.Enqueue(0, Command{ID: id})
			h.runQuiet(t)
			if !built[0] || !h.endedOn(0, id) {
				t.Fatalf("worker 0 did not build and drop: built %v ends %v", built, h.ends[id])
			}
			w0 := h.Workers[0]
			discarded := w0.Stats().Discarded

			for w := 1; w < workers; w++ {
				h.Enqueue(w, build)
			}
			h.runUntil(t, "slow workers built and sending", func() bool {
				for w := 1; w < workers; w++ {
					if !built[w] || h.sentBy(id, w) < 30 {
						return false
					}
				}
				return true
			})
			for i := 0; i < 2000 && h.Event(); i++ {
				if len(w0.held) != 0 {
					t.Fatalf("worker 0 holds messages for a dataflow it dropped")
				}
			}
			if w0.Stats().Discarded <= discarded {
				t.Errorf("worker 0 discarded none of the slow workers' sends")
			}

			for w := 1; w < workers; w++ {
				h.Enqueue(w, Command{ID: id})
			}
			h.runQuiet(t)

			h.checkNoFailures(t)
			h.checkEnds(t, id, Dropped)
			h.checkClean(t)
			h.checkSilence(t)
		})
	})
}

// TestDropDuringConstructionFinishesBuildThenDrops covers scenario 6: a
// drop asked for while D is being built, from inside the build function
// or by a drop command queued right behind the build, lets the build
// finish with the same channel numbering on every worker, then drops D
// before any of its operators runs: Shutdown(Dropped) once each, Schedule
// never, nothing sent. The next dataflow then works on every worker.
func TestDropDuringConstructionFinishesBuildThenDrops(t *testing.T) {
	for _, variant := range []string{"builder-requests-drop", "drop-queued-behind-build"} {
		t.Run(variant, func(t *testing.T) {
			forWorkers(t, []int{1, 2, 4}, func(t *testing.T, workers int) {
				forSeeds(t, 30, func(t *testing.T, seed uint64) {
					h := newHarness(workers, seed)
					channels := make([]uint32, workers)
					buildD := func(b *Builder) {
						s := source(b, "gen", 3, 12, seed, h.log)
						s = relay(s, "shuffle", Exchange(mix), h.log)
						s = relay(s, "spread", Broadcast[uint64](), h.log)
						if variant == "builder-requests-drop" {
							b.RequestDrop()
						}
						s = relay(s, "tail", Pipeline[uint64](), h.log)
						NewProbe(s)
						channels[b.Index()] = b.nextChannel
					}
					// Both variants hand the worker its commands directly,
					// so the build and the queued drop are applied in one
					// step, as when both wait in a worker's queue.
					id := h.NextID()
					for _, w := range h.Workers {
						w.Enqueue(Command{ID: id, Start: 0, Build: buildD})
						if variant == "drop-queued-behind-build" {
							w.Enqueue(Command{ID: id})
						}
					}
					h.runQuiet(t)

					h.checkNoFailures(t)
					h.checkEnds(t, id, Dropped)
					names := []string{"gen", "shuffle", "spread", "tail"}
					h.log.checkShutdownOnce(t, id, workers, Dropped, names...)
					for w := 0; w < workers; w++ {
						for _, name := range names {
							if n := h.log.schedules(opKey{id, w, name}); n != 0 {
								t.Errorf("operator %s of dataflow %d on worker %d ran %d times", name, id, w, n)
							}
						}
						if channels[w] != channels[0] || channels[w] != 4 {
							t.Errorf("worker %d numbered %d channels, worker 0 %d, want 4", w, channels[w], channels[0])
						}
					}
					if n := h.sentTotal(id); n != 0 {
						t.Errorf("%d messages sent for a dataflow dropped during its build", n)
					}

					// The next dataflow, with the next id, works everywhere.
					next := id + 1
					col := newCollector(workers)
					nextChannels := make([]uint32, workers)
					h.Broadcast(Command{ID: next, Start: 0, Build: func(b *Builder) {
						s := source(b, "gen", 3, 12, seed+1, nil)
						s = relay(s, "shuffle", Exchange(mix), nil)
						capture(s, "capture", col)
						nextChannels[b.Index()] = b.nextChannel
					}})
					h.runQuiet(t)
					h.checkNoFailures(t)
					h.checkEnds(t, next, Completed)
					want := sourceOutput(workers, 3, 12, seed+1, func(v uint64) (uint64, bool) { return v, true })
					checkSameTimed(t, "next dataflow's output", col.all(), want)
					for w := range nextChannels {
						if nextChannels[w] != 2 {
							t.Errorf("worker %d numbered %d channels in the next dataflow, want 2", w, nextChannels[w])
						}
					}
					h.checkClean(t)
					h.checkSilence(t)
				})
			})
		})
	}
}

// TestRequestDropFromScheduleStopsOperatorAndPublishing covers scenario
// 8: an operator that drops its own dataflow from inside Schedule (twice)
// causes no panic; the drop applies at the end of the step; the operator
// never runs again; its Shutdown gets Dropped once; and its worker sends
// nothing for the dataflow from then on, neither data nor progress, while
// the other workers keep running it until the coordinator drops it.
func TestRequestDropFromScheduleStopsOperatorAndPublishing(t *testing.T) {
	forWorkers(t, []int{1, 2, 4}, func(t *testing.T, workers int) {
		forSeeds(t, 10, func(t *testing.T, seed uint64) {
			h := newHarness(workers, seed)
			dropper := int(seed % uint64(workers))
			requested := false
			ranAfterRequest := 0
			id := h.Build(0, func(b *Builder) {
				s := source(b, "gen", 4, 0, seed, nil)
				s = relay(s, "shuffle", Exchange(mix), nil)
				w := b.Index()
				ob := b.NewOperator("dropper")
				in := NewInput(ob, s, Pipeline[uint64]())
				out, next := NewOutput[uint64](ob)
				key := opKey{b.ID(), w, "dropper"}
				ob.Build(func(op *Operator, caps []*Capability) Logic {
					caps[0].Release()
					seen := 0
					return h.log.logic(key, func() {
						if w == dropper && requested {
							ranAfterRequest++
						}
						for {
							t, data, ok := in.Next()
							if !ok {
								break
							}
							seen += len(data)
							// Sent in the same step as the request: the
							// worker may send it, but must publish nothing.
							out.GiveSlice(t, data)
						}
						if w == dropper && !requested && seen >= 20 {
							requested = true
							op.RequestDrop(op.Dataflow())
							op.RequestDrop(op.Dataflow())
						}
					})
				})
				relay(next, "back", Exchange(mix), nil)
			})
			h.runUntil(t, "the dropper dropped its dataflow", func() bool { return h.endedOn(dropper, id) })
			if !requested {
				t.Fatalf("dataflow ended on worker %d before the operator asked", dropper)
			}
			// The other workers keep running and sending.
			h.runEvents(2000)
			if ranAfterRequest != 0 {
				t.Errorf("the operator ran %d times after asking for the drop", ranAfterRequest)
			}
			if got := h.log.reasons(opKey{id, dropper, "dropper"}); len(got) != 1 || got[0] != Dropped {
				t.Errorf("dropper's Shutdown reasons %v, want exactly one dropped", got)
			}
			h.checkSilence(t)

			h.Drop(id)
			h.runQuiet(t)
			h.checkNoFailures(t)
			h.checkEnds(t, id, Dropped)
			h.log.checkShutdownOnce(t, id, workers, Dropped, "dropper")
			h.checkClean(t)
			h.checkSilence(t)
		})
	})
}

// TestDropIsIdempotentAndUnknownIDsAreNoOps covers scenario 9: dropping
// twice, dropping an id no build has reached yet (the tombstone that
// build consumes), and dropping old ids (ended, or never used) report no
// failure and produce each end event exactly once.
func TestDropIsIdempotentAndUnknownIDsAreNoOps(t *testing.T) {
	forWorkers(t, []int{1, 2, 4}, func(t *testing.T, workers int) {
		forSeeds(t, 20, func(t *testing.T, seed uint64) {
			h := newHarness(workers, seed)
			idle := h.Build(0, func(b *Builder) {
				_, s := NewInputHandle[uint64](b, "input")
				s = relay(s, "shuffle", Exchange(mix), h.log)
				NewProbe(s)
			})
			h.Drop(idle)
			h.Drop(idle)
			future := h.NextID()
			h.Drop(future)
			h.Drop(0)
			h.runQuiet(t)
			if st := h.Stats(); st.Tombstones != int64(workers) {
				t.Fatalf("after dropping an id not yet built: %d tombstones, want %d", st.Tombstones, workers)
			}

			called := 0
			if got := h.Build(0, func(b *Builder) {
				called++
				source(b, "gen", 1, 1, seed, nil)
			}); got != future {
				t.Fatalf("build got id %d, want %d", got, future)
			}
			done := h.Build(0, func(b *Builder) {
				s := source(b, "gen", 2, 6, seed, nil)
				s = relay(s, "shuffle", Exchange(mix), h.log)
				NewProbe(s)
			})
			h.runQuiet(t)
			if called != 0 {
				t.Errorf("the build of a dropped id ran %d times", called)
			}
			h.Drop(done)
			h.Drop(idle)
			h.Drop(future)
			h.Drop(done)
			h.runQuiet(t)

			h.checkNoFailures(t)
			h.checkEnds(t, idle, Dropped)
			h.checkEnds(t, done, Completed)
			if h.ends[future] != nil {
				t.Errorf("a dataflow that was never built has end events %v", h.ends[future])
			}
			h.log.checkShutdownOnce(t, idle, workers, Dropped, "shuffle")
			h.log.checkShutdownOnce(t, done, workers, Completed, "shuffle")
			for _, w := range h.Workers {
				// The idle dataflow and the tombstoned one count as dropped.
				if st := w.Stats(); st.Dropped != 2 || st.Completed != 1 || st.Failed != 0 {
					t.Errorf("worker %d: stats %+v, want 2 dropped and 1 completed", w.index, st)
				}
			}
			h.checkClean(t)
			h.checkSilence(t)
		})
	})
}

// TestDropOnOneWorkerNeverAdvancesPeersFrontier covers scenario 10 and
// I3: worker 0 drops D while its input holds a capability at 3 (and has
// records at 3 in flight); the other workers close their inputs. However
// long they run, their probes stay at exactly 3 and D never completes
// there: they see silence, never a frontier advance. Once they drop D
// too, their probes report ErrDropped.
func TestDropOnOneWorkerNeverAdvancesPeersFrontier(t *testing.T) {
	forWorkers(t, []int{2, 4}, func(t *testing.T, workers int) {
		forSeeds(t, 100, func(t *testing.T, seed uint64) {
			h := newHarness(workers, seed)
			inputs := make([]*InputHandle[uint64], workers)
			probes := make([]*Probe, workers)
			id := h.Build(0, func(b *Builder) {
				in, s := NewInputHandle[uint64](b, "input")
				inputs[b.Index()] = in
				s = relay(s, "shuffle", Exchange(mix), nil)
				probes[b.Index()] = NewProbe(s)
			})
			h.runUntil(t, "built", func() bool { return allSet(inputs) })
			for w, in := range inputs {
				for i := uint64(0); i < 6; i++ {
					if err := in.Send(i/2, uint64(w)*100+i); err != nil {
						t.Fatal(err)
					}
				}
				if err := in.Advance(3); err != nil {
					t.Fatal(err)
				}
			}
			if err := inputs[0].Send(3, 1, 2, 3, 4, 5, 6, 7, 8); err != nil {
				t.Fatal(err)
			}
			h.runUntil(t, "every probe at 3", func() bool {
				for _, p := range probes {
					if f, err := p.Frontier(); err != nil || f != 3 {
						return false
					}
				}
				return true
			})

			h.Enqueue(0, Command{ID: id})
			for w := 1; w < workers; w++ {
				if err := inputs[w].Advance(10); err != nil {
					t.Fatal(err)
				}
				if err := inputs[w].Close(); err != nil {
					t.Fatal(err)
				}
			}
			h.runQuietChecking(t, func() string {
				for w := 1; w < workers; w++ {
					f, err := probes[w].Frontier()
					if err != nil || f.Passed(3) {
						return fmt.Sprintf("worker %d's probe reports %v, %v after worker 0 dropped holding 3", w, f, err)
					}
					if h.endedOn(w, id) {
						return fmt.Sprintf("dataflow ended on worker %d: %v", w, h.ends[id][w])
					}
				}
				return ""
			})
			if !h.endedOn(0, id) {
				t.Fatalf("worker 0 never dropped")
			}
			for w := 1; w < workers; w++ {
				if f, err := probes[w].Frontier(); err != nil || f != 3 {
					t.Errorf("worker %d's probe at %v, %v; want 3", w, f, err)
				}
			}

			for w := 1; w < workers; w++ {
				h.Enqueue(w, Command{ID: id})
			}
			h.runQuiet(t)
			for w, p := range probes {
				if _, err := p.Frontier(); !errors.Is(err, ErrDropped) {
					t.Errorf("worker %d's probe: %v, want ErrDropped", w, err)
				}
			}
			h.checkNoFailures(t)
			h.checkEnds(t, id, Dropped)
			h.checkClean(t)
			h.checkSilence(t)
		})
	})
}

// TestNothingSentForDataflowAfterItsDrop covers scenario 11 and I3: under
// heavy exchange and broadcast traffic in two dataflows, each worker
// sends no data message and publishes no progress batch for D after it
// processed drop(D), while the other dataflow keeps sending.
func TestNothingSentForDataflowAfterItsDrop(t *testing.T) {
	forWorkers(t, []int{1, 2, 4}, func(t *testing.T, workers int) {
		forSeeds(t, 10, func(t *testing.T, seed uint64) {
			h := newHarness(workers, seed)
			build := func(salt uint64) func(*Builder) {
				return func(b *Builder) {
					s := source(b, "gen", 8, 0, salt, nil)
					s = relay(s, "shuffle", Exchange(mix), nil)
					s = relay(s, "spread", Broadcast[uint64](), nil)
					s = relay(s, "back", Exchange(func(x uint64) uint64 { return x >> 7 }), nil)
					NewProbe(s)
				}
			}
			d := h.Build(0, build(seed))
			e := h.Build(0, build(^seed))
			h.runUntil(t, "traffic in both dataflows", func() bool {
				return h.liveEverywhere(d) && h.liveEverywhere(e) && h.sentTotal(d) > 100*workers && h.sentTotal(e) > 100*workers
			})
			h.Drop(d)
			h.runUntil(t, "D dropped everywhere", func() bool { return h.endedEverywhere(d) })
			sentE := h.sentTotal(e)
			h.runEvents(2000)
			if h.sentTotal(e) <= sentE {
				t.Fatalf("E stopped sending; the instrumentation sees nothing")
			}
			h.checkSilence(t)
			h.Drop(e)
			h.runQuiet(t)

			h.checkNoFailures(t)
			h.checkEnds(t, d, Dropped)
			h.checkEnds(t, e, Dropped)
			h.checkClean(t)
			h.checkSilence(t)
		})
	})
}

// TestDropBeforeBuildLeavesTombstoneAndBuildIsNoOp covers scenario 27 and
// DESIGN's tombstone rule: a drop of D reaches worker w before D's build,
// either before or after peers' messages for D arrived there. Held
// messages are discarded, the tombstone makes the later build a no-op
// (the build function never runs on w), later messages for D are
// discarded, w sends nothing for D, and the tombstone count returns to 0.
func TestDropBeforeBuildLeavesTombstoneAndBuildIsNoOp(t *testing.T) {
	for _, variant := range []string{"drop-then-messages", "messages-then-drop"} {
		t.Run(variant, func(t *testing.T) {
			counts := []int{1, 2, 4}
			if variant == "messages-then-drop" {
				counts = []int{2, 4}
			}
			forWorkers(t, counts, func(t *testing.T, workers int) {
				forSeeds(t, 25, func(t *testing.T, seed uint64) {
					h := newHarness(workers, seed)
					late := int(seed % uint64(workers))
					lw := h.Workers[late]
					id := h.NextID()
					called := make([]int, workers)
					build := Command{ID: id, Start: 0, Build: func(b *Builder) {
						called[b.Index()]++
						s := source(b, "gen", 3, 0, seed, nil)
						s = relay(s, "shuffle", Exchange(mix), nil)
						NewProbe(s)
					}}
					peersSentToLate := func() bool {
						return workers == 1 || lw.Stats().Held+lw.Stats().Discarded > 0
					}
					switch variant {
					case "drop-then-messages":
						h.Enqueue(late, Command{ID: id})
						for w := 0; w < workers; w++ {
							if w != late {
								h.Enqueue(w, build)
							}
						}
						h.runUntil(t, "tombstone and peers' messages on the late worker", func() bool {
							return lw.Stats().Tombstones == 1 && peersSentToLate()
						})
					case "messages-then-drop":
						for w := 0; w < workers; w++ {
							if w != late {
								h.Enqueue(w, build)
							}
						}
						h.runUntil(t, "messages held on the late worker", func() bool { return lw.Stats().Held > 0 })
						held, discarded := lw.Stats().Held, lw.Stats().Discarded
						h.Enqueue(late, Command{ID: id})
						h.runUntil(t, "tombstone on the late worker", func() bool { return lw.Stats().Tombstones == 1 })
						if len(lw.held) != 0 || lw.Stats().Held != 0 {
							t.Fatalf("held messages kept after the drop: %d", lw.Stats().Held)
						}
						if lw.Stats().Discarded < discarded+held {
							t.Errorf("discarded %d, want at least %d (the %d held)", lw.Stats().Discarded, discarded+held, held)
						}
					}
					if lw.Stats().Held != 0 {
						t.Fatalf("late worker holds messages for a tombstoned dataflow")
					}

					h.Enqueue(late, build)
					h.runUntil(t, "late worker took the build", func() bool { return lw.hwm >= id })
					if st := lw.Stats(); st.Tombstones != 0 || len(lw.tombstones) != 0 {
						t.Errorf("tombstone left after the build: %+v", st)
					}
					discarded := lw.Stats().Discarded
					for i := 0; i < 1000 && h.Event(); i++ {
						if len(lw.held) != 0 {
							t.Fatalf("late worker holds messages for a dataflow it dropped")
						}
					}
					if workers > 1 && lw.Stats().Discarded <= discarded {
						t.Errorf("late worker discarded none of its peers' messages after the build")
					}
					if called[late] != 0 {
						t.Errorf("the build function ran on the late worker")
					}
					if lw.live[id] != nil {
						t.Errorf("dataflow live on the late worker")
					}
					if n := h.sentBy(id, late); n != 0 {
						t.Errorf("late worker sent %d messages for a dataflow it never built", n)
					}

					h.Drop(id)
					h.runQuiet(t)
					h.checkNoFailures(t)
					for w := 0; w < workers; w++ {
						var got []Reason
						if h.ends[id] != nil {
							got = h.ends[id][w]
						}
						switch {
						case w == late && len(got) != 0:
							t.Errorf("late worker: end events %v for a dataflow it never built", got)
						case w != late && (len(got) != 1 || got[0] != Dropped):
							t.Errorf("worker %d: end events %v, want one dropped", w, got)
						}
						if st := h.Workers[w].Stats(); st.Dropped != 1 {
							t.Errorf("worker %d: %d dropped, want 1", w, st.Dropped)
						}
					}
					h.checkClean(t)
					h.checkSilence(t)
				})
			})
		})
	}
}

// ledger is a sink's external state: records staged while the dataflow
// runs, and records committed.
type ledger struct {
	staged, committed [][]uint64
	reasons           [][]Reason
}

func newLedger(workers int) *ledger {
	return &ledger{staged: make([][]uint64, workers), committed: make([][]uint64, workers), reasons: make([][]Reason, workers)}
}

// sink adds an operator that stages every record and commits the staged
// records in Shutdown, only when the reason is Completed (DESIGN: a sink
// commits only on Completed, never on Dropped).
func sink(s Stream[uint64], name string, l *ledger) {
	b := s.Builder()
	w := b.Index()
	ob := b.NewOperator(name)
	in := NewInput(ob, s, Pipeline[uint64]())
	ob.Build(func(*Operator, []*Capability) Logic {
		return logicFuncs{
			schedule: func() {
				for {
					_, data, ok := in.Next()
					if !ok {
						return
					}
					l.staged[w] = append(l.staged[w], data...)
				}
			},
			shutdown: func(r Reason) {
				l.reasons[w] = append(l.reasons[w], r)
				if r == Completed {
					l.committed[w] = append(l.committed[w], l.staged[w]...)
				}
			},
		}
	})
}

// TestSinkCommitsOnlyOnCompletion covers H13 and scenario 22's runtime
// half: a sink that commits in Shutdown(Completed) commits everything
// when its dataflow completes, and nothing when it is dropped mid-stream.
func TestSinkCommitsOnlyOnCompletion(t *testing.T) {
	forWorkers(t, []int{1, 2, 4}, func(t *testing.T, workers int) {
		forSeeds(t, 20, func(t *testing.T, seed uint64) {
			t.Run("completed", func(t *testing.T) {
				h := newHarness(workers, seed)
				l := newLedger(workers)
				id := h.Build(0, func(b *Builder) {
					s := source(b, "gen", 5, 40, seed, nil)
					sink(relay(s, "shuffle", Exchange(mix), nil), "sink", l)
				})
				h.runQuiet(t)
				h.checkNoFailures(t)
				h.checkEnds(t, id, Completed)
				var got []uint64
				for w := 0; w < workers; w++ {
					if len(l.reasons[w]) != 1 || l.reasons[w][0] != Completed {
						t.Errorf("worker %d: sink shut down with %v", w, l.reasons[w])
					}
					got = append(got, l.committed[w]...)
				}
				want := sourceOutput(workers, 5, 40, seed, func(v uint64) (uint64, bool) { return v, true })
				wantValues := make([]uint64, len(want))
				for i, r := range want {
					wantValues[i] = r.value
				}
				slices.Sort(got)
				slices.Sort(wantValues)
				if !slices.Equal(got, wantValues) {
					t.Errorf("committed %d records, want all %d", len(got), len(wantValues))
				}
				h.checkClean(t)
			})
			t.Run("dropped-mid-stream", func(t *testing.T) {
				h := newHarness(workers, seed)
				l := newLedger(workers)
				id := h.Build(0, func(b *Builder) {
					s := source(b, "gen", 5, 0, seed, nil)
					sink(relay(s, "shuffle", Exchange(mix), nil), "sink", l)
				})
				h.runUntil(t, "records staged on every worker", func() bool {
					for _, s := range l.staged {
						if len(s) == 0 {
							return false
						}
					}
					return true
				})
				h.Drop(id)
				h.runQuiet(t)
				h.checkNoFailures(t)
				h.checkEnds(t, id, Dropped)
				for w := 0; w < workers; w++ {
					if len(l.reasons[w]) != 1 || l.reasons[w][0] != Dropped {
						t.Errorf("worker %d: sink shut down with %v", w, l.reasons[w])
					}
					if len(l.committed[w]) != 0 {
						t.Errorf("worker %d: a dropped sink committed %d records", w, len(l.committed[w]))
					}
				}
				h.checkClean(t)
				h.checkSilence(t)
			})
		})
	})
}

// TestClusterDropOfUnissuedIDDoesNotSuppressLaterBuild covers scenario 9
// on the Cluster and H8: Cluster.Drop documents that dropping an unknown
// dataflow does nothing. An id the cluster has not handed out yet is
// unknown; dropping it must not leave a tombstone that silently turns the
// build that later gets that id into a no-op.
func TestClusterDropOfUnissuedIDDoesNotSuppressLaterBuild(t *testing.T) {
	const workers = 2
	c := NewCluster(Config{Workers: workers})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	if err := c.Drop(ctx, 2); err != nil {
		t.Fatal(err)
	}
	var calls [3]atomic.Int64
	for i := range calls {
		id, err := c.Build(ctx, 0, func(b *Builder) {
			calls[i].Add(1)
			NewProbe(source(b, "gen", 1, 1, 0, nil))
		})
		if err != nil {
			t.Fatal(err)
		}
		if id != ID(i+1) {
			t.Fatalf("build %d got id %d", i, id)
		}
	}
	for i := range calls {
		if n := calls[i].Load(); n != workers {
			t.Errorf("dataflow %d: build function ran on %d of %d workers, though Build returned success", i+1, n, workers)
		}
	}
	if st := c.Stats(); st.Tombstones != 0 {
		t.Errorf("%d tombstones left", st.Tombstones)
	}
}

// waitFor polls cond until it holds or ctx is done; it is for Cluster
// tests, whose counters settle on other goroutines. It asserts no
// duration: ctx is a generous bound that only turns a hang into a
// failure.
func waitFor(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("never reached: %s (%v)", what, ctx.Err())
		case <-time.After(time.Millisecond):
		}
	}
}

// runCoordinating runs the simulation until nothing is left to do, acting
// as the coordinator: each dataflow a failure is reported for is dropped
// on every worker, once.
func (h *harness) runCoordinating(t *testing.T) {
	t.Helper()
	h.Wake()
	handled := 0
	dropped := make(map[ID]bool)
	for i := 0; ; i++ {
		for ; handled < len(h.Failures); handled++ {
			if id := h.Failures[handled].Dataflow; !dropped[id] {
				dropped[id] = true
				h.Drop(id)
			}
		}
		if i == maxEvents {
			t.Fatalf("simulation still busy after %d events", maxEvents)
		}
		if !h.Event() {
			if handled == len(h.Failures) {
				return
			}
		}
	}
}

// TestReleaseHooksRunOnceAfterShutdown covers I6 and I9's order: a
// dataflow's release hooks (where leases are given back) run exactly
// once when it ends, with its reason, after every operator's Shutdown,
// in reverse order of registration, whether it was dropped, completed,
// failed in an operator or failed in its build, and even when an
// operator's Shutdown panics.
func TestReleaseHooksRunOnceAfterShutdown(t *testing.T) {
	type event struct {
		worker int
		what   string
		reason Reason
	}
	cases := []struct {
		name string
		want Reason
		// total is the source's record count (0: endless); boom makes an
		// operator panic; buildBoom makes the build panic after the hooks
		// were registered; badShutdown makes a Shutdown panic.
		total                        int
		boom, buildBoom, badShutdown bool
	}{
		{name: "dropped", want: Dropped},
		{name: "dropped-shutdown-panics", want: Dropped, badShutdown: true},
		{name: "completed", want: Completed, total: 8},
		{name: "operator-failed", want: Failed, boom: true},
		{name: "build-failed", want: Failed, buildBoom: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			forWorkers(t, []int{1, 2, 4}, func(t *testing.T, workers int) {
				forSeeds(t, 5, func(t *testing.T, seed uint64) {
					h := newHarness(workers, seed)
					var events []event
					id := h.Build(0, func(b *Builder) {
						w := b.Index()
						b.OnRelease(func(r Reason) { events = append(events, event{w, "hook 1", r}) })
						s := source(b, "gen", 2, tc.total, seed, nil)
						ob := b.NewOperator("watch")
						in := NewInput(ob, s, Exchange(mix))
						ob.Build(func(*Operator, []*Capability) Logic {
							return logicFuncs{
								schedule: func() {
									for {
										_, _, ok := in.Next()
										if !ok {
											return
										}
										if tc.boom {
											panic("boom")
										}
									}
								},
								shutdown: func(r Reason) {
									events = append(events, event{w, "shutdown", r})
									if tc.badShutdown {
										panic("bad shutdown")
									}
								},
							}
						})
						b.OnRelease(func(r Reason) { events = append(events, event{w, "hook 2", r}) })
						if tc.buildBoom {
							panic(buildBoom{w})
						}
					})
					if tc.total == 0 && !tc.boom && !tc.buildBoom {
						h.runUntil(t, "running everywhere", func() bool { return h.liveEverywhere(id) })
						h.Drop(id)
					}
					h.runCoordinating(t)

					for w := 0; w < workers; w++ {
						var got []string
						for _, e := range events {
							if e.worker != w {
								continue
							}
							got = append(got, e.what)
							if e.what != "shutdown" && e.reason != h.ends[id][w][0] {
								t.Errorf("worker %d: %s ran with %v, the dataflow ended %v", w, e.what, e.reason, h.ends[id][w][0])
							}
						}
						if want := []string{"shutdown", "hook 2", "hook 1"}; !slices.Equal(got, want) {
							t.Errorf("worker %d: teardown order %v, want %v", w, got, want)
						}
						if got := h.ends[id][w]; len(got) != 1 || (got[0] != tc.want && !(tc.boom && got[0] == Dropped)) {
							t.Errorf("worker %d: end events %v, want one %v", w, got, tc.want)
						}
					}
					for _, f := range h.Failures {
						if f.Dataflow != id {
							t.Errorf("failure of another dataflow: %v", f)
						}
					}
					if tc.badShutdown && len(h.Failures) != workers {
						t.Errorf("%d failures for %d panicking Shutdowns", len(h.Failures), workers)
					}
					h.checkClean(t)
					h.checkSilence(t)
				})
			})
		})
	}
}

// TestBuildOfUsedIDIsRefused covers I2 and H8: a build command that
// reuses an id (here, that of a dataflow that already ended) is refused
// on every worker with a "(build)" failure; its build function never
// runs and nothing is built.
func TestBuildOfUsedIDIsRefused(t *testing.T) {
	forWorkers(t, []int{1, 2, 4}, func(t *testing.T, workers int) {
		forSeeds(t, 3, func(t *testing.T, seed uint64) {
			h := newHarness(workers, seed)
			id := h.Build(0, func(b *Builder) { NewProbe(source(b, "gen", 2, 4, seed, nil)) })
			h.runQuiet(t)
			h.checkEnds(t, id, Completed)
			called := 0
			h.Broadcast(Command{ID: id, Build: func(*Builder) { called++ }})
			h.runQuiet(t)
			if called != 0 {
				t.Errorf("the build function of a reused id ran %d times", called)
			}
			if len(h.Failures) != workers {
				t.Fatalf("%d failures, want one per worker: %v", len(h.Failures), h.Failures)
			}
			for _, f := range h.Failures {
				if _, ok := f.Value.(*AssertionError); f.Dataflow != id || f.Operator != "(build)" || !ok {
					t.Errorf("failure %v: want an assertion about dataflow %d's build", f, id)
				}
			}
			h.checkEnds(t, id, Completed)
			h.checkClean(t)
		})
	})
}
