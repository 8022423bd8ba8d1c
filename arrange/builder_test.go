package arrange

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestBuilder(t *testing.T) {
	d := Description{Lower: 0, Upper: 10}
	for _, tc := range []struct {
		name string
		in   []update
		want []update
		// keyVals and valUpds report whether those columns must be
		// materialised rather than elided.
		keyVals, valUpds bool
	}{
		{name: "empty"},
		{
			name: "distinct keys elide both offset columns",
			in:   []update{{"a", "x", 1, 1}, {"b", "x", 2, -1}, {"c", "", 3, 5}},
			want: []update{{"a", "x", 1, 1}, {"b", "x", 2, -1}, {"c", "", 3, 5}},
		},
		{
			name:    "two vals under one key",
			in:      []update{{"a", "x", 1, 1}, {"a", "y", 1, 1}, {"b", "x", 1, 1}},
			want:    []update{{"a", "x", 1, 1}, {"a", "y", 1, 1}, {"b", "x", 1, 1}},
			keyVals: true,
		},
		{
			name:    "two times under one val",
			in:      []update{{"a", "x", 1, 1}, {"a", "x", 2, 1}, {"b", "x", 1, 1}},
			want:    []update{{"a", "x", 1, 1}, {"a", "x", 2, 1}, {"b", "x", 1, 1}},
			valUpds: true,
		},
		{
			name: "equal (key, val, time) are summed",
			in:   []update{{"a", "x", 1, 1}, {"a", "x", 1, 2}, {"a", "x", 1, -1}},
			want: []update{{"a", "x", 1, 2}},
		},
		{
			name: "zero diffs are dropped",
			in:   []update{{"a", "x", 1, 0}, {"b", "x", 1, 1}, {"c", "x", 1, 0}},
			want: []update{{"b", "x", 1, 1}},
		},
		{
			name: "a cancelled val and key disappear",
			in: []update{
				{"a", "x", 1, 1}, {"a", "x", 1, -1},
				{"b", "x", 1, 1}, {"b", "x", 1, -1}, {"b", "y", 2, 3},
				{"c", "z", 4, 2},
			},
			want: []update{{"b", "y", 2, 3}, {"c", "z", 4, 2}},
		},
		{
			name: "a sum that cancels and then returns",
			in:   []update{{"a", "x", 1, 1}, {"a", "x", 2, 1}, {"a", "x", 2, -1}, {"a", "x", 2, 4}},
			want: []update{{"a", "x", 1, 1}, {"a", "x", 2, 4}}, valUpds: true,
		},
		{
			name: "empty and binary keys order by bytes",
			in:   []update{{"", "", 0, 1}, {"\x00", "", 0, 1}, {"\x00\x00", "\xff", 0, 1}, {"\xff", "", 9, 1}},
			want: []update{{"", "", 0, 1}, {"\x00", "", 0, 1}, {"\x00\x00", "\xff", 0, 1}, {"\xff", "", 9, 1}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := build(d, tc.in...)
			mustValidate(t, b)
			if got := contents(b.Cursor()); !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			if b.Len() != len(tc.want) || b.Description() != d {
				t.Fatalf("Len %d, Description %v; want %d, %v", b.Len(), b.Description(), len(tc.want), d)
			}
			if (b.keyVals != nil) != tc.keyVals || (b.valUpds != nil) != tc.valUpds {
				t.Fatalf("keyVals materialised %v, valUpds %v; want %v, %v", b.keyVals != nil, b.valUpds != nil, tc.keyVals, tc.valUpds)
			}
		})
	}
}

func TestBuilderRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func(b *Builder)
	}{
		{"key out of order", func(b *Builder) { b.Push([]byte("b"), nil, 1, 1); b.Push([]byte("a"), nil, 1, 1) }},
		{"val out of order", func(b *Builder) { b.Push([]byte("a"), []byte("y"), 1, 1); b.Push([]byte("a"), []byte("x"), 1, 1) }},
		{"time out of order", func(b *Builder) { b.Push([]byte("a"), nil, 2, 1); b.Push([]byte("a"), nil, 1, 1) }},
		{"time out of order after a cancellation", func(b *Builder) {
			b.Push([]byte("a"), nil, 2, 1)
			b.Push([]byte("a"), nil, 2, -1)
			b.Push([]byte("a"), nil, 1, 1)
		}},
		{"the reserved time", func(b *Builder) { b.Push([]byte("a"), nil, Done, 1) }},
		{"time at upper", func(b *Builder) { b.Push([]byte("a"), nil, 10, 1); b.Done(Description{Lower: 0, Upper: 10}) }},
		{"time below lower", func(b *Builder) { b.Push([]byte("a"), nil, 1, 1); b.Done(Description{Lower: 2, Upper: 10}) }},
		{"lower above upper", func(b *Builder) { b.Done(Description{Lower: 3, Upper: 2}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mustPanicAssertion(t, func() { tc.f(new(Builder)) })
		})
	}
}

func TestBuilderReuse(t *testing.T) {
	var b Builder
	b.Push([]byte("a"), []byte("x"), 1, 1)
	first := b.Done(Description{Upper: 5})
	b.Push([]byte("a"), []byte("x"), 6, 2)
	second := b.Done(Description{Lower: 5, Upper: 10})
	if got, want := contents(first.Cursor()), []update{{"a", "x", 1, 1}}; !slices.Equal(got, want) {
		t.Fatalf("first batch changed: %v", got)
	}
	if got, want := contents(second.Cursor()), []update{{"a", "x", 6, 2}}; !slices.Equal(got, want) {
		t.Fatalf("second batch: %v, want %v", got, want)
	}
}

func TestBatchBytes(t *testing.T) {
	header := (&Batch{}).Bytes()
	if header > 256 {
		t.Fatalf("header = %d bytes", header)
	}
	key := func(i int) []byte {
		k := []byte("key-000000000000")
		k[13], k[14], k[15] = byte('0'+i/100), byte('0'+i/10%10), byte('0'+i%10)
		return k
	}
	// 100 distinct 16-byte keys, one update each; the bytes beyond the
	// header are the payload, two uint32 offsets a key (keyOff, valOff;
	// keyVals and valUpds elided) and the update columns that differ
	// between updates, plus the two leading zero offsets.
	for _, tc := range []struct {
		name string
		val  string
		time func(i int) uint64
		diff func(i int) int64
		want int64 // bytes an update, beyond its payload
	}{
		{"times and diffs differ", "val-0000", func(i int) uint64 { return uint64(i) }, func(i int) int64 { return int64(i%3 + 1) }, 4 + 4 + 8 + 8},
		{"one time", "val-0000", func(int) uint64 { return 7 }, func(i int) int64 { return int64(i%3 + 1) }, 4 + 4 + 8},
		{"one diff", "val-0000", func(i int) uint64 { return uint64(i) }, func(int) int64 { return 1 }, 4 + 4 + 8},
		{"one time and diff", "val-0000", func(int) uint64 { return 7 }, func(int) int64 { return -1 }, 4 + 4},
		{"empty vals, one time and diff", "", func(int) uint64 { return 7 }, func(int) int64 { return 1 }, 4},
	} {
		var b Builder
		for i := range 100 {
			b.Push(key(i), []byte(tc.val), tc.time(i), tc.diff(i))
		}
		batch := b.Done(Description{Upper: 100})
		if err := batch.validate(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		offsets := int64(2 * 4)
		if tc.val == "" {
			offsets = 4
		}
		if got, want := batch.Bytes()-header, 100*(16+int64(len(tc.val))+tc.want)+offsets; got != want {
			t.Fatalf("%s: Bytes beyond the header = %d, want %d", tc.name, got, want)
		}
		var got []update
		c := batch.Cursor()
		for ; c.KeyValid(); c.StepKey() {
			for ; c.ValValid(); c.StepVal() {
				c.History(func(tm uint64, d int64) { got = append(got, update{string(c.Key()), string(c.Val()), tm, d}) })
			}
		}
		for i, u := range got {
			if w := (update{string(key(i)), tc.val, tc.time(i), tc.diff(i)}); u != w {
				t.Fatalf("%s: update %d reads back as %v, want %v", tc.name, i, u, w)
			}
		}
		if len(got) != 100 {
			t.Fatalf("%s: %d updates read back", tc.name, len(got))
		}
	}
}

// TestColumnMatchesSlice runs random appends, sets and cuts on a builder's
// lazily written column and on a plain slice, with few distinct values so
// that the column stays unwritten for a while, and checks every entry,
// uniform and exact against the slice after each step.
func TestColumnMatchesSlice(t *testing.T) {
	forSeeds(t, 50, func(t *testing.T, rng *rand.Rand) {
		var c column[int64]
		var model []int64
		val := func() int64 { return int64(rng.IntN(1 + rng.IntN(3))) }
		for step := range 200 {
			n := len(model)
			switch op := rng.IntN(5); {
			case op == 0 && n > 0:
				i, x := rng.IntN(n), val()
				c.set(n, i, x, 0)
				model[i] = x
			case op == 1 && n > 0:
				k := rng.IntN(n + 1)
				c.truncate(k)
				model = model[:k]
			case op == 2:
				x, k := val(), rng.IntN(4)
				c.pushSame(n, x, k, 0)
				for range k {
					model = append(model, x)
				}
			case op == 3:
				xs := make([]int64, rng.IntN(4))
				for i := range xs {
					xs[i] = val()
				}
				c.pushRange(n, xs, 0)
				model = append(model, xs...)
			default:
				x := val()
				c.push(n, x, 0)
				model = append(model, x)
			}
			for i, want := range model {
				if got := c.at(i); got != want {
					t.Fatalf("step %d: entry %d is %d, want %d (model %v)", step, i, got, want, model)
				}
			}
			if len(model) > 0 {
				if got, want := c.uniform(), allSame(model); got != want {
					t.Fatalf("step %d: uniform %v, want %v (model %v)", step, got, want, model)
				}
			}
		}
		if len(model) > 0 && !slices.Equal(c.exact(len(model)), model) {
			t.Fatalf("exact %v, want %v", c.exact(len(model)), model)
		}
	})
}

// TestBuilderEmptyValsThenBytes: a builder writes no val offsets while
// every val is empty (a table's rows), and must write them all out, as
// zeros, once a val has bytes, whether pushed or copied from a batch by
// a merge; a val with bytes that cancels leaves the others as they were.
func TestBuilderEmptyValsThenBytes(t *testing.T) {
	forSeeds(t, 30, func(t *testing.T, rng *rand.Rand) {
		gen := func(lower uint64, emptyOnly bool) (*Batch, []update) {
			var ups []update
			for range rng.IntN(40) {
				v := ""
				if !emptyOnly && rng.IntN(4) == 0 {
					v = valPool[rng.IntN(len(valPool))]
				}
				ups = append(ups, update{keyPool[rng.IntN(len(keyPool))], v, lower + rng.Uint64N(10), rng.Int64N(3) - 1})
			}
			// Vals with bytes that cancel: the builder drops them, and
			// the offsets of the vals around them must not move.
			for range rng.IntN(4) {
				u := update{keyPool[rng.IntN(len(keyPool))], valPool[1+rng.IntN(len(valPool)-1)], lower + rng.Uint64N(10), 1}
				ups = append(ups, u, update{u.key, u.val, u.time, -1})
			}
			// Pushed sorted but not consolidated: the builder sums.
			slices.SortStableFunc(ups, compareUpdates)
			want := consolidated(ups)
			b := build(Description{Lower: lower, Upper: lower + 10}, ups...)
			mustValidate(t, b)
			if got := contents(b.Cursor()); !slices.Equal(got, want) {
				t.Fatalf("built %v, want %v", got, want)
			}
			return b, want
		}
		older, o := gen(0, rng.IntN(2) == 0)
		newer, n := gen(10, rng.IntN(2) == 0)
		m := newMerger(older, newer, 0)
		m.work(math.MaxInt64)
		mustValidate(t, m.result)
		if got, want := contents(m.result.Cursor()), consolidated(append(o, n...)); !slices.Equal(got, want) {
			t.Fatalf("merged %v, want %v", got, want)
		}
	})
}

// TestExactKeepsALittleRoom: exact keeps a slice whose spare capacity is
// at most a sixteenth of its length, and copies any other to exactly its
// length, so that a batch's Bytes stays within a sixteenth of its data.
func TestExactKeepsALittleRoom(t *testing.T) {
	if exact([]byte{}) != nil || exact(make([]byte, 0, 8)) != nil {
		t.Fatal("an empty slice is not nil")
	}
	for _, c := range []struct {
		len, cap int
		kept     bool
	}{{16, 16, true}, {16, 17, true}, {16, 18, false}, {160, 170, true}, {160, 171, false}, {1, 2, false}, {15, 15, true}} {
		s := make([]uint32, c.len, c.cap)
		for i := range s {
			s[i] = uint32(i)
		}
		got := exact(s)
		kept := &got[0] == &s[0]
		if kept != c.kept || !slices.Equal(got, s) || !kept && cap(got) != c.len {
			t.Errorf("len %d cap %d: kept %v (cap %d), want kept %v", c.len, c.cap, kept, cap(got), c.kept)
		}
	}
}
