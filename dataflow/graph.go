package dataflow

import (
	"context"
	"sync"
)

// OperatorInfo is one operator of a dataflow, for introspection.
type OperatorInfo struct {
	// Index is the operator's place in its dataflow, from 0.
	Index int
	Name  string
	// Inputs and Outputs count its ports.
	Inputs, Outputs int
	// Queued counts the messages delivered to its inputs and not yet
	// consumed, on the worker read.
	Queued int
}

// ChannelInfo is one channel of a dataflow: an output port feeding an
// input port.
type ChannelInfo struct {
	ID             uint32
	From, FromPort int
	To, ToPort     int
	Pact           string // pipeline, exchange or broadcast
}

// Graph is a dataflow's operators and channels. Every worker builds the
// same graph; Graphs reads worker 0's.
type Graph struct {
	Operators []OperatorInfo
	Channels  []ChannelInfo
}

// Graphs returns the graphs of the dataflows ids that run on worker 0;
// one that does not is left out.
func (c *Cluster) Graphs(ctx context.Context, ids []ID) (map[ID]Graph, error) {
	out := make(map[ID]Graph, len(ids))
	var mu sync.Mutex
	err := c.Exec(ctx, func(w int) bool {
		if w != 0 {
			return true
		}
		for _, id := range ids {
			df := c.workers[0].live[id]
			if df == nil {
				continue
			}
			g := df.graph()
			mu.Lock()
			out[id] = g
			mu.Unlock()
		}
		return true
	})
	return out, err
}

// graph reads the dataflow's graph; it runs on the dataflow's worker.
func (df *dataflow) graph() Graph {
	var g Graph
	for _, op := range df.ops {
		queued := 0
		for _, in := range op.inputs {
			queued += len(in.queue) - in.head
		}
		g.Operators = append(g.Operators, OperatorInfo{Index: op.index, Name: op.name,
			Inputs: len(op.inputs), Outputs: len(op.outputs), Queued: queued})
	}
	for _, e := range df.edges {
		pact := "pipeline"
		switch e.pact {
		case pactExchange:
			pact = "exchange"
		case pactBroadcast:
			pact = "broadcast"
		}
		g.Channels = append(g.Channels, ChannelInfo{ID: e.channel, From: e.src.op.index, FromPort: e.src.index,
			To: e.dst.op.index, ToPort: e.dst.index, Pact: pact})
	}
	return g
}
