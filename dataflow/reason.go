package dataflow

// Reason says why a dataflow ended on a worker. It is passed to every
// operator's Shutdown and to release hooks.
type Reason uint8

const (
	// Completed: every input closed and every message was consumed. Only
	// now may an operator commit work (a sink publishing its last time).
	Completed Reason = iota + 1
	// Dropped: the dataflow was dropped. Its outputs are incomplete; an
	// operator must not commit anything on this reason.
	Dropped
	// Failed: an operator panicked; the dataflow was dropped on this
	// worker. Treated like Dropped by operators.
	Failed
)

func (r Reason) String() string {
	switch r {
	case Completed:
		return "completed"
	case Dropped:
		return "dropped"
	case Failed:
		return "failed"
	}
	return "unknown"
}
