package arrange

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"freshet/dataflow"
)

// The operator oracle tests run each operator on the simulated network
// over seeded random input: small key and val alphabets (the empty key,
// 0x00 and 0xFF bytes, shared prefixes) so that groups collide, inserts
// and retractions (diffs -2..2), many tied times, every worker's input
// handle fed a step at a time while the simulation runs, advanced and
// finally closed. Whenever every worker's collector has seen its input
// frontier pass a time t, the output accumulated at t, from the collected
// output stream and, for arranged outputs, from every worker's output
// trace read through a handle, must equal the operator applied from
// scratch to the input accumulated at t. A record that arrives at a time
// already checked fails the run.

// opKV is one (key, val) of a collection, as strings for map keys.
type opKV struct{ key, val string }

// opCase is one operator under test.
type opCase struct {
	name   string
	inputs int
	// build adds the operator to a dataflow over its inputs and returns
	// its output: arranged, or a plain stream.
	build func(ins []opInput) opOutput
	// ref computes the operator from scratch over the accumulated inputs.
	ref func(ins []map[opKV]int64) map[opKV]int64
	// consolidated asks for a check that no (key, val, time) repeats in
	// the output and no diff is zero.
	consolidated bool
}

// opInput is one input of the operator's dataflow: a local stream, or an
// imported arrangement.
type opInput struct {
	stream   dataflow.Stream[Update]
	imported *Arranged
	// traces collects the traces the operator reads, to check at the
	// end that every lease on them was released.
	traces *[]*Trace
}

func (in opInput) arranged(name string) *Arranged {
	a := in.imported
	if a == nil {
		a = Arrange(in.stream, name)
	}
	*in.traces = append(*in.traces, a.Trace)
	return a
}

type opOutput struct {
	arr    *Arranged
	stream dataflow.Stream[Update]
}

var (
	opKeys = []string{"", "\x00", "a", "ab", "\xff", "prefix-shared-1", "prefix-shared-2"}
	opVals = []string{"", "x", "y", "\x00z", "\x00\x00", "xa"}
)

// opSegments is Leads' segment count in the tests: "\x00\x00" and
// "\x00z" are segment 0, "x" and "xa" segment 'x', and "" and "y" are
// in none.
const opSegments = 'x' + 1

// opSumValue is Sum's value function in the tests: negative, zero and
// positive weights.
func opSumValue(val []byte) int64 { return int64(len(val)) - 1 }

// opThreshold is Threshold's function in the tests: zero at 0 and 1.
func opThreshold(c int64) int64 { return c*c - c }

// opLess orders TopK's vals by length only, so that ties fall back to the
// val bytes.
func opLess(v1, v2 []byte) bool { return len(v1) < len(v2) }

// opReduceLogic is the generic Reduce under test: the greatest val with a
// positive count, once, and the encoded total count, twice.
func opReduceLogic(_ []byte, input []ValCount) []ValCount {
	var out []ValCount
	var total int64
	for _, vc := range input {
		total += vc.Count
	}
	for i := len(input) - 1; i >= 0; i-- {
		if input[i].Count > 0 {
			out = append(out, ValCount{Val: input[i].Val, Count: 1})
			break
		}
	}
	if total != 0 {
		out = append(out, ValCount{Val: EncodeInt64(total), Count: 2})
	}
	return out
}

// opLeadsLogic is the Leads under test: each segment's lead with its
// count, and the number of segments that have one.
func opLeadsLogic(_ []byte, leads []ValCount) []ValCount {
	var out []ValCount
	for _, l := range leads {
		if l.Val != nil {
			out = append(out, l)
		}
	}
	return append(out, ValCount{Val: EncodeInt64(int64(len(out))), Count: 1})
}

// opFirstsLogic is the FirstN under test: the first vals with their
// counts, and how many there are.
func opFirstsLogic(_ []byte, firsts []ValCount) []ValCount {
	return append(slices.Clone(firsts), ValCount{Val: EncodeInt64(int64(len(firsts))), Count: 1})
}

// opJoinLogic makes output keys differ from input keys.
func opJoinLogic(key, va, vb []byte) ([]byte, []byte) {
	return slices.Clone(va), append(append(slices.Clone(key), '/'), vb...)
}

func opCases(rng *rand.Rand) []opCase {
	offset, limit := rng.IntN(3), rng.IntN(4)-1
	firstN := int64(1 + rng.IntN(4))
	groups := func(in map[opKV]int64) map[string][]ValCount {
		g := map[string][]ValCount{}
		for kv, c := range in {
			g[kv.key] = append(g[kv.key], ValCount{Val: []byte(kv.val), Count: c})
		}
		for k := range g {
			slices.SortFunc(g[k], func(x, y ValCount) int { return bytes.Compare(x.Val, y.Val) })
		}
		return g
	}
	reduceRef := func(f func([]byte, []ValCount) []ValCount) func([]map[opKV]int64) map[opKV]int64 {
		return func(ins []map[opKV]int64) map[opKV]int64 {
			out := map[opKV]int64{}
			for k, vcs := range groups(ins[0]) {
				for _, vc := range f([]byte(k), vcs) {
					opAdd(out, opKV{k, string(vc.Val)}, vc.Count)
				}
			}
			return out
		}
	}
	return []opCase{
		{
			name: "Join", inputs: 2,
			build: func(ins []opInput) opOutput {
				return opOutput{stream: Join(ins[0].arranged("arrange a"), ins[1].arranged("arrange b"), "join", opJoinLogic)}
			},
			ref: func(ins []map[opKV]int64) map[opKV]int64 {
				out := map[opKV]int64{}
				for a, ca := range ins[0] {
					for b, cb := range ins[1] {
						if a.key == b.key {
							k2, v2 := opJoinLogic([]byte(a.key), []byte(a.val), []byte(b.val))
							opAdd(out, opKV{string(k2), string(v2)}, ca*cb)
						}
					}
				}
				return out
			},
		},
		{
			// A chain: Join reads the arrangement Count maintains.
			name: "JoinCount", inputs: 2,
			build: func(ins []opInput) opOutput {
				counts := Count(ins[0].arranged("arrange a"), "count")
				return opOutput{stream: Join(counts, ins[1].arranged("arrange b"), "join", opJoinLogic)}
			},
			ref: func(ins []map[opKV]int64) map[opKV]int64 {
				sums := map[string]int64{}
				for kv, c := range ins[0] {
					sums[kv.key] += c
				}
				out := map[opKV]int64{}
				for b, cb := range ins[1] {
					if s := sums[b.key]; s != 0 {
						k2, v2 := opJoinLogic([]byte(b.key), EncodeInt64(s), []byte(b.val))
						opAdd(out, opKV{string(k2), string(v2)}, cb)
					}
				}
				return out
			},
		},
		{
			name: "Reduce", inputs: 1,
			build: func(ins []opInput) opOutput {
				return opOutput{arr: Reduce(ins[0].arranged("arrange"), "reduce", opReduceLogic)}
			},
			ref: reduceRef(opReduceLogic),
		},
		{
			name: "Leads", inputs: 1,
			build: func(ins []opInput) opOutput {
				return opOutput{arr: Leads(ins[0].arranged("arrange"), "leads", opSegments, opLeadsLogic)}
			},
			// The leads read from the whole group, which is sorted by val.
			ref: reduceRef(func(key []byte, vcs []ValCount) []ValCount {
				leads := make([]ValCount, opSegments)
				some := false
				for _, vc := range vcs {
					if len(vc.Val) > 0 && vc.Val[0] < opSegments && leads[vc.Val[0]].Val == nil && vc.Count > 0 {
						leads[vc.Val[0]], some = vc, true
					}
				}
				if !some {
					return nil
				}
				return opLeadsLogic(key, leads)
			}),
		},
		{
			name: fmt.Sprintf("FirstN(n=%d)", firstN), inputs: 1,
			build: func(ins []opInput) opOutput {
				return opOutput{arr: FirstN(ins[0].arranged("arrange"), "firstn", firstN, opFirstsLogic)}
			},
			ref: reduceRef(func(key []byte, vcs []ValCount) []ValCount {
				var firsts []ValCount
				copies := int64(0)
				for _, vc := range vcs {
					if copies >= firstN {
						break
					}
					if vc.Count > 0 {
						firsts = append(firsts, vc)
						copies += vc.Count
					}
				}
				if len(firsts) == 0 {
					return nil
				}
				return opFirstsLogic(key, firsts)
			}),
		},
		{
			name: "Count", inputs: 1,
			build: func(ins []opInput) opOutput { return opOutput{arr: Count(ins[0].arranged("arrange"), "count")} },
			ref: func(ins []map[opKV]int64) map[opKV]int64 {
				sums := map[string]int64{}
				for kv, c := range ins[0] {
					sums[kv.key] += c
				}
				out := map[opKV]int64{}
				for k, s := range sums {
					if s != 0 {
						out[opKV{k, string(EncodeInt64(s))}] = 1
					}
				}
				return out
			},
		},
		{
			name: "Sum", inputs: 1,
			build: func(ins []opInput) opOutput {
				return opOutput{arr: Sum(ins[0].arranged("arrange"), "sum", opSumValue)}
			},
			ref: func(ins []map[opKV]int64) map[opKV]int64 {
				sums := map[string]int64{}
				for kv, c := range ins[0] {
					sums[kv.key] += c * opSumValue([]byte(kv.val))
				}
				out := map[opKV]int64{}
				for k, s := range sums {
					if s != 0 {
						out[opKV{k, string(EncodeInt64(s))}] = 1
					}
				}
				return out
			},
		},
		{
			name: "Distinct", inputs: 1,
			build: func(ins []opInput) opOutput { return opOutput{arr: Distinct(ins[0].arranged("arrange"), "distinct")} },
			ref: func(ins []map[opKV]int64) map[opKV]int64 {
				out := map[opKV]int64{}
				for kv, c := range ins[0] {
					if c > 0 {
						out[kv] = 1
					}
				}
				return out
			},
		},
		{
			name: "Threshold", inputs: 1,
			build: func(ins []opInput) opOutput {
				return opOutput{arr: Threshold(ins[0].arranged("arrange"), "threshold", opThreshold)}
			},
			ref: func(ins []map[opKV]int64) map[opKV]int64 {
				out := map[opKV]int64{}
				for kv, c := range ins[0] {
					opAdd(out, kv, opThreshold(c))
				}
				return out
			},
		},
		{
			name: fmt.Sprintf("TopK(offset=%d,limit=%d)", offset, limit), inputs: 1,
			build: func(ins []opInput) opOutput {
				return opOutput{arr: TopK(ins[0].arranged("arrange"), "topk", opLess, offset, limit)}
			},
			ref: reduceRef(func(_ []byte, vcs []ValCount) []ValCount {
				// The naive way: a slice with one entry per copy, sorted
				// and cut.
				var copies [][]byte
				for _, vc := range vcs {
					for range max(vc.Count, 0) {
						copies = append(copies, vc.Val)
					}
				}
				slices.SortStableFunc(copies, func(x, y []byte) int {
					return cmp.Or(cmp.Compare(len(x), len(y)), bytes.Compare(x, y))
				})
				copies = copies[min(offset, len(copies)):]
				if limit >= 0 {
					copies = copies[:min(limit, len(copies))]
				}
				var out []ValCount
				for _, c := range copies {
					out = append(out, ValCount{Val: c, Count: 1})
				}
				return out
			}),
		},
		{
			name: "Consolidate", inputs: 1, consolidated: true,
			build: func(ins []opInput) opOutput { return opOutput{stream: Consolidate(ins[0].stream, "consolidate")} },
			ref:   func(ins []map[opKV]int64) map[opKV]int64 { return maps.Clone(ins[0]) },
		},
	}
}

func opAdd(m map[opKV]int64, kv opKV, d int64) {
	if m[kv] += d; m[kv] == 0 {
		delete(m, kv)
	}
}

func opCaseNamed(rng *rand.Rand, prefix string) opCase {
	for _, c := range opCases(rng) {
		if c.name == prefix || strings.HasPrefix(c.name, prefix+"(") {
			return c
		}
	}
	panic("no case " + prefix)
}

// TestOperatorsMatchScratch runs every operator, and Join over Count's
// output (JoinCount), for W = 1, 2, 4 and 100 seeds each, and checks it
// against its from-scratch reference at every completed time.
func TestOperatorsMatchScratch(t *testing.T) {
	for _, name := range []string{"Join", "JoinCount", "Reduce", "Leads", "FirstN", "Count", "Sum", "Distinct", "Threshold", "TopK", "Consolidate"} {
		t.Run(name, func(t *testing.T) {
			for _, w := range []int{1, 2, 4} {
				t.Run(fmt.Sprintf("W=%d", w), func(t *testing.T) {
					forSeeds(t, 100, func(t *testing.T, rng *rand.Rand) {
						c := opCaseNamed(rng, name)
						t.Logf("case %s", c.name)
						runOpCase(t, rng, w, c, opLocal)
					})
				})
			}
		})
	}
}

// TestOperatorsOverImport runs Join, Count, Distinct, TopK, Leads and FirstN over an
// arrangement exported by one dataflow and imported by another built
// later, at a later start S, after the exporter's input was partly fed and
// its compaction allowed up to a random time at or below S. From S on the
// result must equal the operator over the exporter's whole input. Join
// joins the import with a local arrangement of the importing dataflow.
func TestOperatorsOverImport(t *testing.T) {
	for _, name := range []string{"Join", "Count", "Distinct", "TopK", "Leads", "FirstN"} {
		t.Run(name, func(t *testing.T) {
			for _, w := range []int{1, 2, 4} {
				t.Run(fmt.Sprintf("W=%d", w), func(t *testing.T) {
					forSeeds(t, 30, func(t *testing.T, rng *rand.Rand) {
						c := opCaseNamed(rng, name)
						t.Logf("case %s", c.name)
						runOpCase(t, rng, w, c, opImportInput)
					})
				})
			}
		})
	}
}

// TestOperatorOutputsExported exports the arranged outputs of Reduce,
// Leads, Sum and Threshold from the operator's dataflow, and imports them into
// another built later at S: the import's replay and the batches that
// follow must accumulate, from S on, to the operator over its input.
func TestOperatorOutputsExported(t *testing.T) {
	for _, name := range []string{"Reduce", "Leads", "Sum", "Threshold"} {
		t.Run(name, func(t *testing.T) {
			for _, w := range []int{1, 2} {
				t.Run(fmt.Sprintf("W=%d", w), func(t *testing.T) {
					forSeeds(t, 20, func(t *testing.T, rng *rand.Rand) {
						runOpCase(t, rng, w, opCaseNamed(rng, name), opExportOutput)
					})
				})
			}
		})
	}
}

// opStep is one action on an input handle.
type opStep struct {
	send    []Update
	advance uint64
	close   bool
}

// opScript appends random steps to script for times from `from`: sends
// at times at or after the handle's time, and advances; it ends with an
// advance to `until`, or a close if until is Done. It returns the updates
// sent.
func opScript(rng *rand.Rand, from, until uint64, script []opStep) ([]opStep, []Update) {
	var sent []Update
	now := from
	keys := 2 + rng.IntN(len(opKeys)-1)
	vals := 1 + rng.IntN(len(opVals))
	for n := 6 + rng.IntN(18); n > 0; n-- {
		if rng.IntN(3) == 0 {
			now += uint64(1 + rng.IntN(2))
			if until != Done && now >= until {
				break
			}
			script = append(script, opStep{advance: now})
			continue
		}
		tm := now + uint64(rng.IntN(3))
		if until != Done && tm >= until {
			continue
		}
		var upds []Update
		for k := 1 + rng.IntN(3); k > 0; k-- {
			d := int64([]int{-2, -1, 1, 1, 2}[rng.IntN(5)])
			u := Update{Key: []byte(opKeys[rng.IntN(keys)]), Val: []byte(opVals[rng.IntN(vals)]), Time: tm, Diff: d}
			upds = append(upds, u)
		}
		sent = append(sent, upds...)
		script = append(script, opStep{send: upds})
	}
	if until == Done {
		script = append(script, opStep{close: true})
	} else {
		script = append(script, opStep{advance: until})
	}
	return script, sent
}

// opFeeder feeds input handles from scripts, one step at a time.
type opFeeder struct {
	handles [][]*dataflow.InputHandle[Update] // [input][worker]
	scripts [][][]opStep                      // [input][worker]
	next    [][]int
}

// pending reports whether a step is left for a handle that exists.
func (f *opFeeder) pending() bool {
	for i := range f.scripts {
		for w := range f.scripts[i] {
			if f.handles[i][w] != nil && f.next[i][w] < len(f.scripts[i][w]) {
				return true
			}
		}
	}
	return false
}

// feed performs one random pending step whose handle exists.
func (f *opFeeder) feed(t *testing.T, rng *rand.Rand) {
	var choices [][2]int
	for i := range f.scripts {
		for w := range f.scripts[i] {
			if f.handles[i][w] != nil && f.next[i][w] < len(f.scripts[i][w]) {
				choices = append(choices, [2]int{i, w})
			}
		}
	}
	if len(choices) == 0 {
		return
	}
	c := choices[rng.IntN(len(choices))]
	s := f.scripts[c[0]][c[1]][f.next[c[0]][c[1]]]
	f.next[c[0]][c[1]]++
	h := f.handles[c[0]][c[1]]
	var err error
	switch {
	case s.close:
		err = h.Close()
	case s.send != nil:
		err = h.Send(s.send[0].Time, s.send...)
	default:
		err = h.Advance(s.advance)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// opCollector gathers an operator's output on every worker, and for an
// arranged output holds a handle on every worker's output trace.
type opCollector struct {
	frontier []dataflow.Frontier
	handles  []*Handle
	// got is every output update received and not yet folded into acc.
	got []Update
	// acc is the output accumulated through checked-1.
	acc     map[opKV]int64
	checked uint64
	seen    map[[3]string]bool
	errs    []string
	// outputs counts the updates received.
	outputs int
}

func newOpCollector(workers int, start uint64) *opCollector {
	c := &opCollector{
		frontier: make([]dataflow.Frontier, workers),
		handles:  make([]*Handle, workers),
		acc:      map[opKV]int64{},
		checked:  start,
		seen:     map[[3]string]bool{},
	}
	for w := range c.frontier {
		c.frontier[w] = dataflow.Frontier(start)
	}
	return c
}

// attach adds the collector for out to the dataflow b builds.
func (c *opCollector) attach(b *dataflow.Builder, out opOutput, consolidated bool) {
	w := b.Index()
	ob := b.NewOperator("collect")
	var logic *opCollectLogic
	if out.arr != nil {
		h, err := out.arr.Trace.NewHandle(b.Start())
		if err != nil {
			panic(err)
		}
		c.handles[w] = h
		in := dataflow.NewInput(ob, out.arr.Batches, dataflow.Pipeline[*Batch]())
		logic = &opCollectLogic{c: c, w: w, batches: in, frontier: in.Frontier}
	} else {
		in := dataflow.NewInput(ob, out.stream, dataflow.Pipeline[Update]())
		logic = &opCollectLogic{c: c, w: w, updates: in, frontier: in.Frontier, consolidated: consolidated}
	}
	ob.Build(func(_ *dataflow.Operator, caps []*dataflow.Capability) dataflow.Logic {
		for _, cp := range caps {
			cp.Release()
		}
		return logic
	})
}

type opCollectLogic struct {
	c            *opCollector
	w            int
	batches      *dataflow.Input[*Batch]
	updates      *dataflow.Input[Update]
	frontier     func() dataflow.Frontier
	consolidated bool
}

func (l *opCollectLogic) receive(msg uint64, u Update) {
	c := l.c
	switch {
	case u.Time < msg:
		c.errs = append(c.errs, fmt.Sprintf("update %v in a message at %d", u, msg))
	case u.Time < c.checked:
		c.errs = append(c.errs, fmt.Sprintf("update %v after %d was checked", u, u.Time))
	case u.Diff == 0:
		c.errs = append(c.errs, fmt.Sprintf("zero diff: %v", u))
	}
	if l.consolidated {
		id := [3]string{string(u.Key), string(u.Val), fmt.Sprint(u.Time)}
		if c.seen[id] {
			c.errs = append(c.errs, fmt.Sprintf("(key, val, time) repeated: %v", u))
		}
		c.seen[id] = true
	}
	c.outputs++
	c.got = append(c.got, Update{Key: slices.Clone(u.Key), Val: slices.Clone(u.Val), Time: u.Time, Diff: u.Diff})
}

func (l *opCollectLogic) Schedule() {
	if l.batches != nil {
		for {
			tm, batches, ok := l.batches.Next()
			if !ok {
				break
			}
			for _, b := range batches {
				for cur := b.Cursor(); cur.KeyValid(); cur.StepKey() {
					for ; cur.ValValid(); cur.StepVal() {
						times, diffs := cur.Updates()
						for i := range times {
							l.receive(tm, Update{Key: cur.Key(), Val: cur.Val(), Time: times[i], Diff: diffs[i]})
						}
					}
				}
			}
		}
	} else {
		for {
			tm, upds, ok := l.updates.Next()
			if !ok {
				break
			}
			for _, u := range upds {
				l.receive(tm, u)
			}
		}
	}
	l.c.frontier[l.w] = l.frontier()
}

func (l *opCollectLogic) Shutdown(r dataflow.Reason) {
	if r == dataflow.Completed {
		l.c.frontier[l.w] = dataflow.Done
	}
}

// passed returns the least frontier over the workers' collectors.
func (c *opCollector) passed() dataflow.Frontier {
	f := dataflow.Done
	for _, x := range c.frontier {
		f = min(f, x)
	}
	return f
}

// check compares the output accumulated at c.checked with want, from the
// collected stream and from the output traces, then moves on.
func (c *opCollector) check(t *testing.T, want map[opKV]int64) {
	t.Helper()
	tm := c.checked
	kept := c.got[:0]
	for _, u := range c.got {
		if u.Time <= tm {
			opAdd(c.acc, opKV{string(u.Key), string(u.Val)}, u.Diff)
		} else {
			kept = append(kept, u)
		}
	}
	c.got = kept
	if !maps.Equal(c.acc, want) {
		t.Fatalf("at %d: output stream accumulates to\n%s\nwant\n%s", tm, opFormat(c.acc), opFormat(want))
	}
	if c.handles[0] != nil {
		fromTraces := map[opKV]int64{}
		for _, h := range c.handles {
			cur, err := h.Cursor()
			if err != nil {
				t.Fatal(err)
			}
			for ; cur.KeyValid(); cur.StepKey() {
				for ; cur.ValValid(); cur.StepVal() {
					opAdd(fromTraces, opKV{string(cur.Key()), string(cur.Val())}, cur.Count(tm))
				}
			}
			// Let the trace compact up to what was checked.
			if err := h.SetSince(tm); err != nil {
				t.Fatal(err)
			}
		}
		if !maps.Equal(fromTraces, want) {
			t.Fatalf("at %d: output traces accumulate to\n%s\nwant\n%s", tm, opFormat(fromTraces), opFormat(want))
		}
	}
	c.checked++
}

func opFormat(m map[opKV]int64) string {
	var lines []string
	for kv, n := range m {
		lines = append(lines, fmt.Sprintf("  %q %q: %d", kv.key, kv.val, n))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// opModel accumulates each input's updates as time goes on.
type opModel struct {
	upds [][]Update // per input, by time
	next []int
	acc  []map[opKV]int64
}

func newOpModel(sent [][]Update) *opModel {
	m := &opModel{upds: sent, next: make([]int, len(sent)), acc: make([]map[opKV]int64, len(sent))}
	for i := range sent {
		slices.SortStableFunc(m.upds[i], func(x, y Update) int { return cmp.Compare(x.Time, y.Time) })
		m.acc[i] = map[opKV]int64{}
	}
	return m
}

// at returns the inputs accumulated at tm, which must not decrease.
func (m *opModel) at(tm uint64) []map[opKV]int64 {
	for i, us := range m.upds {
		for ; m.next[i] < len(us) && us[m.next[i]].Time <= tm; m.next[i]++ {
			u := us[m.next[i]]
			opAdd(m.acc[i], opKV{string(u.Key), string(u.Val)}, u.Diff)
		}
	}
	return m.acc
}

// opMode says where runOpCase puts the operator, its inputs and its
// reader.
type opMode int

const (
	// opLocal: inputs, operator and collector in one dataflow.
	opLocal opMode = iota
	// opImportInput: input 0 is arranged and exported by one dataflow and
	// imported, at a later start S, by the operator's dataflow.
	opImportInput
	// opExportOutput: the operator's arranged output is exported by its
	// dataflow and imported, at a later start S, by the collector's.
	opExportOutput
)

// runOpCase runs c on workers workers in the given mode. In the import
// modes, the first dataflow starts at 0 and is fed every step before S,
// its compaction is allowed up to a random time at or below S, and then
// the second dataflow starts at S; checks start at S.
func runOpCase(t *testing.T, rng *rand.Rand, workers int, c opCase, mode opMode) {
	sim := dataflow.NewSim(workers, rng.Uint64())
	reg := NewRegistry(workers)
	const gid GlobalID = 1

	start := uint64(0)
	if mode != opLocal {
		start = uint64(3 + rng.IntN(6))
	} else if rng.IntN(2) == 0 {
		start = uint64(rng.IntN(5))
	}
	// early reports whether input i belongs to the first dataflow.
	early := func(i int) bool { return mode == opExportOutput || (mode == opImportInput && i == 0) }
	fd := &opFeeder{
		handles: make([][]*dataflow.InputHandle[Update], c.inputs),
		scripts: make([][][]opStep, c.inputs),
		next:    make([][]int, c.inputs),
	}
	sent := make([][]Update, c.inputs)
	// later holds an early input's steps from S on, fed once the second
	// dataflow is built.
	later := make([][][]opStep, c.inputs)
	maxTime := start
	for i := range c.inputs {
		fd.handles[i] = make([]*dataflow.InputHandle[Update], workers)
		fd.scripts[i] = make([][]opStep, workers)
		fd.next[i] = make([]int, workers)
		later[i] = make([][]opStep, workers)
		for w := range workers {
			var u []Update
			if early(i) {
				fd.scripts[i][w], u = opScript(rng, 0, start, nil)
				sent[i] = append(sent[i], u...)
				later[i][w], u = opScript(rng, start, Done, nil)
			} else {
				fd.scripts[i][w], u = opScript(rng, start, Done, nil)
			}
			sent[i] = append(sent[i], u...)
		}
	}
	for i := range sent {
		for _, u := range sent[i] {
			maxTime = max(maxTime, u.Time)
		}
	}
	model := newOpModel(sent)
	col := newOpCollector(workers, start)

	// run performs events, feeding the inputs a step at a time and
	// checking every time the collectors passed, until nothing is left
	// to do.
	run := func() {
		t.Helper()
		for event := 0; ; event++ {
			if event > 1_000_000 {
				t.Fatalf("no quiescence; failures %v", sim.Failures)
			}
			if fd.pending() && rng.IntN(3) == 0 {
				fd.feed(t, rng)
				sim.Wake()
			}
			more := sim.Event()
			if len(col.errs) > 0 {
				t.Fatal(strings.Join(col.errs, "\n"))
			}
			if len(sim.Failures) > 0 {
				t.Fatalf("failures: %v", sim.Failures)
			}
			for f := col.passed(); col.checked <= maxTime+1 && f.Passed(col.checked); {
				col.check(t, c.ref(model.at(col.checked)))
			}
			if !more && !fd.pending() {
				return
			}
		}
	}

	var traces []*Trace
	// operator builds the inputs of the operator's dataflow and the
	// operator.
	operator := func(b *dataflow.Builder) opOutput {
		ins := make([]opInput, c.inputs)
		for i := range ins {
			ins[i].traces = &traces
			if mode == opImportInput && i == 0 {
				a, err := reg.Import(b, gid, "import")
				if err != nil {
					panic(err)
				}
				ins[i].imported = a
				continue
			}
			h, s := dataflow.NewInputHandle[Update](b, fmt.Sprintf("input %d", i))
			fd.handles[i][b.Index()] = h
			ins[i].stream = s
		}
		return c.build(ins)
	}

	// exported are the exporter's traces, one per worker.
	var exported []*Trace
	if mode != opLocal {
		sim.Build(0, func(b *dataflow.Builder) {
			var a *Arranged
			if mode == opImportInput {
				h, s := dataflow.NewInputHandle[Update](b, "exported input")
				fd.handles[0][b.Index()] = h
				a = Arrange(s, "arrange")
			} else {
				a = operator(b).arr
				traces = append(traces, a.Trace)
			}
			if err := reg.Export(b, a, gid); err != nil {
				panic(err)
			}
			exported = append(exported, a.Trace)
		})
		run()
		reg.AllowCompaction(gid, uint64(rng.IntN(int(start)+1)))
		sim.Run(rng.IntN(100))
		for i := range later {
			for w := range later[i] {
				fd.scripts[i][w] = append(fd.scripts[i][w], later[i][w]...)
			}
		}
	}
	sim.Build(start, func(b *dataflow.Builder) {
		var out opOutput
		if mode == opExportOutput {
			a, err := reg.Import(b, gid, "import")
			if err != nil {
				panic(err)
			}
			out.arr = a
		} else {
			out = operator(b)
		}
		col.attach(b, out, c.consolidated)
	})
	run()

	t.Logf("start %d, checked through %d; %d updates into input 0, %d out", start, col.checked-1, len(sent[0]), col.outputs)
	if col.passed() != dataflow.Done || col.checked != maxTime+2 {
		t.Fatalf("ended with collectors at %v, checked through %d, inputs to %d", col.frontier, col.checked-1, maxTime)
	}
	if st := sim.Stats(); st.Running != 0 {
		t.Fatalf("dataflows still running: %+v", st)
	}
	if ids := reg.Importers(gid); len(ids) != 0 {
		t.Fatalf("importers left: %v", ids)
	}
	for _, h := range col.handles {
		if h != nil {
			if err := h.Close(); err != nil {
				t.Fatal(err)
			}
			traces = append(traces, h.trace)
		}
	}
	// Every lease, the operators' and the imports', was released exactly
	// once when its dataflow ended. The exporter completed: its trace is
	// final and the registry keeps it readable, with the exporter's hold,
	// until the export is retired.
	for _, tr := range append(traces, exported...) {
		want := 0
		if slices.Contains(exported, tr) {
			want = 1
		}
		if n := tr.Leases(); n != want {
			t.Fatalf("%d leases left on a trace, want %d", n, want)
		}
	}
	if mode != opLocal {
		if _, err := reg.Trace(gid, 0); err != nil {
			t.Fatalf("completed export not readable: %v", err)
		}
		reg.Retire(gid)
		if _, err := reg.Trace(gid, 0); !errors.Is(err, ErrNoExport) {
			t.Fatalf("retired completed export still readable: %v", err)
		}
	}
}

// TestJoinSameTime joins (k, a) and (k, b) inserted at the same time on
// both sides, then retracts one side: exactly one +1 at 5 and one -1 at 7.
func TestJoinSameTime(t *testing.T) {
	for _, w := range []int{1, 2} {
		t.Run(fmt.Sprintf("W=%d", w), func(t *testing.T) {
			forSeeds(t, 20, func(t *testing.T, rng *rand.Rand) {
				sim := dataflow.NewSim(w, rng.Uint64())
				ha := make([]*dataflow.InputHandle[Update], w)
				hb := make([]*dataflow.InputHandle[Update], w)
				var got []Update
				sim.Build(0, func(b *dataflow.Builder) {
					a, sa := dataflow.NewInputHandle[Update](b, "a")
					bb, sb := dataflow.NewInputHandle[Update](b, "b")
					ha[b.Index()], hb[b.Index()] = a, bb
					out := Join(Arrange(sa, "arrange a"), Arrange(sb, "arrange b"), "join", func(k, va, vb []byte) ([]byte, []byte) {
						return k, append(slices.Clone(va), vb...)
					})
					dataflow.Inspect(out, "collect", func(_ uint64, u Update) { got = append(got, u) })
				})
				sim.Run(1000)
				// Each side from a random worker, in either order.
				k := []byte("k")
				send := func(hs []*dataflow.InputHandle[Update], val string, tm uint64, d int64) {
					hs[rng.IntN(w)].Send(tm, Update{Key: k, Val: []byte(val), Time: tm, Diff: d})
				}
				if rng.IntN(2) == 0 {
					send(ha, "a", 5, 1)
					send(hb, "b", 5, 1)
				} else {
					send(hb, "b", 5, 1)
					send(ha, "a", 5, 1)
				}
				sim.Run(rng.IntN(50))
				send(ha, "a", 7, -1)
				for i := range w {
					ha[i].Close()
					hb[i].Close()
				}
				if !sim.Run(1_000_000) || len(sim.Failures) > 0 {
					t.Fatalf("failures %v", sim.Failures)
				}
				consolidated := map[string]int64{}
				for _, u := range got {
					consolidated[fmt.Sprintf("%s %s @%d", u.Key, u.Val, u.Time)] += u.Diff
				}
				want := map[string]int64{"k ab @5": 1, "k ab @7": -1}
				if !maps.Equal(consolidated, want) || len(got) != 2 {
					t.Fatalf("got %v, want %v", got, want)
				}
			})
		})
	}
}

// TestDistinctSteps drives one (key, val) through counts 0, 2, 1, 0, 1 at
// times 1..4: Distinct emits +1 at 1, nothing at 2, -1 at 3, +1 at 4, and
// Threshold with max(c, 0) follows the count.
func TestDistinctSteps(t *testing.T) {
	sim := dataflow.NewSim(2, 1)
	hs := make([]*dataflow.InputHandle[Update], 2)
	var distinct, threshold []Update
	collect := func(a *Arranged, dst *[]Update) {
		dataflow.Inspect(a.Batches, "collect", func(_ uint64, b *Batch) {
			for c := b.Cursor(); c.KeyValid(); c.StepKey() {
				for ; c.ValValid(); c.StepVal() {
					c.History(func(tm uint64, d int64) {
						*dst = append(*dst, Update{Key: slices.Clone(c.Key()), Val: slices.Clone(c.Val()), Time: tm, Diff: d})
					})
				}
			}
		})
	}
	sim.Build(0, func(b *dataflow.Builder) {
		h, s := dataflow.NewInputHandle[Update](b, "input")
		hs[b.Index()] = h
		a := Arrange(s, "arrange")
		collect(Distinct(a, "distinct"), &distinct)
		collect(Threshold(a, "threshold", func(c int64) int64 { return max(c, 0) }), &threshold)
	})
	sim.Run(1000)
	for i, d := range []int64{2, -1, -1, 1} {
		tm := uint64(i + 1)
		hs[i%2].Send(tm, Update{Key: []byte("k"), Val: []byte("v"), Time: tm, Diff: d})
	}
	hs[0].Close()
	hs[1].Close()
	if !sim.Run(1_000_000) || len(sim.Failures) > 0 {
		t.Fatalf("failures %v", sim.Failures)
	}
	diffs := func(us []Update) map[uint64]int64 {
		m := map[uint64]int64{}
		for _, u := range us {
			m[u.Time] += u.Diff
		}
		return m
	}
	if got, want := diffs(distinct), map[uint64]int64{1: 1, 3: -1, 4: 1}; !maps.Equal(got, want) {
		t.Errorf("distinct: %v, want %v", got, want)
	}
	if got, want := diffs(threshold), map[uint64]int64{1: 2, 2: -1, 3: -1, 4: 1}; !maps.Equal(got, want) {
		t.Errorf("threshold: %v, want %v", got, want)
	}
}

// withJoinFuel sets the fuel of joins built during the test.
func withJoinFuel(t *testing.T, fuel int) {
	old := joinFuel
	joinFuel = fuel
	t.Cleanup(func() { joinFuel = old })
}

// TestJoinFuelledMatchesScratch runs the join oracle cases with a fuel of
// 1 to 7 (chosen by seed), so that a window is cut at every kind of
// boundary: between keys, within a key's history load, and between the
// pairs of each of the three products; the output must stay exact.
func TestJoinFuelledMatchesScratch(t *testing.T) {
	for _, name := range []string{"Join", "JoinCount"} {
		t.Run(name, func(t *testing.T) {
			for _, w := range []int{1, 2, 4} {
				t.Run(fmt.Sprintf("W=%d", w), func(t *testing.T) {
					forSeeds(t, 40, func(t *testing.T, rng *rand.Rand) {
						fuel := 1 + rng.IntN(7)
						withJoinFuel(t, fuel)
						c := opCaseNamed(rng, name)
						t.Logf("case %s, fuel %d", c.name, fuel)
						runOpCase(t, rng, w, c, opLocal)
					})
				})
			}
		})
	}
	t.Run("OverImport", func(t *testing.T) {
		for _, w := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("W=%d", w), func(t *testing.T) {
				forSeeds(t, 20, func(t *testing.T, rng *rand.Rand) {
					fuel := 1 + rng.IntN(7)
					withJoinFuel(t, fuel)
					c := opCaseNamed(rng, "Join")
					t.Logf("case %s, fuel %d", c.name, fuel)
					runOpCase(t, rng, w, c, opImportInput)
				})
			})
		}
	})
}

// TestReduceFuelledMatchesScratch runs the Reduce, TopK, Leads and FirstN oracle cases,
// and Reduce's exported output, with a Reduce fuel of 1 to 7, so that
// windows are cut between every pair of keys; the output must stay exact.
func TestReduceFuelledMatchesScratch(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode opMode
	}{{"Reduce", opLocal}, {"TopK", opLocal}, {"Leads", opLocal}, {"FirstN", opLocal}, {"Reduce", opExportOutput}} {
		t.Run(fmt.Sprintf("%s/mode=%d", tc.name, tc.mode), func(t *testing.T) {
			for _, w := range []int{1, 2, 4} {
				t.Run(fmt.Sprintf("W=%d", w), func(t *testing.T) {
					forSeeds(t, 30, func(t *testing.T, rng *rand.Rand) {
						fuel := 1 + rng.IntN(7)
						old := reduceFuel
						reduceFuel = fuel
						t.Cleanup(func() { reduceFuel = old })
						c := opCaseNamed(rng, tc.name)
						t.Logf("case %s, fuel %d", c.name, fuel)
						runOpCase(t, rng, w, c, tc.mode)
					})
				})
			}
		})
	}
}
