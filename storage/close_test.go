package storage

import (
	"context"
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestCleanCloseLeavesNoLogToReplay writes a megabyte, closes the store
// cleanly and opens it again: the close flushed the memtable, so the
// open replays nothing into a new one, and what was written reads back.
func TestCleanCloseLeavesNoLogToReplay(t *testing.T) {
	fs := vfs.NewMem()
	s := openMem(t, fs)
	ctx := context.Background()
	for i := range 64 {
		txn := &Txn{}
		for j := range 16 {
			txn.Meta = append(txn.Meta, MetaRecord{Key: fmt.Sprintf("k%03d/%02d", i, j), Value: make([]byte, 1024)})
		}
		if err := s.Commit(ctx, txn); err != nil {
			t.Fatal(err)
		}
	}
	if m := s.db.Metrics(); m.MemTable.Count == 0 {
		t.Fatalf("nothing in the memtable before the close: %+v", m.MemTable)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openMem(t, fs)
	defer s.Close()
	if m := s.db.Metrics(); m.Levels[0].TablesFlushed != 0 {
		t.Errorf("the open flushed %d tables (%d bytes): it replayed a log", m.Levels[0].TablesFlushed, m.Levels[0].TableBytesFlushed)
	}
	if v, ok, err := s.GetMeta("k063/15"); err != nil || !ok || len(v) != 1024 {
		t.Fatalf("the last write after reopening: %d bytes, %v, %v", len(v), ok, err)
	}
}
