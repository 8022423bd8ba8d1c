package dataflow

import "sync/atomic"

// Stats are a worker's (or, summed, a cluster's) introspection counters,
// for a system catalog to read. Live counts go up and down; the others
// only grow.
type Stats struct {
	// Building and Running count dataflows in those states now.
	Building, Running int64
	// Completed, Dropped and Failed count dataflows that ended so.
	Completed, Dropped, Failed int64
	// Operators and Channels count those of live dataflows (a dataflow's
	// progress channel included).
	Operators, Channels int64
	// Held counts messages held now for dataflows not yet built.
	Held int64
	// Tombstones counts drops waiting now for their build.
	Tombstones int64
	// Discarded counts messages discarded because their dataflow ended.
	Discarded int64
	// Sent counts data messages sent; Batches, progress batches published.
	Sent, Batches int64
	// Visits counts dataflows visited by steps, summed over steps. A step
	// visits only the dataflows with something to do, so this grows with
	// the work done, not with the dataflows that sit idle.
	Visits int64
}

type workerStats struct {
	building, running, completed, dropped, failed atomic.Int64
	operators, channels, held, tombstones         atomic.Int64
	discarded, sent, batches, visits              atomic.Int64
}

func (s *workerStats) snapshot() Stats {
	return Stats{
		Building:   s.building.Load(),
		Running:    s.running.Load(),
		Completed:  s.completed.Load(),
		Dropped:    s.dropped.Load(),
		Failed:     s.failed.Load(),
		Operators:  s.operators.Load(),
		Channels:   s.channels.Load(),
		Held:       s.held.Load(),
		Tombstones: s.tombstones.Load(),
		Discarded:  s.discarded.Load(),
		Sent:       s.sent.Load(),
		Batches:    s.batches.Load(),
		Visits:     s.visits.Load(),
	}
}

// Stats returns the worker's counters. It is safe from any goroutine.
func (w *Worker) Stats() Stats { return w.stats.snapshot() }

// Add returns the sum of two sets of counters.
func (s Stats) Add(o Stats) Stats {
	return Stats{
		Building:   s.Building + o.Building,
		Running:    s.Running + o.Running,
		Completed:  s.Completed + o.Completed,
		Dropped:    s.Dropped + o.Dropped,
		Failed:     s.Failed + o.Failed,
		Operators:  s.Operators + o.Operators,
		Channels:   s.Channels + o.Channels,
		Held:       s.Held + o.Held,
		Tombstones: s.Tombstones + o.Tombstones,
		Discarded:  s.Discarded + o.Discarded,
		Sent:       s.Sent + o.Sent,
		Batches:    s.Batches + o.Batches,
		Visits:     s.Visits + o.Visits,
	}
}
