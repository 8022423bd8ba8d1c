package dataflow

import (
	"context"
	"fmt"
)

// Builder constructs one dataflow on one worker. The build function that
// receives it runs once on every worker, on that worker's goroutine, as
// one atomic step: no operator of the dataflow runs and no message for
// it is delivered until the function has returned.
//
// The build function must be deterministic and the same on every worker:
// the same operators, inputs, outputs and channels in the same order, and
// the same capabilities kept at construction, because every worker
// derives the dataflow's channel names and initial progress counts from
// them without talking to the others.
type Builder struct {
	df *dataflow
	// nextChannel is the index the next data channel gets.
	nextChannel uint32
}

// Index returns the index of the worker building the dataflow.
func (b *Builder) Index() int { return b.df.w.index }

// Workers returns the number of workers.
func (b *Builder) Workers() int { return b.df.w.peers }

// ID returns the dataflow's id.
func (b *Builder) ID() ID { return b.df.id }

// Start returns the dataflow's initial time: every capability minted at
// construction is at this time.
func (b *Builder) Start() uint64 { return b.df.start }

// Context returns a context cancelled when the dataflow ends here.
func (b *Builder) Context() context.Context { return b.df.ctx }

// OnRelease registers a hook to run exactly once when the dataflow ends on
// this worker, after every operator's Shutdown; hooks run in reverse
// order of registration. Leases on other dataflows' arrangements are
// released here.
func (b *Builder) OnRelease(hook func(Reason)) { b.df.hooks = append(b.df.hooks, hook) }

// Account returns the dataflow's memory account, shared by its workers:
// operators add the bytes of the state they hold to it.
func (b *Builder) Account() *Account { return b.df.account }

// RequestDrop asks for the dataflow to be dropped as soon as its build
// finishes, before any of its operators runs.
func (b *Builder) RequestDrop() { b.df.w.requestDrop(b.df.id) }

// Stream is an operator output during building, carrying records of type
// T. Any number of operator inputs may read it.
type Stream[T any] struct {
	b   *Builder
	op  int
	out int
}

// Builder returns the builder the stream belongs to.
func (s Stream[T]) Builder() *Builder { return s.b }

type pactKind uint8

const (
	pactPipeline pactKind = iota
	pactExchange
	pactBroadcast
)

// Pact says how records move from a stream to an operator input: they
// stay on their worker (Pipeline), go to the worker their hash names
// (Exchange), or go to every worker (Broadcast).
type Pact[T any] struct {
	kind pactKind
	hash func(T) uint64
}

// Pipeline keeps records on the worker that produced them.
func Pipeline[T any]() Pact[T] { return Pact[T]{kind: pactPipeline} }

// Exchange sends each record to worker hash(record) mod W.
func Exchange[T any](hash func(T) uint64) Pact[T] {
	return Pact[T]{kind: pactExchange, hash: hash}
}

// Broadcast sends every record to every worker.
func Broadcast[T any]() Pact[T] { return Pact[T]{kind: pactBroadcast} }

// edge is one channel: an output feeding one operator input.
type edge struct {
	channel uint32
	pact    pactKind
	hash    any // func(T) uint64 for exchange
	src     *outPort
	dst     *inPort
}

// OperatorBuilder adds one operator: its inputs, outputs, connectivity,
// and finally its Logic.
type OperatorBuilder struct {
	b     *Builder
	op    *Operator
	built bool
}

// NewOperator starts a new operator named name.
func (b *Builder) NewOperator(name string) *OperatorBuilder {
	df := b.df
	if df.state != Building {
		panic(assertionFailedf("operator %s added after the build", name))
	}
	op := &Operator{df: df, index: len(df.ops), name: name}
	df.ops = append(df.ops, op)
	return &OperatorBuilder{b: b, op: op}
}

// Operator returns the operator being built.
func (ob *OperatorBuilder) Operator() *Operator { return ob.op }

// NewInput adds an input to the operator reading s through pact.
func NewInput[T any](ob *OperatorBuilder, s Stream[T], pact Pact[T]) *Input[T] {
	ob.mustBeOpen()
	if s.b != ob.b {
		panic(assertionFailedf("stream of another dataflow used by %s", ob.op.name))
	}
	// Inputs may only read streams of earlier operators, so build order
	// is a topological order and no dataflow has a cycle.
	if s.op >= ob.op.index {
		panic(assertionFailedf("%s reads a stream of a later operator", ob.op.name))
	}
	op := ob.op
	p := &inPort{op: op, index: len(op.inputs)}
	op.inputs = append(op.inputs, p)
	op.connected = append(op.connected, allTrue(len(op.outputs)))
	ob.b.nextChannel++
	src := ob.b.df.ops[s.op].outputs[s.out]
	e := &edge{channel: ob.b.nextChannel, pact: pact.kind, src: src, dst: p}
	if pact.kind == pactExchange {
		if pact.hash == nil {
			panic(assertionFailedf("exchange into %s without a hash", op.name))
		}
		e.hash = pact.hash
	}
	src.edges = append(src.edges, e)
	ob.b.df.edges = append(ob.b.df.edges, e)
	return &Input[T]{p: p}
}

// NewOutput adds an output to the operator and returns it with the
// stream that reads it. Every input is connected to it until
// SetConnected says otherwise.
func NewOutput[T any](ob *OperatorBuilder) (*Output[T], Stream[T]) {
	ob.mustBeOpen()
	op := ob.op
	p := &outPort{op: op, index: len(op.outputs)}
	o := &Output[T]{p: p}
	p.buf = o
	op.outputs = append(op.outputs, p)
	for i := range op.connected {
		op.connected[i] = append(op.connected[i], true)
	}
	return o, Stream[T]{b: ob.b, op: op.index, out: p.index}
}

// SetConnected states whether input can result in output: whether a
// message at that input may justify a send on that output. Frontiers
// only flow along connected pairs.
func (ob *OperatorBuilder) SetConnected(input, output int, connected bool) {
	ob.mustBeOpen()
	ob.op.connected[input][output] = connected
}

// SetNotify states whether a move of an input frontier activates the
// operator, as a message or its own Activate does; it does unless told
// otherwise. An operator that reads no input frontier, and releases any
// capability it keeps past a run in a later run that a message or its
// own Activate brings, needs no such run: a map or a union. Every
// frontier's move would otherwise run every such operator of a dataflow,
// on every worker, to do nothing.
func (ob *OperatorBuilder) SetNotify(notify bool) {
	ob.mustBeOpen()
	ob.op.deaf = !notify
}

// Build finishes the operator. ctor receives one capability per output,
// at the dataflow's start time, and returns the operator's Logic. A
// capability the constructor releases never counts; one it keeps holds
// back the output's frontier on every worker until released.
func (ob *OperatorBuilder) Build(ctor func(op *Operator, caps []*Capability) Logic) {
	ob.mustBeOpen()
	ob.built = true
	op := ob.op
	op.consumed = make([]Frontier, len(op.inputs))
	for i := range op.consumed {
		op.consumed[i] = Done
	}
	caps := make([]*Capability, len(op.outputs))
	for i := range caps {
		caps[i] = op.mint(i, ob.b.df.start)
	}
	op.logic = ctor(op, caps)
	if op.logic == nil {
		panic(assertionFailedf("operator %s built without logic", op.name))
	}
}

func (ob *OperatorBuilder) mustBeOpen() {
	if ob.built {
		panic(assertionFailedf("operator %s changed after Build", ob.op.name))
	}
	if ob.b.df.state != Building {
		panic(assertionFailedf("operator %s changed after its dataflow was built", ob.op.name))
	}
}

func allTrue(n int) []bool {
	bs := make([]bool, n)
	for i := range bs {
		bs[i] = true
	}
	return bs
}

func (b *Builder) String() string { return fmt.Sprintf("builder(%d@w%d)", b.df.id, b.df.w.index) }
