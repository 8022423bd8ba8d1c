package dataflow

// inPort is the untyped state of one operator input.
type inPort struct {
	op    *Operator
	index int
	loc   int32
	// queue holds delivered messages not yet consumed; head is the next.
	queue []queued
	head  int
	// frontier is the input frontier as last shown to the operator.
	frontier Frontier
}

type queued struct {
	time uint64
	data any
}

// Input is a typed operator input.
type Input[T any] struct{ p *inPort }

// Index returns the input's index among its operator's inputs.
func (in *Input[T]) Index() int { return in.p.index }

// Frontier returns the input's frontier: no message at a time it has
// passed will arrive.
func (in *Input[T]) Frontier() Frontier { return in.p.frontier }

// Next consumes the next delivered message: its time and records. The
// records belong to the caller. ok is false when nothing is queued.
func (in *Input[T]) Next() (t uint64, data []T, ok bool) {
	p := in.p
	if p.head == len(p.queue) {
		return 0, nil, false
	}
	q := p.queue[p.head]
	p.queue[p.head] = queued{}
	p.head++
	p.op.df.waiting--
	if p.head == len(p.queue) {
		p.queue, p.head = p.queue[:0], 0
	}
	op := p.op
	// A message at a time its input frontier has passed would mean the
	// progress protocol lied; fail the dataflow rather than compute on.
	if p.frontier.Passed(q.time) {
		panic(assertionFailedf("%s input %d consumed a message at %d after its frontier passed to %s", op.name, p.index, q.time, p.frontier))
	}
	op.df.record(p.loc, q.time, -1)
	if Frontier(q.time) < op.consumed[p.index] {
		op.consumed[p.index] = Frontier(q.time)
	}
	return q.time, q.data.([]T), true
}

// Pending reports whether a message is queued.
func (in *Input[T]) Pending() bool { return in.p.head < len(in.p.queue) }

// outPort is the untyped state of one operator output.
type outPort struct {
	op    *Operator
	index int
	loc   int32
	edges []*edge
	// buf is the typed Output holding records given during a Schedule.
	buf buffered
}

// buffered is the untyped face of an Output for the worker.
type buffered interface {
	flushBuffers()
	discard()
}

// Output is a typed operator output. Records given to it are buffered and
// sent by the worker after the operator's Schedule returns, or as soon as
// flushAt of them are buffered.
type Output[T any] struct {
	p    *outPort
	bufs []timedRecords[T]
	// held counts the records in bufs.
	held int
}

// flushAt is how many buffered records an output sends at once, in the
// middle of a run. An operator that works in pieces then pays for
// sending (an exchange hashes and copies every record) as it goes, inside
// the run whose time it checks, not in one lump after the run has
// returned; and what it sends is still in cache.
const flushAt = 4096

type timedRecords[T any] struct {
	time uint64
	recs []T
}

// Index returns the output's index among its operator's outputs.
func (o *Output[T]) Index() int { return o.p.index }

// Give sends records at time t. The operator must hold a capability for
// this output at or before t, or have consumed a message at or before t
// at a connected input during this Schedule.
func (o *Output[T]) Give(t uint64, recs ...T) {
	if len(recs) == 0 {
		return
	}
	b := o.buffer(t)
	b.recs = append(b.recs, recs...)
	o.hold(len(recs))
}

// hold counts n records given, and sends what is buffered once that
// reaches flushAt. Records leave in the order they were given.
func (o *Output[T]) hold(n int) {
	if o.held += n; o.held >= flushAt {
		o.flushBuffers()
	}
}

// GiveSlice is Give for a slice whose ownership passes to the output.
func (o *Output[T]) GiveSlice(t uint64, recs []T) {
	if len(recs) == 0 {
		return
	}
	defer o.hold(len(recs))
	b := o.buffer(t)
	if b.recs == nil {
		b.recs = recs
		return
	}
	// A run that gives many large slices at one time (an operator
	// working in pieces) sends them as as many messages: appending each
	// to the first would copy them over and over as it grows. Small
	// slices (an input's records pushed one by one) are gathered into
	// one message, which is far cheaper than a message each.
	if len(recs) >= separateMessage && len(b.recs) >= separateMessage {
		o.bufs = append(o.bufs, timedRecords[T]{time: t, recs: recs})
		return
	}
	b.recs = append(b.recs, recs...)
}

// separateMessage is the size from which a slice given at a time that
// already has a buffer of that size goes out as a message of its own.
const separateMessage = 1024

func (o *Output[T]) buffer(t uint64) *timedRecords[T] {
	for i := range o.bufs {
		if o.bufs[i].time == t {
			return &o.bufs[i]
		}
	}
	op := o.p.op
	if op.df.state != Running {
		panic(assertionFailedf("%s sends at %d while its dataflow is not running", op.name, t))
	}
	if !op.justified(o.p.index, t) {
		panic(assertionFailedf("%s sends on output %d at %d without a capability or a consumed message at or before it", op.name, o.p.index, t))
	}
	o.bufs = append(o.bufs, timedRecords[T]{time: t})
	return &o.bufs[len(o.bufs)-1]
}

// flushBuffers partitions and sends the buffered records along every edge
// of the output, counting each message as produced at its target.
func (o *Output[T]) flushBuffers() {
	if len(o.bufs) == 0 {
		return
	}
	df := o.p.op.df
	w := df.w
	for bi := range o.bufs {
		b := &o.bufs[bi]
		for ei, e := range o.p.edges {
			recs := b.recs
			if ei < len(o.p.edges)-1 {
				recs = append([]T(nil), recs...)
			}
			switch e.pact {
			case pactPipeline:
				df.send(e, w.index, b.time, recs)
			case pactBroadcast:
				for dst := 0; dst < w.peers; dst++ {
					part := recs
					if dst < w.peers-1 {
						part = append([]T(nil), recs...)
					}
					df.send(e, dst, b.time, part)
				}
			case pactExchange:
				if w.peers == 1 {
					df.send(e, 0, b.time, recs)
					continue
				}
				if len(recs) == 0 {
					continue
				}
				// Hash each record once. Records that all go to one worker
				// (a table's input fed by the same hash) leave as the slice
				// they came in. Otherwise count what goes where and fill
				// parts of exactly that size: appending record by record
				// regrows and copies every part many times over when a
				// buffer is large (an import's replay).
				hash := e.hash.(func(T) uint64)
				first := uint32(hash(recs[0]) % uint64(w.peers))
				same := 1
				for same < len(recs) && uint32(hash(recs[same])%uint64(w.peers)) == first {
					same++
				}
				if same == len(recs) {
					df.send(e, int(first), b.time, recs)
					continue
				}
				// The records before same go to first; the rest are
				// hashed into dests (the first of them a second time).
				rest := recs[same:]
				dests := make([]uint32, len(rest))
				counts := make([]int, w.peers)
				counts[first] = same
				for i, r := range rest {
					d := uint32(hash(r) % uint64(w.peers))
					dests[i] = d
					counts[d]++
				}
				parts := make([][]T, w.peers)
				for d, n := range counts {
					if n > 0 {
						parts[d] = make([]T, 0, n)
					}
				}
				parts[first] = append(parts[first], recs[:same]...)
				for from := 0; from < len(rest); from += partitionBlock {
					to := min(from+partitionBlock, len(rest))
					partition(parts, rest[from:to], dests[from:to])
				}
				for dst, part := range parts {
					if len(part) > 0 {
						df.send(e, dst, b.time, part)
					}
				}
			}
		}
	}
	clear(o.bufs)
	o.bufs = o.bufs[:0]
	o.held = 0
}

// partitionBlock is how many records partition moves in a call.
//
// A loop that does nothing but store records holding pointers cannot be
// preempted while the collector marks: its write barriers are not safe
// points for a goroutine to stop at. The collector stops each goroutine
// to scan its stack, and spins on a processor, sending it signal after
// signal, until it can; the loop meanwhile crawls. A restart's view
// flushing 40,000 sums took 0.16–0.86 s in that loop instead of 1 ms,
// and the spinning took the other worker's processor. A call per block
// is a safe point (the callee's stack check) every partitionBlock
// records; partition calls the runtime (growslice, the write barrier),
// so it is no leaf the compiler would leave without that check.
const partitionBlock = 1024

// partition appends each record of recs to parts[dests[i]], whose
// capacity holds it.
//
//go:noinline
func partition[T any](parts [][]T, recs []T, dests []uint32) {
	for i, r := range recs {
		parts[dests[i]] = append(parts[dests[i]], r)
	}
}

// discard drops buffered records without sending them (teardown).
func (o *Output[T]) discard() {
	clear(o.bufs)
	o.bufs = o.bufs[:0]
	o.held = 0
}
