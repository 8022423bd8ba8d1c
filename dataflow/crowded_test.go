package dataflow

import "testing"

// crowdedGraph builds, on one worker, a source that gives pieces
// messages of 1,024 records, at most four a run, and a sink that takes
// one message a run and asks to run again while any is left, or, if
// lazy, takes nothing until the source has given its last piece and then
// everything (an operator that waits on something outside its input,
// not due to run meanwhile). If polite, the source gives one piece a run
// and more only while it is not Crowded.
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
					if polite && n > 0 && op.Crowded() {
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

// jobs returns, on worker 0 of sim, an operator that takes messages of
// job sizes and gives a record of 1 per unit of each job, a piece of one
// record at a time, eight a run, as flatten does: the first piece of a
// run whatever, the rest only while it is not Crowded.
func jobs(s Stream[int], name string) Stream[int] {
	ob := s.b.NewOperator(name)
	ob.SetNotify(false)
	in := NewInput(ob, s, Pipeline[int]())
	out, rows := NewOutput[int](ob)
	ob.Build(func(op *Operator, caps []*Capability) Logic {
		caps[0].Release()
		var (
			t    uint64
			left int
			held *Capability
		)
		return ScheduleFunc(func() {
			gave := false
			for fuel := 8; fuel > 0; {
				if left == 0 {
					if held != nil {
						held.Release()
						held = nil
					}
					var data []int
					var ok bool
					if t, data, ok = in.Next(); !ok {
						return
					}
					for _, n := range data {
						left += n
					}
					continue
				}
				if gave && op.Crowded() {
					break
				}
				out.GiveSlice(t, []int{1})
				left--
				fuel--
				gave = true
			}
			if left > 0 {
				if held == nil {
					held = op.Retain(0, t)
				}
				op.Activate()
			} else if held != nil {
				held.Release()
				held = nil
			}
			if in.Pending() {
				op.Activate()
			}
		})
	})
	return rows
}

// TestCrowdedTwoSourcesFinish: two flattening operators of one dataflow,
// each partway through a long job and each due because it asked to run
// again, with more messages than crowdedAt waiting at one's input, both
// finish: each gives a piece every run.
func TestCrowdedTwoSourcesFinish(t *testing.T) {
	for _, extra := range []int{10, crowdedAt + 6} {
		sim := NewSim(1, 1)
		var ha, hb *InputHandle[int]
		var probe *Probe
		took := 0
		sim.Build(0, func(b *Builder) {
			var sa, sb Stream[int]
			ha, sa = NewInputHandle[int](b, "a")
			hb, sb = NewInputHandle[int](b, "b")
			all := Concat(jobs(sa, "jobs a"), jobs(sb, "jobs b"), "both")
			all = Inspect(all, "sink", func(_ uint64, r int) { took += r })
			probe = NewProbe(all)
		})
		if !sim.Run(1000) || ha == nil {
			t.Fatal("not built")
		}
		if err := ha.Send(0, 1000); err != nil {
			t.Fatal(err)
		}
		if err := hb.Send(0, 1000); err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= extra; i++ {
			if err := ha.Send(uint64(i), 1); err != nil {
				t.Fatal(err)
			}
		}
		ha.Close()
		hb.Close()
		if !sim.Run(2_000_000) {
			t.Fatalf("%d extra messages: the dataflow did not quiesce", extra)
		}
		if ok, err := probe.Passed(MaxTime); err != nil || !ok {
			t.Fatalf("%d extra messages: the frontier is not done (%v)", extra, err)
		}
		if took != 2000+extra {
			t.Fatalf("%d extra messages: took %d records, want %d", extra, took, 2000+extra)
		}
	}
}
