package arrange

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// update is an update written out for tests, with string key and val so
// that it compares with ==.
type update struct {
	key, val string
	time     uint64
	diff     int64
}

func (u update) String() string { return fmt.Sprintf("(%q,%q,%d,%+d)", u.key, u.val, u.time, u.diff) }

func compareUpdates(a, b update) int {
	return cmp.Or(strings.Compare(a.key, b.key), strings.Compare(a.val, b.val), cmp.Compare(a.time, b.time))
}

// contents reads every update of c in cursor order.
func contents(c Cursor) []update {
	var out []update
	for ; c.KeyValid(); c.StepKey() {
		for ; c.ValValid(); c.StepVal() {
			k, v := string(c.Key()), string(c.Val())
			c.History(func(t uint64, d int64) { out = append(out, update{k, v, t, d}) })
		}
	}
	return out
}

// build writes ups, which must be sorted, into a batch described by d.
func build(d Description, ups ...update) *Batch {
	var b Builder
	for _, u := range ups {
		b.Push([]byte(u.key), []byte(u.val), u.time, u.diff)
	}
	return b.Done(d)
}

// consolidated sorts ups by (key, val, time), sums equal ones and drops
// zeros: the from-scratch answer a batch must match.
func consolidated(ups []update) []update {
	ups = slices.Clone(ups)
	slices.SortStableFunc(ups, compareUpdates)
	var out []update
	for _, u := range ups {
		if n := len(out); n > 0 && compareUpdates(out[n-1], u) == 0 {
			out[n-1].diff += u.diff
			if out[n-1].diff == 0 {
				out = out[:n-1]
			}
			continue
		}
		if u.diff != 0 {
			out = append(out, u)
		}
	}
	return out
}

// mustPanicAssertion runs f and fails unless it panics with an
// *AssertionError.
func mustPanicAssertion(t *testing.T, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		err, ok := r.(error)
		var ae *AssertionError
		if !ok || !errors.As(err, &ae) {
			t.Fatalf("want a panic with an *AssertionError, got %v", r)
		}
	}()
	f()
}

func mustValidate(t *testing.T, b *Batch) {
	t.Helper()
	if err := b.validate(); err != nil {
		t.Fatal(err)
	}
}

// keyPool holds keys that stress ordering: the empty key, 0x00 and 0xff
// bytes, keys that share an 8-byte prefix (the batcher's fast compare)
// and differ after it, and uneven lengths.
var keyPool = []string{
	"", "\x00", "\x00\x00", "\xff", "\xff\xff\xff\xff\xff\xff\xff\xff\xff",
	"a", "ab", "abcdefg", "abcdefgh", "abcdefgh\x00", "abcdefgh\x01", "abcdefghij",
	"abcdefgi", "b", "key-0000000000001", "key-0000000000002", "zzzzzzzzzzzzzzzzzzzzzzzz",
}

var valPool = []string{"", "x", "xy", "y", "\x00", "\xff"}

// pick returns n distinct strings of pool, in random order.
func pick(rng interface{ Perm(int) []int }, pool []string, n int) []string {
	out := make([]string, 0, n)
	for _, i := range rng.Perm(len(pool))[:n] {
		out = append(out, pool[i])
	}
	return out
}

// TestFlatRun: FlatRun reads in runs exactly the keys and updates a
// cursor's walk reads, for a flat batch (one empty val and one update a
// key, every update at one time with one diff), from any key it is
// called at; for any other batch it declines and leaves the cursor where
// it was.
func TestFlatRun(t *testing.T) {
	d := Description{Lower: 0, Upper: 10}
	keys := func(n int, val string, time func(i int) uint64, diff func(i int) int64) []update {
		var ups []update
		for i := range n {
			ups = append(ups, update{fmt.Sprintf("k%03d", i), val, time(i), diff(i)})
		}
		return ups
	}
	at := func(t uint64) func(int) uint64 { return func(int) uint64 { return t } }
	by := func(d int64) func(int) int64 { return func(int) int64 { return d } }
	flat := map[string]*Batch{
		"inserts at one time":     build(d, keys(10, "", at(3), by(1))...),
		"retractions at one time": build(d, keys(7, "", at(5), by(-2))...),
		"one key":                 build(d, keys(1, "", at(0), by(1))...),
	}
	if b, ok := KeysBatch([][]byte{[]byte("abc")}, [][]uint32{{1, 2, 3}}, 4, nil); ok {
		flat["a table's replayed rows"] = b
	} else {
		t.Fatal("KeysBatch declined rows in order")
	}
	twoUpdates := keys(4, "", at(2), by(1))
	twoUpdates = append(twoUpdates, update{"k001", "", 3, 1})
	slices.SortFunc(twoUpdates, compareUpdates)
	notFlat := map[string]*Batch{
		"times differ":         build(d, keys(6, "", func(i int) uint64 { return uint64(i) }, by(1))...),
		"diffs differ":         build(d, keys(6, "", at(1), func(i int) int64 { return int64(i + 1) })...),
		"vals not empty":       build(d, keys(6, "v", at(1), by(1))...),
		"a val with two times": build(d, twoUpdates...),
		"two vals a key":       build(d, update{"a", "x", 1, 1}, update{"a", "y", 1, 1}, update{"b", "x", 1, 1}),
	}
	for name, b := range flat {
		want := contents(b.Cursor())
		for _, size := range []int{1, 2, 3, 100} {
			for start := range len(want) {
				c := b.Cursor()
				var got []update
				for range start {
					got = append(got, contents1(c)...)
					c.StepKey()
				}
				for c.KeyValid() {
					ks, ends, tm, df, ok := c.FlatRun(size)
					if !ok {
						t.Fatalf("%s: FlatRun(%d) declined at a key of a flat batch", name, size)
					}
					if n := len(ends) - 1; n < 1 || n > size {
						t.Fatalf("%s: FlatRun(%d) read %d keys", name, size, n)
					}
					for i := range len(ends) - 1 {
						got = append(got, update{string(ks[ends[i]:ends[i+1]]), "", tm, df})
					}
				}
				if _, _, _, _, ok := c.FlatRun(size); ok {
					t.Fatalf("%s: FlatRun at the end read a run", name)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%s, runs of %d from key %d:\n got  %v\n want %v", name, size, start, got, want)
				}
			}
		}
		// Past its key's val, the cursor is left to StepKey.
		c := b.Cursor()
		c.StepVal()
		if _, _, _, _, ok := c.FlatRun(5); ok || !c.KeyValid() || c.ValValid() {
			t.Fatalf("%s: FlatRun read a run from past a key's val", name)
		}
	}
	for name, b := range notFlat {
		c := b.Cursor()
		if _, _, _, _, ok := c.FlatRun(100); ok {
			t.Fatalf("%s: FlatRun read a batch that is not flat", name)
		}
		if got, want := contents(c), contents(b.Cursor()); !slices.Equal(got, want) {
			t.Fatalf("%s: FlatRun moved the cursor: %v, want %v", name, got, want)
		}
	}
}

// contents1 reads the updates of c's current key.
func contents1(c Cursor) []update {
	var out []update
	for ; c.ValValid(); c.StepVal() {
		k, v := string(c.Key()), string(c.Val())
		c.History(func(t uint64, d int64) { out = append(out, update{k, v, t, d}) })
	}
	return out
}
