package dataflow

import (
	"cmp"
	"context"
	"slices"
)

// State is where a dataflow is in its lifecycle on one worker.
type State uint8

const (
	// Building: the build function is running. No operator runs and no
	// message is delivered.
	Building State = iota + 1
	// Running: built; operators run when activated.
	Running
	// Ended: completed, dropped or failed; its resources are freed and it
	// never sends anything again.
	Ended
)

// dataflow is one dataflow's instance on one worker.
type dataflow struct {
	w      *Worker
	id     ID
	start  uint64
	state  State
	reason Reason // set when state is Ended
	ctx    context.Context
	cancel context.CancelFunc
	// account is the dataflow's memory account, shared by its workers.
	account *Account

	ops []*Operator
	// waiting counts the messages delivered to the dataflow's inputs on
	// this worker and not yet consumed (Operator.Crowded).
	waiting int
	// edges[c-1] is data channel c.
	edges []*edge
	// handles are the external handles (inputs, probes) made inert at end.
	handles []endable
	hooks   []func(Reason)

	tracker *tracker
	// pending holds this step's progress actions until publish.
	pending []Delta
	// seqOut is the sequence number of the last batch published.
	seqOut uint64
	// seqIn[w] is the sequence number of the last batch applied from w.
	seqIn []uint64
	// hot reports whether some operator may need to run this step.
	hot bool
	// resume is the index of the operator a step starts from: 0, unless
	// the last step spent the dataflow's slice before it had run every
	// activated operator (Worker.runDataflow).
	resume int
	// failed is set when an operator panicked during this step.
	failed bool
	// queued reports whether the dataflow is on its worker's attention
	// list (Worker.enlist).
	queued bool
}

// endable is an external handle that must learn that its dataflow ended.
type endable interface{ end(Reason) }

func newDataflow(w *Worker, id ID, start uint64) *dataflow {
	ctx, cancel := context.WithCancel(context.Background())
	return &dataflow{w: w, id: id, start: start, state: Building, ctx: ctx, cancel: cancel}
}

// needsAttention reports whether the dataflow has work left for a later
// step: an operator asked to run again, counts moved by its own batch
// whose frontiers are not yet refreshed, deltas not yet published, or a
// failure not yet acted on.
func (df *dataflow) needsAttention() bool {
	return df.hot || df.tracker.dirty || len(df.pending) > 0 || df.failed
}

// anyActivated reports whether an operator of the dataflow is activated.
func (df *dataflow) anyActivated() bool {
	for _, op := range df.ops {
		if op.activated {
			return true
		}
	}
	return false
}

// record notes one progress action for publication at the end of the
// step. Actions during the build are not published: the initial counts
// are derived from the capabilities held when the build ends. Actions
// after the end are never published (silence).
func (df *dataflow) record(loc int32, t uint64, diff int64) {
	if df.state != Running {
		return
	}
	df.pending = append(df.pending, Delta{Loc: loc, Time: t, Diff: diff})
	// Usually the dataflow is being visited and is listed already; an
	// action taken from elsewhere on the worker must still be published.
	if !df.queued {
		df.w.enlist(df)
	}
}

// send counts a data message as produced at its target and hands it to
// the allocator, or, for the target on this worker, queues it there at
// once: an operator downstream on the same worker then takes it in the
// same step, as it would take it at the next step's start.
func (df *dataflow) send(e *edge, dst int, t uint64, data any) {
	df.record(e.dst.loc, t, +1)
	w := df.w
	if dst == w.index {
		p := e.dst
		p.queue = append(p.queue, queued{time: t, data: data})
		df.waiting++
		p.op.activated = true
		df.hot = true
		w.stats.sent.Add(1)
		return
	}
	w.alloc.Send(Message{
		Channel: ChannelID{Dataflow: df.id, Index: e.channel},
		From:    w.index,
		To:      dst,
		Time:    t,
		Data:    data,
	})
	w.stats.sent.Add(1)
}

// finalize numbers the locations, computes their predecessors and the
// initial counts, and makes the dataflow Running.
func (df *dataflow) finalize() {
	n := int32(0)
	for _, op := range df.ops {
		if op.logic == nil {
			panic(assertionFailedf("operator %s was never built", op.name))
		}
		for _, in := range op.inputs {
			in.loc = n
			n++
		}
		for _, out := range op.outputs {
			out.loc = n
			n++
		}
	}
	preds := make([][]int32, n)
	for _, e := range df.edges {
		preds[e.dst.loc] = []int32{e.src.loc}
	}
	for _, op := range df.ops {
		for _, out := range op.outputs {
			for _, in := range op.inputs {
				if op.connected[in.index][out.index] {
					preds[out.loc] = append(preds[out.loc], in.loc)
				}
			}
		}
	}
	df.tracker = newTracker(preds)
	// Every worker holds the same capabilities after the same build, so
	// the initial counts are common knowledge and never sent.
	peers := int64(df.w.peers)
	for _, op := range df.ops {
		for _, c := range op.caps {
			df.tracker.update(op.outputs[c.out].loc, c.time, peers)
		}
	}
	df.tracker.dirty = true
	df.tracker.recompute()
	for _, op := range df.ops {
		for _, in := range op.inputs {
			in.frontier = df.tracker.implied[in.loc]
		}
		// Every operator runs once at the start, seeing the initial
		// frontier, so it can release what it does not need.
		op.activated = true
	}
	df.seqIn = make([]uint64, df.w.peers)
	df.state = Running
	df.hot = true
}

// deliver hands a received message to the dataflow.
func (df *dataflow) deliver(m Message) {
	df.w.enlist(df)
	if m.Channel.Index == progressChannel {
		df.applyProgress(m)
		return
	}
	if int(m.Channel.Index) > len(df.edges) {
		df.w.reportAssertion(df, "(channel)", assertionFailedf("message for unknown channel %s", m.Channel))
		return
	}
	p := df.edges[m.Channel.Index-1].dst
	p.queue = append(p.queue, queued{time: m.Time, data: m.Data})
	df.waiting++
	p.op.activated = true
	df.hot = true
}

// applyProgress applies one peer's batch whole, in per-sender order.
func (df *dataflow) applyProgress(m Message) {
	if m.Seq != df.seqIn[m.From]+1 {
		df.w.reportAssertion(df, "(progress)", assertionFailedf("progress batch %d from worker %d after %d", m.Seq, m.From, df.seqIn[m.From]))
		return
	}
	df.seqIn[m.From] = m.Seq
	for _, d := range m.Progress {
		df.tracker.update(d.Loc, d.Time, d.Diff)
	}
}

// publish sends this step's consolidated actions as one batch to every
// worker, itself included, and applies it locally.
func (df *dataflow) publish() {
	if len(df.pending) == 0 {
		return
	}
	batch := consolidate(df.pending)
	df.pending = df.pending[:0]
	if len(batch) == 0 {
		return
	}
	w := df.w
	df.seqOut++
	if w.onPublish != nil {
		w.onPublish(w.index, df.id, batch)
	}
	for to := 0; to < w.peers; to++ {
		if to == w.index {
			continue
		}
		w.alloc.Send(Message{
			Channel:  ChannelID{Dataflow: df.id, Index: progressChannel},
			From:     w.index,
			To:       to,
			Seq:      df.seqOut,
			Progress: batch,
		})
	}
	df.seqIn[w.index] = df.seqOut
	for _, d := range batch {
		df.tracker.update(d.Loc, d.Time, d.Diff)
	}
	w.stats.batches.Add(1)
}

// consolidate returns the deltas summed per pointstamp, without zeros, in
// a new slice (receivers share it).
func consolidate(ds []Delta) []Delta {
	slices.SortFunc(ds, func(a, b Delta) int {
		if c := cmp.Compare(a.Loc, b.Loc); c != 0 {
			return c
		}
		return cmp.Compare(a.Time, b.Time)
	})
	out := make([]Delta, 0, len(ds))
	for _, d := range ds {
		if n := len(out); n > 0 && out[n-1].Loc == d.Loc && out[n-1].Time == d.Time {
			out[n-1].Diff += d.Diff
			if out[n-1].Diff == 0 {
				out = out[:n-1]
			}
			continue
		}
		out = append(out, d)
	}
	return out
}

// refreshFrontiers recomputes the implied frontiers if some count moved
// and activates every operator whose input frontier changed.
func (df *dataflow) refreshFrontiers() {
	if !df.tracker.recompute() {
		return
	}
	for _, op := range df.ops {
		for _, in := range op.inputs {
			if f := df.tracker.implied[in.loc]; f != in.frontier {
				if f < in.frontier {
					df.w.reportAssertion(df, op.name, assertionFailedf("frontier of %s input %d regressed from %s to %s", op.name, in.index, in.frontier, f))
					return
				}
				in.frontier = f
				if !op.deaf {
					op.activated = true
					df.hot = true
				}
			}
		}
	}
}
