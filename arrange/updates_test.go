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
