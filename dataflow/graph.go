package dataflow

import (
	"context"
	"time"
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
	// Schedules counts its runs and Busy their time, over every worker;
	// Longest is its longest single run on any worker: the time it held
	// a worker that no other dataflow could use.
	Schedules     int64
	Busy, Longest time.Duration
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

// Graphs returns the graphs of the dataflows ids that run on worker 0,
// with their operators' runs summed over every worker; one that does not
// run on worker 0 is left out.
func (c *Cluster) Graphs(ctx context.Context, ids []ID) (map[ID]Graph, error) {
	out := make(map[ID]Graph, len(ids))
	runs := make([]map[ID][]OperatorInfo, len(c.workers))
	err := c.Exec(ctx, func(w int) bool {
		mine := map[ID][]OperatorInfo{}
		for _, id := range ids {
			df := c.workers[w].live[id]
			if df == nil {
				continue
			}
			if w == 0 {
				out[id] = df.graph()
			} else {
				mine[id] = df.runs()
			}
		}
		runs[w] = mine
		return true
	})
	if err != nil {
		return nil, err
	}
	// Exec has returned: every worker's part is written.
	for id, g := range out {
		for _, other := range runs[1:] {
			for i, r := range other[id] {
				if i < len(g.Operators) {
					op := &g.Operators[i]
					op.Schedules += r.Schedules
					op.Busy += r.Busy
					op.Longest = max(op.Longest, r.Longest)
				}
			}
		}
	}
	return out, nil
}

// runs reads the dataflow's operators' runs on its worker.
func (df *dataflow) runs() []OperatorInfo {
	out := make([]OperatorInfo, len(df.ops))
	for i, op := range df.ops {
		out[i] = OperatorInfo{Index: op.index, Schedules: op.schedules, Busy: op.busy, Longest: op.longest}
	}
	return out
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
			Inputs: len(op.inputs), Outputs: len(op.outputs), Queued: queued,
			Schedules: op.schedules, Busy: op.busy, Longest: op.longest})
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
