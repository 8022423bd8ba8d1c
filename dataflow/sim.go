package dataflow

import "math/rand/v2"

// Sim runs W workers on a SimNetwork from one goroutine, choosing at
// every event, under a seed, whether to step a worker, deliver a message,
// or hand a worker its next command. The same seed and the same calls
// give the same run, so a failing seed replays exactly.
//
// Commands reach workers at different moments: one worker may build,
// run and drop a dataflow before another has built it.
type Sim struct {
	Workers []*Worker
	Net     *SimNetwork
	// Failures collects every failure reported, in order.
	Failures []Failure
	// DropGuard, if set, may refuse a Drop.
	DropGuard func(ID) error
	rng       *rand.Rand
	nextID    ID
	// commands[w] holds commands not yet handed to worker w.
	commands [][]Command
	// idle[w] reports whether worker w's last step did nothing.
	idle []bool
}

// NewSim returns a simulation of workers workers under seed.
func NewSim(workers int, seed uint64) *Sim {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	s := &Sim{
		Net:      NewSimNetwork(workers, rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64()))),
		rng:      rng,
		commands: make([][]Command, workers),
		idle:     make([]bool, workers),
	}
	for i := 0; i < workers; i++ {
		s.Workers = append(s.Workers, NewWorker(i, s.Net, func(f Failure) { s.Failures = append(s.Failures, f) }))
	}
	return s
}

// Rand returns the simulation's random source, for tests that draw their
// inputs from the same seed.
func (s *Sim) Rand() *rand.Rand { return s.rng }

// Build queues the build of a new dataflow on every worker and returns its
// id. Each worker applies it when the simulation hands it over.
func (s *Sim) Build(start uint64, build func(*Builder)) ID {
	s.nextID++
	s.Broadcast(Command{ID: s.nextID, Start: start, Build: build})
	return s.nextID
}

// NextID returns the id the next Build will use.
func (s *Sim) NextID() ID { return s.nextID + 1 }

// Drop queues the drop of dataflow id on every worker, unless DropGuard
// refuses it (see Cluster.SetDropGuard).
func (s *Sim) Drop(id ID) error {
	if s.DropGuard != nil {
		if err := s.DropGuard(id); err != nil {
			return err
		}
	}
	s.Broadcast(Command{ID: id})
	return nil
}

// Broadcast queues cmd for every worker.
func (s *Sim) Broadcast(cmd Command) {
	for w := range s.commands {
		s.Enqueue(w, cmd)
	}
}

// Enqueue queues cmd for worker w alone.
func (s *Sim) Enqueue(w int, cmd Command) {
	s.commands[w] = append(s.commands[w], cmd)
	s.idle[w] = false
}

// Event performs one random event and reports whether the simulation
// still has work: a worker that may step usefully, a message in flight,
// or a command not yet handed over.
func (s *Sim) Event() bool {
	var choices [3][]int
	for w := range s.Workers {
		if !s.idle[w] {
			choices[0] = append(choices[0], w)
		}
		if len(s.commands[w]) > 0 {
			choices[1] = append(choices[1], w)
		}
	}
	inflight := s.Net.InFlight() > 0
	kinds := make([]int, 0, 3)
	for k := 0; k < 2; k++ {
		if len(choices[k]) > 0 {
			kinds = append(kinds, k)
		}
	}
	if inflight {
		kinds = append(kinds, 2)
	}
	if len(kinds) == 0 {
		return false
	}
	switch kinds[s.rng.IntN(len(kinds))] {
	case 0:
		w := choices[0][s.rng.IntN(len(choices[0]))]
		s.step(w)
	case 1:
		w := choices[1][s.rng.IntN(len(choices[1]))]
		cmd := s.commands[w][0]
		s.commands[w] = s.commands[w][1:]
		s.Workers[w].Enqueue(cmd)
		s.idle[w] = false
	case 2:
		s.Net.Deliver()
		// A delivery may give any worker work; the receiver is no
		// longer known to be idle.
		for w := range s.idle {
			s.idle[w] = false
		}
	}
	return true
}

func (s *Sim) step(w int) {
	s.idle[w] = !s.Workers[w].Step()
}

// Wake marks every worker as possibly having work, after a test fed an
// input handle or activated an operator from outside.
func (s *Sim) Wake() {
	for w := range s.idle {
		s.idle[w] = false
	}
}

// Run performs events until nothing is left to do or maxEvents ran, and
// reports whether it went quiet.
func (s *Sim) Run(maxEvents int) bool {
	s.Wake()
	for i := 0; i < maxEvents; i++ {
		if !s.Event() {
			return true
		}
	}
	return false
}

// RunUntil performs events until cond holds, and reports whether it did
// within maxEvents. cond is checked before every event.
func (s *Sim) RunUntil(maxEvents int, cond func() bool) bool {
	s.Wake()
	for i := 0; i < maxEvents; i++ {
		if cond() {
			return true
		}
		if !s.Event() {
			return cond()
		}
	}
	return cond()
}

// Stats returns the counters summed over workers.
func (s *Sim) Stats() Stats {
	var st Stats
	for _, w := range s.Workers {
		st = st.Add(w.Stats())
	}
	return st
}
