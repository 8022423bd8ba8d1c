package dataflow

import "math/rand/v2"

// SimNetwork is a simulated Allocator for deterministic tests. Sent
// messages wait in one queue per (sender, receiver, channel); Deliver
// moves the head of a queue chosen by the seeded random source to its
// receiver. Deliveries are therefore reordered and delayed arbitrarily
// across pairs and channels, while each queue stays FIFO, which is all
// the Allocator contract promises. It is not safe for concurrent use: a
// Sim drives it from one goroutine.
type SimNetwork struct {
	rng    *rand.Rand
	queues map[simKey]*[]Message
	// Invariant: keys lists exactly the keys of non-empty queues, in the
	// order they became non-empty, so choices depend only on the seed.
	keys    []simKey
	inboxes [][]Message
	// Delivered counts deliveries, for tests.
	Delivered int
}

type simKey struct {
	from, to int
	ch       ChannelID
}

// NewSimNetwork returns a simulated network for workers workers whose
// delivery order is drawn from rng.
func NewSimNetwork(workers int, rng *rand.Rand) *SimNetwork {
	return &SimNetwork{
		rng:     rng,
		queues:  make(map[simKey]*[]Message),
		inboxes: make([][]Message, workers),
	}
}

// Workers implements Allocator.
func (n *SimNetwork) Workers() int { return len(n.inboxes) }

// Send implements Allocator.
func (n *SimNetwork) Send(m Message) {
	k := simKey{m.From, m.To, m.Channel}
	q := n.queues[k]
	if q == nil {
		q = new([]Message)
		n.queues[k] = q
	}
	if len(*q) == 0 {
		n.keys = append(n.keys, k)
	}
	*q = append(*q, m)
}

// Receive implements Allocator.
func (n *SimNetwork) Receive(w int, buf []Message) []Message {
	buf = append(buf, n.inboxes[w]...)
	n.inboxes[w] = n.inboxes[w][:0]
	return buf
}

// InFlight returns the number of messages sent and not yet delivered.
func (n *SimNetwork) InFlight() int {
	total := 0
	for _, k := range n.keys {
		total += len(*n.queues[k])
	}
	return total
}

// Deliver moves one message, from a queue chosen at random, to its
// receiver. It reports whether there was a message to move.
func (n *SimNetwork) Deliver() bool {
	if len(n.keys) == 0 {
		return false
	}
	i := n.rng.IntN(len(n.keys))
	k := n.keys[i]
	q := n.queues[k]
	n.inboxes[k.to] = append(n.inboxes[k.to], (*q)[0])
	(*q)[0] = Message{}
	*q = (*q)[1:]
	if len(*q) == 0 {
		delete(n.queues, k)
		n.keys = append(n.keys[:i], n.keys[i+1:]...)
	}
	n.Delivered++
	return true
}
