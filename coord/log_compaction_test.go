package coord

import (
	"context"
	"testing"
	"time"

	"freshet/catalog"
)

// logUpdates returns the updates table id's log holds on disk and their
// net diff.
func logUpdates(t *testing.T, e *Engine, id uint64) (updates, rows int64) {
	t.Helper()
	err := e.store.ScanTable(id, func(_ uint64, _ []byte, diff int64) error {
		updates++
		rows += diff
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return updates, rows
}

// TestTableLogCompaction: a table whose rows are deleted and inserted
// again and again has its log on disk compacted, in the background, to
// about its rows, while writes go on; a restart rebuilds the table and a
// view over it from the compacted log as they were; a table that only
// grows is never rewritten; and a restart compacts a log that outgrew
// its table while nothing compacted it.
func TestTableLogCompaction(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	clock := uint64(1000)
	// Every call of the clock moves it a second: the compaction frontier
	// follows every write.
	cfg := Config{Workers: 2, DataDir: dir, Clock: func() uint64 { clock += 1000; return clock }, logCompactionMin: 64}
	e, err := Open(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if e != nil {
			e.Close()
		}
	}()
	churn, grow := tableObj("churn"), tableObj("grow")
	for _, tb := range []*catalog.Object{churn, grow} {
		if err := e.CreateTable(ctx, tb, nil); err != nil {
			t.Fatal(err)
		}
	}
	mv := createSumView(ctx, t, e, churn)
	// 400 writes to churn, each replacing one of its ten rows, and one
	// new row in grow: churn's log holds 790 updates of 10 rows unless it
	// is compacted.
	const rounds = 400
	for i := range int32(rounds) {
		ws := []TableWrite{{Table: churn.ID, Row: row(i%10, i), Diff: 1}, {Table: grow.ID, Row: row(i, i), Diff: 1}}
		if i >= 10 {
			ws = append(ws, TableWrite{Table: churn.ID, Row: row(i%10, i-10), Diff: -1})
		}
		if _, err := e.Write(ctx, ws); err != nil {
			t.Fatal(err)
		}
	}
	// The compactions run in the background: wait for the last.
	e.stopLogCompactions()
	updates, rows := logUpdates(t, e, churn.ID)
	if rows != 10 || updates > 10+2*64+10 {
		t.Fatalf("churn's log holds %d updates of %d rows after %d were written; want about its 10 rows", updates, rows, 2*rounds-10)
	}
	if updates, rows := logUpdates(t, e, grow.ID); updates != rounds || rows != rounds {
		t.Fatalf("grow's log holds %d updates of %d rows, want %d of each", updates, rows, rounds)
	}
	wantChurn := readAll(ctx, t, e, churn)
	wantView := readAll(ctx, t, e, mv)
	wantGrow := readAll(ctx, t, e, grow)
	e.Close()

	// A restart rebuilds both tables and the view from the logs.
	rebuild := func(e *Engine, o *catalog.Object) error {
		return e.RebuildView(ctx, o, sumByKey(churn))
	}
	if e, err = Open(ctx, cfg, rebuild); err != nil {
		t.Fatal(err)
	}
	if got := readAll(ctx, t, e, churn); got != wantChurn {
		t.Fatalf("churn after the restart: %s\nwant %s", got, wantChurn)
	}
	if got := readAll(ctx, t, e, mv); got != wantView {
		t.Fatalf("the view after the restart: %s\nwant %s", got, wantView)
	}
	if got := readAll(ctx, t, e, grow); got != wantGrow {
		t.Fatalf("grow after the restart: %d bytes, want %d", len(got), len(wantGrow))
	}

	// Churn with compaction stopped, then a restart: the log that
	// outgrew its table is compacted once the engine is open.
	e.stopLogCompactions()
	for i := range int32(200) {
		ws := []TableWrite{{Table: churn.ID, Row: row(i%10, 1000+i), Diff: 1}, {Table: churn.ID, Row: row(i%10, 1000+i), Diff: -1}}
		if _, err := e.Write(ctx, ws); err != nil {
			t.Fatal(err)
		}
	}
	if updates, _ := logUpdates(t, e, churn.ID); updates < 400 {
		t.Fatalf("churn's log holds %d updates with compaction stopped, want at least 400", updates)
	}
	e.Close()
	if e, err = Open(ctx, cfg, rebuild); err != nil {
		t.Fatal(err)
	}
	e.stopLogCompactions()
	if updates, rows := logUpdates(t, e, churn.ID); rows != 10 || updates != 10 {
		t.Fatalf("churn's log holds %d updates of %d rows after a restart, want 10 of 10", updates, rows)
	}
	if got := readAll(ctx, t, e, mv); got != wantView {
		t.Fatalf("the view after the second restart: %s\nwant %s", got, wantView)
	}
}
