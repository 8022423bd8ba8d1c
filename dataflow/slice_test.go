package dataflow

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestOutOfTime: in a cluster, an operator's run is out of time once it
// has held its worker for the configured slice, and a new run starts
// afresh; a worker on its own (the simulator, hand-stepped tests) has no
// slice, so only fuel cuts its runs.
func TestOutOfTime(t *testing.T) {
	const slice = 2 * time.Millisecond
	c := NewCluster(Config{Workers: 1, Slice: slice})
	defer c.Close()
	ctx := context.Background()
	type run struct {
		atStart bool
		took    time.Duration
	}
	runs := make(chan run, 4)
	var in *InputHandle[int]
	var probe *Probe
	_, err := c.Build(ctx, 0, func(b *Builder) {
		h, s := NewInputHandle[int](b, "in")
		ob := b.NewOperator("busy")
		input := NewInput(ob, s, Pipeline[int]())
		ob.Build(func(op *Operator, _ []*Capability) Logic {
			return ScheduleFunc(func() {
				for {
					if _, _, ok := input.Next(); !ok {
						break
					}
					start := time.Now()
					r := run{atStart: op.OutOfTime()}
					for !op.OutOfTime() {
						time.Sleep(100 * time.Microsecond)
					}
					r.took = time.Since(start)
					runs <- r
				}
			})
		})
		in, probe = h, NewProbe(s)
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		in.Send(uint64(i), i)
		in.Advance(uint64(i + 1))
		r := <-runs
		if r.atStart || r.took < slice/2 {
			t.Fatalf("run %d: out of time at its start %v, after %v (slice %v)", i, r.atStart, r.took, slice)
		}
	}
	if err := probe.WaitPast(ctx, 1); err != nil {
		t.Fatal(err)
	}

	w := NewWorker(0, NewProcessAllocator(1, nil), func(f Failure) { t.Fatal(f) })
	var never *Operator
	w.Enqueue(Command{ID: 1, Build: func(b *Builder) {
		ob := b.NewOperator("idle")
		ob.Build(func(op *Operator, _ []*Capability) Logic {
			never = op
			return ScheduleFunc(func() {})
		})
	}})
	for w.Step() {
	}
	w.runStart = time.Now().Add(-time.Hour)
	if never.OutOfTime() {
		t.Fatal("a worker with no slice ran out of time")
	}
}

// TestStepSpendsASliceOnADataflow: once a dataflow has held its worker
// for the slice in a step, its other activated operators wait for the
// next step, which starts from the first of them; so each operator still
// runs in turn, and another dataflow is visited every step however many
// of the first one's operators have work. With no slice, a step runs
// every activated operator.
func TestStepSpendsASliceOnADataflow(t *testing.T) {
	for _, tc := range []struct {
		name  string
		slice time.Duration
		want  []string
	}{
		// Step 0 builds both dataflows and runs each operator's first
		// run from there; d is activated before every later step.
		{"one piece", SlicePiece, []string{"a d", "b d", "c d", "a d", "b d", "c d", "d"}},
		{"no slice", 0, []string{"a b c d", "a b c d", "d", "d"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := NewWorker(0, NewProcessAllocator(1, nil), func(f Failure) { t.Fatal(f) })
			w.SetSlice(tc.slice)
			var ran []string
			// spinning builds operators that each ask to run again until
			// they have run twice.
			spinning := func(names ...string) func(*Builder) {
				return func(b *Builder) {
					for _, name := range names {
						ob := b.NewOperator(name)
						NewOutput[int](ob)
						// Its capability is kept: a dataflow holding none
						// would complete.
						ob.Build(func(op *Operator, _ []*Capability) Logic {
							runs := 0
							op.Activate()
							return ScheduleFunc(func() {
								ran = append(ran, name)
								if runs++; runs < 2 {
									op.Activate()
								}
							})
						})
					}
				}
			}
			w.Enqueue(Command{ID: 1, Build: spinning("a", "b", "c")})
			var d *Activator
			w.Enqueue(Command{ID: 2, Build: func(b *Builder) {
				ob := b.NewOperator("d")
				NewOutput[int](ob)
				ob.Build(func(op *Operator, _ []*Capability) Logic {
					d = op.Activator()
					return ScheduleFunc(func() { ran = append(ran, "d") })
				})
			}})
			for i, want := range tc.want {
				ran = ran[:0]
				if d != nil {
					d.Activate()
				}
				w.Step()
				if got := strings.Join(ran, " "); got != want {
					t.Fatalf("step %d ran %q, want %q", i, got, want)
				}
			}
		})
	}
}
