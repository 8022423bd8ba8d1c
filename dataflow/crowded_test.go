package dataflow

import "testing"

// crowdedGraph builds, on one worker, a source that gives pieces
// messages of 1,024 records, at most four a run, and a sink that takes
// one message a run and asks to run again while any is left, or, if
// lazy, takes nothing until the source has given its last piece and then
// everything (an operator that waits on something outside its input,
// not due to run meanwhile). The source waits while Crowded if polite.
// It returns the most messages seen waiting at the start of a source's
// run, and the records the sink took.
func crowdedGraph(t *testing.T, pieces int, polite, lazy bool) (most, took int) {
	t.Helper()
	sim := NewSim(1, 1)
	var probe *Probe
	sourceDone := false
	sim.Build(0, func(b *Builder) {
		ob := b.NewOperator("source")
		out, s := NewOutput[uint64](ob)
		ob.Build(func(op *Operator, caps []*Capability) Logic {
			cap := caps[0]
			given := 0
			return ScheduleFunc(func() {
				most = max(most, op.df.waiting)
				for n := 0; n < 4 && given < pieces; n++ {
					if polite && op.Crowded() {
						break
					}
					out.GiveSlice(cap.Time(), make([]uint64, 1024))
					given++
				}
				if given == pieces {
					if cap != nil {
						// One record more runs the sink, lazy or not.
						sourceDone = true
						out.GiveSlice(cap.Time(), make([]uint64, 1))
						cap.Release()
						cap = nil
					}
					return
				}
				op.Activate()
			})
		})
		sb := b.NewOperator("sink")
		in := NewInput(sb, s, Pipeline[uint64]())
		sb.Build(func(op *Operator, _ []*Capability) Logic {
			return ScheduleFunc(func() {
				if lazy && !sourceDone {
					return
				}
				for {
					_, data, ok := in.Next()
					if !ok {
						return
					}
					took += len(data)
					if !lazy {
						if in.Pending() {
							op.Activate()
						}
						return
					}
				}
			})
		})
		probe = NewProbe(s)
	})
	if !sim.Run(10_000_000) {
		t.Fatal("did not quiesce")
	}
	if ok, err := probe.Passed(MaxTime); err != nil || !ok {
		t.Fatalf("the source's frontier is not done (%v)", err)
	}
	return most, took
}

// TestCrowdedHoldsASourceBack: a source that gives many messages to a
// slow sink keeps what waits near crowdedAt when it checks Crowded, and
// lets it grow to all of them when it does not; every record arrives
// either way.
func TestCrowdedHoldsASourceBack(t *testing.T) {
	const pieces = 500
	most, took := crowdedGraph(t, pieces, true, false)
	if most > crowdedAt+4 {
		t.Errorf("with Crowded, %d messages waited at once; want at most %d", most, crowdedAt+4)
	}
	if took != pieces*1024+1 {
		t.Errorf("with Crowded the sink took %d records, want %d", took, pieces*1024+1)
	}
	most, took = crowdedGraph(t, pieces, false, false)
	if most < pieces/2 {
		t.Errorf("without Crowded, at most %d messages waited at once; the test's sink is not slow", most)
	}
	if took != pieces*1024+1 {
		t.Errorf("without Crowded the sink took %d records, want %d", took, pieces*1024+1)
	}
}

// TestCrowdedNotWhileNoneIsDue: messages that no operator is due to
// take are no crowd; the source gives all it has.
func TestCrowdedNotWhileNoneIsDue(t *testing.T) {
	const pieces = 300
	if _, took := crowdedGraph(t, pieces, true, true); took != pieces*1024+1 {
		t.Errorf("the sink took %d records, want %d", took, pieces*1024+1)
	}
}
