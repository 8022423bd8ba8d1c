package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"freshet/sqlerr"
)

// countKeys returns the number of keys in table's log.
func countKeys(t *testing.T, s *Store, table uint64) int {
	t.Helper()
	lower, upper := tableBounds(table)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for valid := it.First(); valid; valid = it.Next() {
		n++
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestTableLogBlocks: a Txn's updates of one table are kept in blocks of
// at most blockUpdates updates and about blockBytes of rows, a block
// never spans two tables, and a scan gives back every update in the
// order written, before and after a reopen; the same whether they come
// as a []TableWrite, from an Updates, or encoded ahead as Blocks.
func TestTableLogBlocks(t *testing.T) {
	for _, source := range []string{"writes", "source", "blocks"} {
		t.Run("from="+source, func(t *testing.T) { testTableLogBlocks(t, source) })
	}
}

// blocksOf returns ws encoded as Blocks.
func blocksOf(ws []TableWrite) *Blocks {
	b := new(Blocks)
	for _, w := range ws {
		b.Add(w.Table, w.Row, w.Diff)
	}
	return b
}

// parted is an Updates over writes in parts, as a caller may hold them.
type parted [][]TableWrite

func (p parted) Len() int {
	n := 0
	for _, part := range p {
		n += len(part)
	}
	return n
}

func (p parted) Each(fn func(table uint64, row []byte, diff int64)) {
	for _, part := range p {
		for _, w := range part {
			fn(w.Table, w.Row, w.Diff)
		}
	}
}

func testTableLogBlocks(t *testing.T, source string) {
	fs := vfs.NewMem()
	s := openMem(t, fs)
	defer func() { s.Close() }()
	var ws []TableWrite
	var want7, want8 []update
	for i := range 1500 {
		w := TableWrite{Table: 7, Row: fmt.Appendf(nil, "row %d", i), Diff: int64(i%5 - 2)}
		if w.Diff == 0 {
			w.Diff = 3
		}
		switch {
		case i >= 700 && i < 705:
			w.Table = 8
		case i == 1000:
			// One row past blockBytes ends its block.
			w.Row = []byte(strings.Repeat("x", blockBytes+100))
		}
		ws = append(ws, w)
		if w.Table == 7 {
			want7 = append(want7, update{string(w.Row), 5, w.Diff})
		} else {
			want8 = append(want8, update{string(w.Row), 5, w.Diff})
		}
	}
	var err error
	switch source {
	case "source":
		// Parts that do not line up with the blocks.
		err = s.WriteUpdates(context.Background(), 5, parted{ws[:300], ws[300:301], ws[301:702], nil, ws[702:]})
	case "blocks":
		err = s.WriteUpdates(context.Background(), 5, blocksOf(ws))
	default:
		err = s.Write(context.Background(), 5, ws)
	}
	if err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		if got := scanUpdates(t, s, 7); !slices.Equal(got, want7) {
			t.Fatalf("round %d: table 7 scans %d updates, want %d in order", round, len(got), len(want7))
		}
		if got := scanUpdates(t, s, 8); !slices.Equal(got, want8) {
			t.Fatalf("round %d: table 8 scans %v, want %v", round, got, want8)
		}
		// Table 7: rows 0-511 and 512-699 (the most updates a block
		// holds, then table 8's rows), 705-1000 (the long row ends it),
		// 1001-1499. Table 8: one block.
		if n7, n8 := countKeys(t, s, 7), countKeys(t, s, 8); n7 != 4 || n8 != 1 {
			t.Fatalf("round %d: tables 7 and 8 hold %d and %d keys, want 4 and 1", round, n7, n8)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s = openMem(t, fs)
	}
}

// TestBadBlocks: a table log value that does not decode is reported as
// corrupt data, whatever part of it is wrong.
func TestBadBlocks(t *testing.T) {
	good := appendBlockUpdate(appendBlockUpdate([]byte{blockMark}, 1, []byte("ab")), -2, []byte("c"))
	for name, value := range map[string][]byte{
		"empty":           {},
		"mark only":       {blockMark},
		"zero diff":       {blockMark, 0x00, 0x01, 'a'},
		"row past end":    {blockMark, 0x02, 0x05, 'a'},
		"truncated":       good[:len(good)-1],
		"no length":       {blockMark, 0x02},
		"old, cut varint": {0x80},
	} {
		t.Run(name, func(t *testing.T) {
			s := openMem(t, vfs.NewMem())
			defer s.Close()
			if err := s.db.Set(appendUpdateKey(nil, 1, 1, 0), value, pebble.Sync); err != nil {
				t.Fatal(err)
			}
			err := s.ScanTable(1, func(uint64, []byte, int64) error { return nil })
			wantCode(t, name, err, sqlerr.DataCorrupted)
		})
	}
}

// TestOpensVersionOneStore: a store of format version 1, whose values
// hold one update each, opens; its updates scan as they were written,
// before the updates written since, in blocks; and the store is version
// 2 from then on.
func TestOpensVersionOneStore(t *testing.T) {
	fs := vfs.NewMem()
	db, err := pebble.Open("db", &pebble.Options{FS: fs, Logger: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	old := func(diff int64, row string) []byte {
		return append(binary.AppendVarint(nil, diff), row...)
	}
	for _, kv := range []struct {
		key, value []byte
	}{
		{internalKey(internalFormat), encodeUint64(formatSingleUpdates)},
		{internalKey(internalNextSeq), encodeUint64(1 << 20)},
		{internalKey(internalTimestampUpper), encodeUint64(3)},
		{appendUpdateKey(nil, 1, 2, 0), old(1, "a")},
		{appendUpdateKey(nil, 1, 2, 1), old(-64, "b")},
		{appendUpdateKey(nil, 1, 3, 2), old(200, "")},
	} {
		if err := db.Set(kv.key, kv.value, pebble.Sync); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s := openMem(t, fs)
	if err := s.Write(context.Background(), 4, []TableWrite{{Table: 1, Row: []byte("c"), Diff: 1}, {Table: 1, Row: []byte("a"), Diff: -1}}); err != nil {
		t.Fatal(err)
	}
	want := []update{{"a", 2, 1}, {"b", 2, -64}, {"", 3, 200}, {"c", 4, 1}, {"a", 4, -1}}
	if got := scanUpdates(t, s, 1); !slices.Equal(got, want) {
		t.Fatalf("scan: got %v, want %v", got, want)
	}
	if v, _, err := s.getUint64(internalKey(internalFormat)); err != nil || v != formatVersion {
		t.Fatalf("format record: %d, %v; want %d", v, err, formatVersion)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openMem(t, fs)
	defer s.Close()
	if got := scanUpdates(t, s, 1); !slices.Equal(got, want) {
		t.Fatalf("scan after reopen: got %v, want %v", got, want)
	}
}

// TestBlocksEncodeAsCommitDoes: Blocks encode random updates, over
// several tables, with rows from empty to past blockBytes and enough of
// them to fill many of its chunks (so that open blocks move to the
// next), into the very batch the committer builds from the same updates
// given as writes, byte for byte, keys and seqs too; Each gives back the
// updates in order, and Len, the Txn's size and the batch size agree.
func TestBlocksEncodeAsCommitDoes(t *testing.T) {
	s := openMem(t, vfs.NewMem())
	defer s.Close()
	forSeeds(t, 20, func(t *testing.T, seed uint64, rng *rand.Rand) {
		var ws []TableWrite
		table := uint64(1)
		for range 2000 + rng.IntN(2000) {
			if rng.IntN(300) == 0 {
				table = 1 + rng.Uint64N(3)
			}
			n := rng.IntN(40)
			switch rng.IntN(50) {
			case 0:
				n = rng.IntN(3 * blockBytes)
			case 1:
				n = 0
			}
			row := make([]byte, n)
			for i := range row {
				row[i] = byte(rng.Uint32())
			}
			ws = append(ws, TableWrite{Table: table, Row: row, Diff: int64(rng.IntN(7)) - 3 | 1})
		}
		b := blocksOf(ws)
		if len(b.chunks) < 2 {
			t.Fatalf("%d chunks: the updates should fill more than one", len(b.chunks))
		}

		batch := func(txn *Txn) []byte {
			bt := s.db.NewBatch()
			defer bt.Close()
			seq, upper := uint64(100), uint64(0)
			var key, value []byte
			r := &request{txn: txn}
			if err := r.apply(bt, &seq, &upper, &key, &value); err != nil {
				t.Fatal(err)
			}
			if size := batchSize([]*request{r}); len(bt.Repr()) > size {
				t.Fatalf("the batch holds %d bytes, more than the %d reserved", len(bt.Repr()), size)
			}
			return slices.Clone(bt.Repr())
		}
		if got, want := batch(&Txn{Time: 7, Updates: b}), batch(&Txn{Time: 7, Writes: ws}); !bytes.Equal(got, want) {
			t.Fatalf("the batch from Blocks (%d bytes) differs from the one from writes (%d bytes)", len(got), len(want))
		}

		i := 0
		b.Each(func(table uint64, row []byte, diff int64) {
			if i < len(ws) && (ws[i].Table != table || string(ws[i].Row) != string(row) || ws[i].Diff != diff) {
				t.Fatalf("update %d from Each differs from the one added", i)
			}
			i++
		})
		if i != len(ws) || b.Len() != len(ws) {
			t.Fatalf("Each gave %d updates and Len says %d, want %d", i, b.Len(), len(ws))
		}
		if got, want := (&Txn{Time: 1, Updates: b}).size(), (&Txn{Time: 1, Writes: ws}).size(); got != want {
			t.Fatalf("Txn size %d from Blocks, %d from the writes", got, want)
		}
	})
}
