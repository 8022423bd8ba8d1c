package dataflow

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// The frontier property test builds a random acyclic dataflow on the
// simulated network, feeds it random input, and after every simulator
// event compares every worker's input frontiers with the truth: a ledger
// of every count change any worker published (at a step boundary every
// action is published, so the ledger is the true count), with
// reachability taken from the test's own description of the graph, not
// the runtime's. It checks:
//
//   - C1: no frontier a worker shows an operator is ahead of the true
//     frontier, so no message can arrive at a time its input passed;
//   - C3: every true count is non-negative;
//   - C4 and C2 are checked by the runtime itself (a message consumed
//     behind its frontier, or a frontier that moves back, fails the
//     dataflow), so the test requires that no failure was reported;
//   - C7: the run ends with every worker's dataflow complete and every
//     true count zero;
//   - after every step, the worker's attention list holds every dataflow
//     with work (attentionViolation), since a step visits no other;
//   - and the records every sink saw equal a model evaluation of the
//     graph, including operators that emit per-time aggregates only once
//     their input frontier passed the time: a frontier that passed too
//     early splits an aggregate and shows up here.
func TestFrontiersMatchModel(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("W=%d", workers), func(t *testing.T) {
			forSeeds(t, 200, func(t *testing.T, seed uint64) {
				runFrontierModel(t, workers, seed)
			})
		})
	}
}

type rec struct {
	time uint64
	val  uint64
}

// graphOp describes one operator of a random dataflow, for both the
// runtime build and the model.
type graphOp struct {
	kind    opKind
	inputs  []int // stream indices
	pacts   []pactKind
	outputs []int // stream indices
	delay   uint64
}

type opKind int

const (
	kindForward opKind = iota
	kindFilter
	kindDelay
	kindClone
	kindCount
	kindSplit // two inputs, two outputs, input i connected to output i only
	numKinds
)

func (k opKind) String() string {
	return [...]string{"forward", "filter", "delay", "clone", "count", "split"}[k]
}

func runFrontierModel(t *testing.T, workers int, seed uint64) {
	sim := NewSim(workers, seed)
	rng := sim.Rand()

	// Describe a random graph. Stream 0 is the input.
	nStreams := 1
	var ops []graphOp
	nOps := 1 + rng.IntN(12)
	for i := 0; i < nOps; i++ {
		op := graphOp{kind: opKind(rng.IntN(int(numKinds)))}
		nin, nout := 1, 1
		if op.kind == kindSplit {
			nin, nout = 2, 2
		}
		for j := 0; j < nin; j++ {
			op.inputs = append(op.inputs, rng.IntN(nStreams))
			p := pactKind(rng.IntN(3))
			if op.kind == kindCount {
				p = pactExchange // all records to one worker: a global count
			}
			op.pacts = append(op.pacts, p)
		}
		for j := 0; j < nout; j++ {
			op.outputs = append(op.outputs, nStreams)
			nStreams++
		}
		op.delay = uint64(rng.IntN(3))
		ops = append(ops, op)
	}

	// The model: the records on every stream, as multisets.
	model := make([][]rec, nStreams)
	inputs := make([][]inputStep, workers)
	for w := range inputs {
		inputs[w] = randomInputScript(rng)
		for _, s := range inputs[w] {
			if s.kind == opSend {
				model[0] = append(model[0], rec{s.time, s.val})
			}
		}
	}
	for _, op := range ops {
		evalModel(op, model, workers)
	}

	// The runtime graph. Location numbering follows the runtime's rule
	// (per operator, inputs then outputs), computed here independently.
	handles := make([]*InputHandle[uint64], workers)
	got := make([][]rec, nStreams)
	id := sim.Build(0, func(b *Builder) {
		streams := make([]Stream[uint64], nStreams)
		h, s := NewInputHandle[uint64](b, "input")
		handles[b.Index()] = h
		streams[0] = s
		for _, op := range ops {
			outs := buildOp(b, op, streams)
			for j, o := range op.outputs {
				streams[o] = outs[j]
			}
		}
		for si := range streams {
			si := si
			ob := b.NewOperator(fmt.Sprintf("sink%d", si))
			in := NewInput(ob, streams[si], Pipeline[uint64]())
			ob.Build(func(*Operator, []*Capability) Logic {
				return ScheduleFunc(func() {
					for {
						tm, data, ok := in.Next()
						if !ok {
							return
						}
						for _, v := range data {
							got[si] = append(got[si], rec{tm, v})
						}
					}
				})
			})
		}
	})

	// preds over locations, from the description.
	var preds [][]int32
	streamLoc := make([]int32, nStreams)
	addLoc := func(p []int32) int32 { preds = append(preds, p); return int32(len(preds) - 1) }
	streamLoc[0] = addLoc(nil) // the input operator's output
	for _, op := range ops {
		ins := make([]int32, len(op.inputs))
		for j, s := range op.inputs {
			ins[j] = addLoc([]int32{streamLoc[s]})
		}
		for j, s := range op.outputs {
			var p []int32
			for i := range ins {
				if op.kind != kindSplit || i == j {
					p = append(p, ins[i])
				}
			}
			streamLoc[s] = addLoc(p)
		}
	}
	sinkLoc := make([]int32, nStreams)
	for s := range sinkLoc {
		sinkLoc[s] = addLoc([]int32{streamLoc[s]})
	}

	// The ledger: initial counts plus every published batch.
	ledger := make([]map[uint64]int64, len(preds))
	for i := range ledger {
		ledger[i] = map[uint64]int64{}
	}
	initialized := false
	attentionBroken := ""
	for _, w := range sim.Workers {
		w.afterStep = func(w *Worker) {
			if msg := attentionViolation(w); msg != "" && attentionBroken == "" {
				attentionBroken = msg
			}
		}
		w.onPublish = func(_ int, df ID, batch []Delta) {
			if df != id {
				return
			}
			for _, d := range batch {
				ledger[d.Loc][d.Time] += d.Diff
				if ledger[d.Loc][d.Time] == 0 {
					delete(ledger[d.Loc], d.Time)
				}
			}
		}
	}

	trueFrontier := func() []Frontier {
		tf := make([]Frontier, len(preds))
		for l := range tf {
			f := Done
			for tm, c := range ledger[l] {
				if c > 0 && Frontier(tm) < f {
					f = Frontier(tm)
				}
			}
			for _, p := range preds[l] {
				f = minFrontier(f, tf[p])
			}
			tf[l] = f
		}
		return tf
	}

	next := make([]int, workers)
	check := func(event int) {
		for _, w := range sim.Workers {
			df := w.live[id]
			if df == nil {
				continue
			}
			if !initialized {
				if len(df.tracker.counts) != len(preds) {
					t.Fatalf("runtime has %d locations, description %d", len(df.tracker.counts), len(preds))
				}
				// Initial counts are common knowledge: one capability per
				// worker for the input and for every count operator.
				initialized = true
				ledger[streamLoc[0]][0] += int64(workers)
				for _, op := range ops {
					if op.kind == kindCount {
						ledger[streamLoc[op.outputs[0]]][0] += int64(workers)
					}
				}
			}
		}
		if attentionBroken != "" {
			t.Fatalf("event %d: attention list: %s", event, attentionBroken)
		}
		tf := trueFrontier()
		for l := range ledger {
			for tm, c := range ledger[l] {
				if c < 0 {
					t.Fatalf("event %d: true count at (%d,%d) is %d", event, l, tm, c)
				}
			}
		}
		for _, w := range sim.Workers {
			df := w.live[id]
			if df == nil {
				continue
			}
			for _, op := range df.ops {
				for _, in := range op.inputs {
					if in.frontier > tf[in.loc] {
						t.Fatalf("event %d: worker %d %s input %d frontier %s ahead of true frontier %s",
							event, w.index, op.name, in.index, in.frontier, tf[in.loc])
					}
				}
			}
		}
	}

	for event := 0; ; event++ {
		if event > 2_000_000 {
			t.Fatalf("no quiescence after %d events", event)
		}
		// Feed the inputs a little at a time, interleaved with the run.
		if rng.IntN(4) == 0 {
			w := rng.IntN(workers)
			if handles[w] != nil && next[w] < len(inputs[w]) {
				s := inputs[w][next[w]]
				next[w]++
				var err error
				switch s.kind {
				case opSend:
					err = handles[w].Send(s.time, s.val)
				case opAdvance:
					err = handles[w].Advance(s.time)
				case opClose:
					err = handles[w].Close()
				}
				if err != nil {
					t.Fatal(err)
				}
				sim.Wake()
			}
		}
		more := sim.Event()
		check(event)
		fed := true
		for w := range next {
			if next[w] < len(inputs[w]) {
				fed = false
			}
		}
		if !more && fed {
			break
		}
	}

	if len(sim.Failures) > 0 {
		t.Fatalf("failures: %v", sim.Failures)
	}
	if st := sim.Stats(); st.Completed != int64(workers) || st.Running != 0 {
		t.Fatalf("not complete: %+v", st)
	}
	for l := range ledger {
		if len(ledger[l]) != 0 {
			t.Fatalf("true counts left at location %d: %v", l, ledger[l])
		}
	}
	for s := range model {
		sortRecs(model[s])
		sortRecs(got[s])
		if !slices.Equal(model[s], got[s]) {
			t.Fatalf("stream %d: got %v, model %v (ops %+v)", s, got[s], model[s], ops)
		}
	}
}

type inputStep struct {
	kind      inputOpKind
	time, val uint64
}

func randomInputScript(rng *rand.Rand) []inputStep {
	var steps []inputStep
	now := uint64(0)
	n := rng.IntN(30)
	for i := 0; i < n; i++ {
		switch rng.IntN(4) {
		case 0:
			now += uint64(1 + rng.IntN(3))
			steps = append(steps, inputStep{kind: opAdvance, time: now})
		default:
			steps = append(steps, inputStep{kind: opSend, time: now + uint64(rng.IntN(3)), val: uint64(rng.IntN(50))})
		}
	}
	return append(steps, inputStep{kind: opClose})
}

func sortRecs(rs []rec) {
	slices.SortFunc(rs, func(a, b rec) int {
		if a.time != b.time {
			return int(a.time) - int(b.time)
		}
		return int(a.val) - int(b.val)
	})
}

func mapVal(v uint64) uint64 { return (v*31 + 7) % 1000 }

func keepVal(v uint64) bool { return v%3 != 0 }

// evalModel computes op's output streams from its input streams.
func evalModel(op graphOp, model [][]rec, workers int) {
	in := func(j int) []rec {
		var rs []rec
		for _, r := range model[op.inputs[j]] {
			copies := 1
			if op.pacts[j] == pactBroadcast {
				copies = workers
			}
			for c := 0; c < copies; c++ {
				rs = append(rs, r)
			}
		}
		return rs
	}
	out := op.outputs
	switch op.kind {
	case kindForward:
		for _, r := range in(0) {
			model[out[0]] = append(model[out[0]], rec{r.time, mapVal(r.val)})
		}
	case kindFilter:
		for _, r := range in(0) {
			if keepVal(r.val) {
				model[out[0]] = append(model[out[0]], r)
			}
		}
	case kindDelay:
		for _, r := range in(0) {
			model[out[0]] = append(model[out[0]], rec{r.time + op.delay, r.val})
		}
	case kindClone:
		for _, r := range in(0) {
			model[out[0]] = append(model[out[0]], rec{r.time + 2, r.val})
		}
	case kindCount:
		counts := map[uint64]uint64{}
		for _, r := range in(0) {
			counts[r.time]++
		}
		for tm, n := range counts {
			model[out[0]] = append(model[out[0]], rec{tm, n})
		}
	case kindSplit:
		for j := 0; j < 2; j++ {
			model[out[j]] = append(model[out[j]], in(j)...)
		}
	}
}

func pactFor(k pactKind) Pact[uint64] {
	switch k {
	case pactExchange:
		return Exchange(func(v uint64) uint64 { return v * 0x9e3779b97f4a7c15 >> 7 })
	case pactBroadcast:
		return Broadcast[uint64]()
	}
	return Pipeline[uint64]()
}

// buildOp adds op to the dataflow and returns its output streams.
func buildOp(b *Builder, op graphOp, streams []Stream[uint64]) []Stream[uint64] {
	ob := b.NewOperator(op.kind.String())
	var ins []*Input[uint64]
	for j, s := range op.inputs {
		p := pactFor(op.pacts[j])
		if op.kind == kindCount {
			p = Exchange(func(uint64) uint64 { return 0 })
		}
		ins = append(ins, NewInput(ob, streams[s], p))
	}
	var outs []*Output[uint64]
	var res []Stream[uint64]
	for range op.outputs {
		o, s := NewOutput[uint64](ob)
		outs = append(outs, o)
		res = append(res, s)
	}
	if op.kind == kindSplit {
		ob.SetConnected(0, 1, false)
		ob.SetConnected(1, 0, false)
	}
	ob.Build(func(o *Operator, caps []*Capability) Logic {
		switch op.kind {
		case kindCount:
			return newCountLogic(ins[0], outs[0], caps[0])
		case kindDelay, kindClone:
			for _, c := range caps {
				c.Release()
			}
			return newDelayLogic(o, ins[0], outs[0], op.kind == kindClone, op.delay)
		}
		for _, c := range caps {
			c.Release()
		}
		return ScheduleFunc(func() {
			for j, in := range ins {
				for {
					tm, data, ok := in.Next()
					if !ok {
						break
					}
					switch op.kind {
					case kindForward:
						for i := range data {
							data[i] = mapVal(data[i])
						}
						outs[0].GiveSlice(tm, data)
					case kindFilter:
						kept := data[:0]
						for _, v := range data {
							if keepVal(v) {
								kept = append(kept, v)
							}
						}
						outs[0].GiveSlice(tm, kept)
					case kindSplit:
						outs[j].GiveSlice(tm, data)
					}
				}
			}
		})
	})
	return res
}

// countLogic keeps its initial capability, downgrading it with its input
// frontier, and emits each time's record count once the frontier passed
// that time: the classic pattern whose output is wrong if a frontier
// passes a time too early.
type countLogic struct {
	in     *Input[uint64]
	out    *Output[uint64]
	cap    *Capability
	counts map[uint64]uint64
}

func newCountLogic(in *Input[uint64], out *Output[uint64], cap *Capability) *countLogic {
	return &countLogic{in: in, out: out, cap: cap, counts: map[uint64]uint64{}}
}

func (l *countLogic) Schedule() {
	for {
		tm, data, ok := l.in.Next()
		if !ok {
			break
		}
		l.counts[tm] += uint64(len(data))
	}
	if l.cap == nil {
		return
	}
	f := l.in.Frontier()
	var ready []uint64
	for tm := range l.counts {
		if f.Passed(tm) {
			ready = append(ready, tm)
		}
	}
	slices.Sort(ready)
	for _, tm := range ready {
		l.out.Give(tm, l.counts[tm])
		delete(l.counts, tm)
	}
	if f.IsDone() {
		l.cap.Release()
		l.cap = nil
		return
	}
	next := f.Time()
	for tm := range l.counts {
		next = min(next, tm)
	}
	l.cap.Downgrade(next)
}

func (l *countLogic) Shutdown(Reason) {}

// delayLogic retains a capability for each message's delayed time and
// emits the records once the input frontier passed the message's time.
// With clones it takes the long way: retain, clone twice, release two.
type delayLogic struct {
	op      *Operator
	in      *Input[uint64]
	out     *Output[uint64]
	clones  bool
	delay   uint64
	pending []heldRecs
}

type heldRecs struct {
	time uint64
	cap  *Capability
	recs []uint64
}

func newDelayLogic(op *Operator, in *Input[uint64], out *Output[uint64], clones bool, delay uint64) *delayLogic {
	return &delayLogic{op: op, in: in, out: out, clones: clones, delay: delay}
}

func (l *delayLogic) Schedule() {
	for {
		tm, data, ok := l.in.Next()
		if !ok {
			break
		}
		var c *Capability
		if l.clones {
			c0 := l.op.Retain(0, tm)
			c1 := c0.Delayed(tm + 1)
			c = c1.Delayed(tm + 2)
			c0.Release()
			c1.Release()
		} else {
			c = l.op.Retain(0, tm+l.delay)
		}
		l.pending = append(l.pending, heldRecs{time: tm, cap: c, recs: data})
	}
	f := l.in.Frontier()
	kept := l.pending[:0]
	for _, h := range l.pending {
		if f.Passed(h.time) {
			l.out.GiveSlice(h.cap.Time(), h.recs)
			h.cap.Release()
			continue
		}
		kept = append(kept, h)
	}
	l.pending = kept
}

func (l *delayLogic) Shutdown(Reason) {}
