package dataflow

import "fmt"

// ID names a dataflow. IDs increase and are never reused: a message
// carrying an old ID can never reach a newer dataflow.
type ID uint64

// ChannelID names one channel of one dataflow. Index 0 is the dataflow's
// progress channel; data channels are numbered from 1 in build order, so
// every worker names the same channel the same way without a shared
// counter that could drift.
type ChannelID struct {
	Dataflow ID
	Index    uint32
}

func (c ChannelID) String() string { return fmt.Sprintf("%d/%d", c.Dataflow, c.Index) }

// progressChannel is the index of every dataflow's progress channel.
const progressChannel = 0

// Message is one unit of inter-worker traffic: a batch of records at one
// time on a data channel, or one step's progress batch on the progress
// channel.
type Message struct {
	Channel  ChannelID
	From, To int
	// Time is the time of every record in Data (data channels only).
	Time uint64
	// Data is a []T of the channel's record type (data channels only).
	// Invariant: it is never empty; the receiver owns it.
	Data any
	// Seq numbers the sender's progress batches for this dataflow from 1
	// (progress channel only). Receivers check that it is contiguous.
	Seq uint64
	// Progress is the sender's consolidated deltas for one step (progress
	// channel only). Invariant: never empty; shared by all receivers and
	// read-only.
	Progress []Delta
}

// Delta is one change to the count at a pointstamp: a location of a
// dataflow (an operator input or output) at a time.
type Delta struct {
	Loc  int32
	Time uint64
	Diff int64
}

// Allocator carries every message between workers, data and progress
// alike. Delivery is at most once and FIFO per (sender, receiver,
// channel); there is no other ordering promise. Implementations are the
// in-process allocator (NewProcessAllocator) and the simulated network
// used by tests (SimNetwork).
type Allocator interface {
	// Workers returns the number of workers the allocator connects.
	Workers() int
	// Send queues m for delivery to worker m.To. It is called on the
	// goroutine of worker m.From and never blocks for long.
	Send(m Message)
	// Receive appends to buf the messages delivered to worker w since the
	// last call, and returns it. It is called on worker w's goroutine.
	Receive(w int, buf []Message) []Message
}
