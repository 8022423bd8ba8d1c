package dataflow

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestClusterMemoryByDataflow: a dataflow's account is one across its
// workers, readable through the cluster while it runs, and gone once the
// dataflow has ended everywhere.
func TestClusterMemoryByDataflow(t *testing.T) {
	c := NewCluster(Config{Workers: 2})
	defer c.Close()
	ctx := context.Background()
	// An open input keeps each dataflow running.
	id, err := c.Build(ctx, 0, func(b *Builder) {
		NewInputHandle[int](b, "in")
		b.Account().Add(int64(100 * (b.Index() + 1)))
		b.Account().AddToRead(10)
		b.Account().AddRead(int64(b.Index() + 1))
		b.Account().AddCatchingUp(1)
	})
	if err != nil {
		t.Fatal(err)
	}
	other, err := c.Build(ctx, 0, func(b *Builder) { NewInputHandle[int](b, "in") })
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Memory(id); got != 300 {
		t.Fatalf("Memory = %d, want 300 (100 and 200 from the two workers)", got)
	}
	if read, toRead, behind := c.Reading(id); read != 3 || toRead != 20 || behind != 2 {
		t.Fatalf("Reading = %d of %d, %d catching up; want 3 of 20, 2", read, toRead, behind)
	}
	if got := c.MemoryByDataflow(); got[id] != 300 || got[other] != 0 || len(got) != 2 {
		t.Fatalf("MemoryByDataflow = %v", got)
	}
	if err := c.Drop(ctx, id); err != nil {
		t.Fatal(err)
	}
	if read, toRead, _ := c.Reading(id); read != 0 || toRead != 0 {
		t.Fatalf("Reading after the drop = %d of %d", read, toRead)
	}
	if got := c.MemoryByDataflow(); len(got) != 1 || c.Memory(id) != 0 {
		t.Fatalf("after the drop: %v", got)
	}
}

// TestClusterGraphs: a running dataflow's operators and channels, as
// built.
func TestClusterGraphs(t *testing.T) {
	c := NewCluster(Config{Workers: 2})
	defer c.Close()
	ctx := context.Background()
	var mu sync.Mutex
	ins := map[int]*InputHandle[int]{}
	var probe *Probe
	id, err := c.Build(ctx, 0, func(b *Builder) {
		in, s := NewInputHandle[int](b, "in")
		s = Inspect(s, "look", func(uint64, int) { time.Sleep(2 * time.Millisecond) })
		p := NewProbe(s)
		mu.Lock()
		ins[b.Index()] = in
		if b.Index() == 0 {
			probe = p
		}
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	// One record on each worker: "look" runs on both, and each run takes
	// at least the 2 ms it sleeps.
	mu.Lock()
	for _, in := range ins {
		in.Send(0, 1)
		in.Advance(1)
	}
	mu.Unlock()
	if err := probe.WaitPast(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.Exec(ctx, func(int) bool { return true }); err != nil {
		t.Fatal(err)
	}
	gs, err := c.Graphs(ctx, []ID{id, 999})
	if err != nil {
		t.Fatal(err)
	}
	g, ok := gs[id]
	if !ok || len(gs) != 1 {
		t.Fatalf("graphs: %v", gs)
	}
	var names []string
	for _, op := range g.Operators {
		names = append(names, op.Name)
	}
	if len(g.Operators) < 2 || names[0] != "in" || names[1] != "look" {
		t.Fatalf("operators: %v", names)
	}
	if len(g.Channels) < 1 || g.Channels[0].From != 0 || g.Channels[0].To != 1 || g.Channels[0].Pact != "pipeline" {
		t.Fatalf("channels: %+v", g.Channels)
	}
	look := g.Operators[1]
	if look.Schedules < 2 || look.Busy < 4*time.Millisecond || look.Longest < 2*time.Millisecond || look.Longest > look.Busy {
		t.Fatalf("look's runs over both workers: %d, busy %v, longest %v", look.Schedules, look.Busy, look.Longest)
	}
}
