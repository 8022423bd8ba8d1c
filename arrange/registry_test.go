package arrange

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"weak"

	"freshet/dataflow"
)

// exporter is a dataflow that arranges its input and exports it.
type exporter struct {
	id     dataflow.ID
	inputs []*dataflow.InputHandle[Update]
	arr    []*Arranged
	// model is every update sent, for from-scratch answers.
	model []Update
	now   uint64
}

func buildExporter(t *testing.T, sim *dataflow.Sim, reg *Registry, gids ...GlobalID) *exporter {
	t.Helper()
	w := len(sim.Workers)
	e := &exporter{inputs: make([]*dataflow.InputHandle[Update], w), arr: make([]*Arranged, w)}
	e.id = sim.Build(0, func(b *dataflow.Builder) {
		in, s := dataflow.NewInputHandle[Update](b, "input")
		e.inputs[b.Index()] = in
		a := Arrange(s, "arrange")
		e.arr[b.Index()] = a
		for _, gid := range gids {
			if err := reg.Export(b, a, gid); err != nil {
				panic(err)
			}
		}
	})
	settle(t, sim, func() bool { return !slices.Contains(e.inputs, nil) })
	return e
}

// step sends n random updates at the current time from random workers and
// advances every input past it.
func (e *exporter) step(rng *rand.Rand, n int) {
	for i := 0; i < n; i++ {
		u := Update{
			Key:  []byte{byte('a' + rng.IntN(6))},
			Val:  []byte{byte('0' + rng.IntN(3))},
			Time: e.now,
			Diff: int64(1 - 2*rng.IntN(3)/2),
		}
		e.model = append(e.model, u)
		e.inputs[rng.IntN(len(e.inputs))].Send(e.now, u)
	}
	e.now++
	for _, in := range e.inputs {
		in.Advance(e.now)
	}
}

func (e *exporter) close() {
	for _, in := range e.inputs {
		in.Close()
	}
}

// accumulate returns the multiset of updates at times <= t.
func accumulate(us []Update, t uint64) map[string]int64 {
	m := map[string]int64{}
	for _, u := range us {
		if u.Time <= t {
			k := string(u.Key) + "/" + string(u.Val)
			if m[k] += u.Diff; m[k] == 0 {
				delete(m, k)
			}
		}
	}
	return m
}

// importer is a dataflow that imports an arrangement and records every
// update it receives on its batch stream.
type importer struct {
	id     dataflow.ID
	start  uint64
	got    [][]Update
	probes []*dataflow.Probe
	// reader is a lease each worker holds at start for the importer's
	// whole life, like a reader that never advances.
	reader    []*Handle
	buildErrs []error
	committed bool
	// accts are the dataflow's accounts, by worker (one account, or one
	// each where the workers share none).
	accts []*dataflow.Account
}

// reading sums the records to read and the imports catching up over the
// importer's accounts, each counted once.
func (im *importer) reading() (toRead, catchingUp int64) {
	seen := map[*dataflow.Account]bool{}
	for _, a := range im.accts {
		if a != nil && !seen[a] {
			seen[a] = true
			_, n := a.Reading()
			toRead, catchingUp = toRead+n, catchingUp+a.CatchingUp()
		}
	}
	return toRead, catchingUp
}

// importShared makes buildImporter import with ImportShared
// (TestImportShared).
var importShared bool

// TestImportShared runs the import tests with ImportShared, whose replay
// is the trace's batches, shared and unconsolidated: what the importer
// reads sums to the same, its progress (read, catching up) is counted
// the same, and a completed export's importer completes.
func TestImportShared(t *testing.T) {
	importShared = true
	defer func() { importShared = false }()
	t.Run("ReplaysThenFollows", TestImportReplaysThenFollows)
	t.Run("CompletedExportReadableUntilRetired", TestCompletedExportReadableUntilRetired)
}

func buildImporter(t *testing.T, sim *dataflow.Sim, reg *Registry, gid GlobalID, start uint64, pin bool) *importer {
	t.Helper()
	w := len(sim.Workers)
	im := &importer{start: start, got: make([][]Update, w), probes: make([]*dataflow.Probe, w),
		reader: make([]*Handle, w), buildErrs: make([]error, w), accts: make([]*dataflow.Account, w)}
	im.id = sim.Build(start, func(b *dataflow.Builder) {
		im.accts[b.Index()] = b.Account()
		imp := reg.Import
		if importShared {
			imp = reg.ImportShared
		}
		a, err := imp(b, gid, "import")
		if err != nil {
			im.buildErrs[b.Index()] = err
			return
		}
		if pin {
			h, err := a.Trace.NewHandle(start)
			if err != nil {
				panic(err)
			}
			im.reader[b.Index()] = h
			b.OnRelease(func(dataflow.Reason) { h.Close() })
		}
		wi := b.Index()
		ob := b.NewOperator("collect")
		in := dataflow.NewInput(ob, a.Batches, dataflow.Pipeline[*Batch]())
		_, out := dataflow.NewOutput[struct{}](ob)
		ob.Build(func(_ *dataflow.Operator, caps []*dataflow.Capability) dataflow.Logic {
			caps[0].Release()
			return &collectLogic{in: in, got: &im.got[wi], committed: &im.committed}
		})
		im.probes[wi] = dataflow.NewProbe(out)
	})
	return im
}

type collectLogic struct {
	in        *dataflow.Input[*Batch]
	got       *[]Update
	committed *bool
}

func (l *collectLogic) Schedule() {
	for {
		tm, batches, ok := l.in.Next()
		if !ok {
			return
		}
		for _, b := range batches {
			c := b.Cursor()
			for ; c.KeyValid(); c.StepKey() {
				for ; c.ValValid(); c.StepVal() {
					c.History(func(t uint64, d int64) {
						if t < tm {
							panic(fmt.Sprintf("update at %d in a message at %d", t, tm))
						}
						*l.got = append(*l.got, Update{Key: slices.Clone(c.Key()), Val: slices.Clone(c.Val()), Time: t, Diff: d})
					})
				}
			}
		}
	}
}

// Shutdown commits only on completion, like a sink must.
func (l *collectLogic) Shutdown(r dataflow.Reason) {
	if r == dataflow.Completed {
		*l.committed = true
	}
}

func (im *importer) passed(t uint64) bool {
	for _, p := range im.probes {
		if p == nil {
			return false
		}
		if ok, _ := p.Passed(t); !ok {
			return false
		}
	}
	return true
}

// check compares what the importer received, accumulated at every time
// from its start through upto, with the exporter's input.
func (im *importer) check(t *testing.T, e *exporter, upto uint64) {
	t.Helper()
	var all []Update
	for _, g := range im.got {
		all = append(all, g...)
	}
	for tm := im.start; tm <= upto; tm++ {
		got, want := accumulate(all, tm), accumulate(e.model, tm)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("importer %d at %d: got %v, want %v", im.id, tm, got, want)
		}
	}
}

func settle(t *testing.T, sim *dataflow.Sim, cond func() bool) {
	t.Helper()
	if !sim.RunUntil(1_000_000, cond) {
		t.Fatalf("condition not reached; failures %v", sim.Failures)
	}
}

func newSim(rng *rand.Rand, workers int) (*dataflow.Sim, *Registry) {
	sim := dataflow.NewSim(workers, rng.Uint64())
	reg := NewRegistry(workers)
	sim.DropGuard = reg.CheckDrop
	return sim, reg
}

func TestImportReplaysThenFollows(t *testing.T) {
	for _, w := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("W=%d", w), func(t *testing.T) {
			forSeeds(t, 40, func(t *testing.T, rng *rand.Rand) {
				sim, reg := newSim(rng, w)
				e := buildExporter(t, sim, reg, 7)
				for i := rng.IntN(6); i > 0; i-- {
					e.step(rng, 1+rng.IntN(8))
					sim.Run(rng.IntN(200))
				}
				im := buildImporter(t, sim, reg, 7, e.now, false)
				for i := 1 + rng.IntN(6); i > 0; i-- {
					e.step(rng, 1+rng.IntN(8))
					sim.Run(rng.IntN(200))
				}
				upto := e.now - 1
				settle(t, sim, func() bool { return im.passed(upto) })
				im.check(t, e, upto)
				// The records to read are the snapshot as of the start,
				// whether the trace had reached it at the import or not:
				// at least a record for each (key, val) alive at the
				// start, at most every update at or before it.
				toRead, catchingUp := im.reading()
				var through int64
				for _, u := range e.model {
					if u.Time <= im.start {
						through++
					}
				}
				alive := int64(len(accumulate(e.model, im.start)))
				if catchingUp != 0 || toRead < alive || toRead > through {
					t.Fatalf("records to read %d, %d imports catching up; %d alive at the start of %d updates through it", toRead, catchingUp, alive, through)
				}
				e.close()
				settle(t, sim, func() bool { return im.passed(dataflow.MaxTime) })
				if len(sim.Failures) > 0 || !im.committed {
					t.Fatalf("failures %v, committed %v", sim.Failures, im.committed)
				}
			})
		})
	}
}

func TestDropOfImportedExportRefused(t *testing.T) {
	forSeeds(t, 5, func(t *testing.T, rng *rand.Rand) {
		sim, reg := newSim(rng, 2)
		e := buildExporter(t, sim, reg, 1)
		e.step(rng, 5)
		im := buildImporter(t, sim, reg, 1, e.now, false)
		settle(t, sim, func() bool { return im.passed(e.now - 1) })
		err := sim.Drop(e.id)
		var inUse *InUseError
		if !errors.As(err, &inUse) || !slices.Equal(reg.Importers(1), []dataflow.ID{im.id}) {
			t.Fatalf("drop of exporter: %v, importers %v", err, reg.Importers(1))
		}
		if want := fmt.Sprintf("arrangement 1 is imported by dataflow %d", im.id); inUse.Detail != want {
			t.Fatalf("detail %q, want %q", inUse.Detail, want)
		}
		if err := sim.Drop(im.id); err != nil {
			t.Fatal(err)
		}
		settle(t, sim, func() bool { return len(reg.Importers(1)) == 0 })
		if err := sim.Drop(e.id); err != nil {
			t.Fatalf("drop after importer gone: %v", err)
		}
		settle(t, sim, func() bool { return sim.Stats().Running == 0 })
		if len(sim.Failures) > 0 || im.committed {
			t.Fatalf("failures %v, committed %v", sim.Failures, im.committed)
		}
	})
}

// Scenario 12 of drop-safety.md: a dataflow exporting two arrangements
// stays installed until both are retired, and becomes idle exactly once.
func TestRetireLastExportMakesExporterIdle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sim, reg := newSim(rng, 2)
	var idle []dataflow.ID
	reg.SetOnIdle(func(d dataflow.ID) { idle = append(idle, d) })
	e := buildExporter(t, sim, reg, 1, 2)
	if d, ok := reg.Retire(1); ok || d != e.id {
		t.Fatalf("retire 1: %d %v", d, ok)
	}
	if d, ok := reg.Retire(2); !ok || d != e.id {
		t.Fatalf("retire 2: %d %v", d, ok)
	}
	if _, ok := reg.Retire(2); ok {
		t.Fatal("second retire reported idle again")
	}
	if len(idle) != 0 {
		t.Fatalf("idle callback for an exporter without importers: %v", idle)
	}
}

// Scenario 13: retiring an export that a dataflow imports keeps the
// exporter running and the importer correct; the exporter becomes idle
// exactly once, when the importer is dropped.
func TestRetiredExportServesImporterUntilDropped(t *testing.T) {
	for _, w := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("W=%d", w), func(t *testing.T) {
			forSeeds(t, 20, func(t *testing.T, rng *rand.Rand) {
				sim, reg := newSim(rng, w)
				var idle []dataflow.ID
				reg.SetOnIdle(func(d dataflow.ID) { idle = append(idle, d) })
				e := buildExporter(t, sim, reg, 3)
				e.step(rng, 6)
				im := buildImporter(t, sim, reg, 3, e.now, false)
				settle(t, sim, func() bool { return im.passed(e.now - 1) })
				if _, ok := reg.Retire(3); ok {
					t.Fatal("exporter idle while imported")
				}
				late := buildImporter(t, sim, reg, 3, e.now, false)
				settle(t, sim, func() bool { return !slices.Contains(late.buildErrs, nil) })
				for i := 0; i < 4; i++ {
					e.step(rng, 5)
				}
				settle(t, sim, func() bool { return im.passed(e.now - 1) })
				im.check(t, e, e.now-1)
				if err := sim.Drop(e.id); err == nil {
					t.Fatal("drop of retired but imported exporter allowed")
				}
				if err := sim.Drop(im.id); err != nil {
					t.Fatal(err)
				}
				settle(t, sim, func() bool { return len(idle) > 0 })
				sim.Run(100000)
				if !slices.Equal(idle, []dataflow.ID{e.id}) {
					t.Fatalf("idle reports %v, want exactly [%d]", idle, e.id)
				}
				if err := sim.Drop(e.id); err != nil {
					t.Fatal(err)
				}
				settle(t, sim, func() bool { return sim.Stats().Running == 0 })
				if len(sim.Failures) != 0 {
					t.Fatal(sim.Failures)
				}
			})
		})
	}
}

// A completed exporter's trace is final: it stays readable, by peeks
// (Trace) and by new importers, which replay it and complete, until the
// export is retired, when the registry forgets it.
func TestCompletedExportReadableUntilRetired(t *testing.T) {
	for _, w := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("W=%d", w), func(t *testing.T) {
			forSeeds(t, 20, func(t *testing.T, rng *rand.Rand) {
				sim, reg := newSim(rng, w)
				e := buildExporter(t, sim, reg, 5)
				reg.AllowCompaction(5, 1)
				for i := 1 + rng.IntN(4); i > 0; i-- {
					e.step(rng, 1+rng.IntN(8))
					sim.Run(rng.IntN(200))
				}
				last := e.now - 1
				e.close()
				settle(t, sim, func() bool { return sim.Stats().Running == 0 })
				for tm := uint64(1); tm <= last; tm++ {
					got := map[string]int64{}
					for wi := 0; wi < w; wi++ {
						tr, err := reg.Trace(5, wi)
						if err != nil {
							t.Fatalf("worker %d: trace of a completed export: %v", wi, err)
						}
						h, err := tr.NewHandle(tm)
						if err != nil {
							t.Fatal(err)
						}
						c, err := h.Cursor()
						if err != nil {
							t.Fatal(err)
						}
						for ; c.KeyValid(); c.StepKey() {
							for ; c.ValValid(); c.StepVal() {
								c.History(func(ut uint64, d int64) {
									if ut <= tm {
										k := string(c.Key()) + "/" + string(c.Val())
										if got[k] += d; got[k] == 0 {
											delete(got, k)
										}
									}
								})
							}
						}
						h.Close()
					}
					if want := accumulate(e.model, tm); fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("trace at %d: got %v, want %v", tm, got, want)
					}
				}
				im := buildImporter(t, sim, reg, 5, e.now, false)
				settle(t, sim, func() bool { return !slices.Contains(im.buildErrs, nil) || im.passed(dataflow.MaxTime) })
				if !slices.Equal(im.buildErrs, make([]error, w)) {
					t.Fatalf("import of a completed export: %v", im.buildErrs)
				}
				im.check(t, e, e.now)
				if !im.committed || len(sim.Failures) != 0 {
					t.Fatalf("late importer: committed %v, failures %v", im.committed, sim.Failures)
				}
				if _, ok := reg.Retire(5); !ok {
					t.Fatal("retired completed export not idle")
				}
				if _, err := reg.Trace(5, 0); !errors.Is(err, ErrNoExport) {
					t.Fatalf("trace after retire: %v", err)
				}
				after := buildImporter(t, sim, reg, 5, last, false)
				settle(t, sim, func() bool { return !slices.Contains(after.buildErrs, nil) })
				if !errors.Is(after.buildErrs[0], ErrNoExport) {
					t.Fatalf("import after retire: %v", after.buildErrs[0])
				}
			})
		})
	}
}

// Scenarios 14 and 21: an exporter that goes away without completing (a
// forced drop, or a panic in one of its operators) fails its importers
// with ErrSourceGone; they never complete and their sinks never commit.
func TestExporterGoneFailsImporters(t *testing.T) {
	for _, how := range []string{"forced drop", "panic"} {
		t.Run(how, func(t *testing.T) {
			forSeeds(t, 20, func(t *testing.T, rng *rand.Rand) {
				const workers = 2
				sim, reg := newSim(rng, workers)
				e := &exporter{inputs: make([]*dataflow.InputHandle[Update], workers), arr: make([]*Arranged, workers)}
				boom := uint64(3)
				e.id = sim.Build(0, func(b *dataflow.Builder) {
					in, s := dataflow.NewInputHandle[Update](b, "input")
					e.inputs[b.Index()] = in
					if how == "panic" && b.Index() == 0 {
						s = dataflow.Inspect(s, "explode", func(tm uint64, _ Update) {
							if tm >= boom {
								panic("boom")
							}
						})
					} else {
						s = dataflow.Inspect(s, "explode", func(uint64, Update) {})
					}
					a := Arrange(s, "arrange")
					e.arr[b.Index()] = a
					if err := reg.Export(b, a, 9); err != nil {
						panic(err)
					}
				})
				settle(t, sim, func() bool { return !slices.Contains(e.inputs, nil) })
				e.step(rng, 4)
				im := buildImporter(t, sim, reg, 9, e.now, false)
				settle(t, sim, func() bool { return im.passed(e.now - 1) })
				if how == "forced drop" {
					sim.Broadcast(dataflow.Command{ID: e.id})
				} else {
					for e.now <= boom {
						e.step(rng, 3)
					}
					e.inputs[0].Send(e.now, Update{Key: []byte("k"), Val: []byte("v"), Time: e.now, Diff: 1})
				}
				gone := func() bool {
					for _, f := range sim.Failures {
						if err, ok := f.Value.(error); ok && errors.Is(err, ErrSourceGone) && f.Dataflow == im.id {
							return true
						}
					}
					return false
				}
				settle(t, sim, gone)
				e.close()
				sim.Run(200000)
				for _, p := range im.probes {
					if f, err := p.Frontier(); f.IsDone() && err == nil {
						t.Fatalf("importer reports completion after its source went away")
					}
				}
				if im.committed {
					t.Fatal("importer's sink committed")
				}
				// The coordinator drops the importer, then the exporter.
				if err := sim.Drop(im.id); err != nil {
					t.Fatal(err)
				}
				settle(t, sim, func() bool { return len(reg.Importers(9)) == 0 })
				if err := sim.Drop(e.id); err != nil {
					t.Fatal(err)
				}
				settle(t, sim, func() bool { return sim.Stats().Running == 0 })
			})
		})
	}
}

// Scenario 15: an importer's lease at t0 pins the exporter's trace at t0
// even though the exporter allowed compaction; dropping the importer lets
// the since advance, and merging then returns batches and bytes.
func TestImporterDropReleasesCompaction(t *testing.T) {
	for _, w := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("W=%d", w), func(t *testing.T) {
			forSeeds(t, 10, func(t *testing.T, rng *rand.Rand) {
				sim, reg := newSim(rng, w)
				e := buildExporter(t, sim, reg, 5)
				for i := 0; i < 3; i++ {
					e.step(rng, 20)
				}
				t0 := e.now
				im := buildImporter(t, sim, reg, 5, t0, true)
				for i := 0; i < 30; i++ {
					e.step(rng, 20)
				}
				settle(t, sim, func() bool { return im.passed(e.now - 1) })
				reg.AllowCompaction(5, e.now)
				sim.Run(100000)
				var batches, bytes int
				for _, a := range e.arr {
					if a.Trace.Since() != t0 {
						t.Fatalf("since %d with an importer's lease at %d", a.Trace.Since(), t0)
					}
					a.Trace.MergeAll()
					batches += a.Trace.BatchCount()
					bytes += int(a.Trace.Bytes())
				}
				if err := sim.Drop(im.id); err != nil {
					t.Fatal(err)
				}
				settle(t, sim, func() bool { return sim.Stats().Running == int64(w) })
				// The since moves when the arrange operator next runs.
				e.step(rng, 0)
				settle(t, sim, func() bool {
					for _, a := range e.arr {
						if a.Trace.Since() != e.now-1 {
							return false
						}
					}
					return true
				})
				var batchesAfter, bytesAfter int
				for _, a := range e.arr {
					a.Trace.MergeAll()
					batchesAfter += a.Trace.BatchCount()
					bytesAfter += int(a.Trace.Bytes())
				}
				if batchesAfter > batches || bytesAfter >= bytes {
					t.Fatalf("after the importer's drop: batches %d -> %d, bytes %d -> %d", batches, batchesAfter, bytes, bytesAfter)
				}
				if len(sim.Failures) != 0 {
					t.Fatal(sim.Failures)
				}
			})
		})
	}
}

func TestImportBelowSinceRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sim, reg := newSim(rng, 2)
	e := buildExporter(t, sim, reg, 1)
	for i := 0; i < 5; i++ {
		e.step(rng, 3)
	}
	reg.AllowCompaction(1, e.now)
	e.step(rng, 0)
	sim.Run(100000)
	im := buildImporter(t, sim, reg, 1, 1, false)
	settle(t, sim, func() bool { return !slices.Contains(im.buildErrs, nil) })
	for _, err := range im.buildErrs {
		if !errors.Is(err, ErrCompacted) {
			t.Fatalf("import below since: %v", err)
		}
	}
	if len(reg.Importers(1)) != 0 {
		t.Fatal("refused import registered")
	}
}

// Random drops of importing dataflows during a random update stream never
// change what the surviving importers receive.
func TestRandomImporterDrops(t *testing.T) {
	for _, w := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("W=%d", w), func(t *testing.T) {
			forSeeds(t, 20, func(t *testing.T, rng *rand.Rand) {
				sim, reg := newSim(rng, w)
				e := buildExporter(t, sim, reg, 1)
				var live, dropped []*importer
				for round := 0; round < 12; round++ {
					e.step(rng, rng.IntN(6))
					switch {
					case rng.IntN(3) == 0:
						live = append(live, buildImporter(t, sim, reg, 1, e.now, rng.IntN(2) == 0))
					case rng.IntN(3) == 0 && len(live) > 0:
						i := rng.IntN(len(live))
						if err := sim.Drop(live[i].id); err != nil {
							t.Fatal(err)
						}
						dropped = append(dropped, live[i])
						live = append(live[:i], live[i+1:]...)
					}
					sim.Run(rng.IntN(300))
				}
				e.close()
				for _, im := range live {
					settle(t, sim, func() bool { return im.passed(dataflow.MaxTime) })
					im.check(t, e, e.now)
					if !im.committed {
						t.Fatal("surviving importer did not complete")
					}
				}
				sim.Run(1_000_000)
				for _, im := range dropped {
					if im.committed {
						t.Fatal("dropped importer committed")
					}
				}
				if len(sim.Failures) != 0 || sim.Stats().Running != 0 {
					t.Fatalf("failures %v, stats %+v", sim.Failures, sim.Stats())
				}
			})
		})
	}
}

// TestDroppedImporterIsUnreachable checks claim 14 of the lifecycle
// through the registry: once an importing dataflow is dropped, nothing
// the exporter keeps (its shards' listener lists) still reaches the
// importer's source, and through it the importer's graph. The last
// listener of a list is the case a careless removal leaves behind in the
// list's backing array.
func TestDroppedImporterIsUnreachable(t *testing.T) {
	for _, w := range []int{1, 2} {
		for _, victim := range []string{"first", "last"} {
			t.Run(fmt.Sprintf("W=%d/%s", w, victim), func(t *testing.T) {
				forSeeds(t, 3, func(t *testing.T, rng *rand.Rand) {
					sim, reg := newSim(rng, w)
					e := buildExporter(t, sim, reg, 5)
					e.step(rng, 20)
					a := buildImporter(t, sim, reg, 5, 0, false)
					b := buildImporter(t, sim, reg, 5, 0, false)
					e.step(rng, 20)
					settle(t, sim, func() bool { return a.passed(e.now-1) && b.passed(e.now-1) })
					drop, keep := a, b
					pos := 0
					if victim == "last" {
						drop, keep, pos = b, a, 1
					}
					var gone []weak.Pointer[importSource]
					reg.mu.Lock()
					for _, s := range reg.mu.exports[5].shards {
						if len(s.listeners) != 2 {
							reg.mu.Unlock()
							t.Fatalf("%d listeners on a shard, want 2", len(s.listeners))
						}
						gone = append(gone, weak.Make(s.listeners[pos]))
					}
					reg.mu.Unlock()
					if err := sim.Drop(drop.id); err != nil {
						t.Fatal(err)
					}
					settle(t, sim, func() bool { return sim.Stats().Running == int64(2*w) })
					e.step(rng, 20)
					settle(t, sim, func() bool { return keep.passed(e.now - 1) })
					drop = nil
					a, b = nil, nil
					runtime.GC()
					runtime.GC()
					for i, p := range gone {
						if p.Value() != nil {
							t.Fatalf("worker %d: the dropped importer's source is still reachable", i)
						}
					}
					keep.check(t, e, e.now-1)
				})
			})
		}
	}
}
