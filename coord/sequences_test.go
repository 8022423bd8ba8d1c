package coord

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"freshet/catalog"
)

// A serial column goes on after a clean restart with no gap, and after
// the positions held in memory are lost (as in a crash) with no value
// handed out twice.
func TestSequencesSurviveRestarts(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE t (id serial PRIMARY KEY, v text)")
	env.exec(s, "INSERT INTO t (v) VALUES ('a'), ('b'), ('c')")
	env.restart()
	s = env.session()
	env.exec(s, "INSERT INTO t (v) VALUES ('d')")
	if got := env.query(s, "SELECT id FROM t WHERE v = 'd'"); got != "4" {
		t.Fatalf("after a clean restart: %q, want 4", got)
	}
	// A crash loses the positions in memory; the stored bounds remain.
	env.e.seqs.mu.Lock()
	env.e.seqs.state = nil
	env.e.seqs.mu.Unlock()
	env.exec(s, "INSERT INTO t (v) VALUES ('e')")
	if got := env.query(s, "SELECT count(*) FROM t WHERE id <= 4 AND v = 'e'"); got != "0" {
		t.Fatalf("after a lost position the sequence handed out a value again")
	}
	if got := env.query(s, "SELECT count(DISTINCT id) FROM t"); got != "5" {
		t.Fatalf("distinct ids: %q", got)
	}
}

// Concurrent nextval calls never return a value twice.
func TestNextValConcurrent(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	env.exec(s, "CREATE SEQUENCE c")
	var o *catalog.Object
	env.e.Catalog(func(c *catalog.Catalog) error {
		o, _ = c.Resolve(catalog.DefaultDatabase, catalog.DefaultSchema, "c")
		return nil
	})
	const workers, each = 4, 100
	seen := make(chan int64, workers*each)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				v, err := env.e.NextVal(context.Background(), o)
				if err != nil {
					t.Error(err)
					return
				}
				seen <- v
			}
		}()
	}
	wg.Wait()
	close(seen)
	got := map[int64]bool{}
	for v := range seen {
		if got[v] {
			t.Fatalf("nextval returned %d twice", v)
		}
		got[v] = true
	}
	if len(got) != workers*each || !got[1] || !got[workers*each] {
		t.Fatalf("values: %d distinct, want 1..%d", len(got), workers*each)
	}
}

// INSERT … SELECT numbers rows from a serial column as a dataflow reads
// them, each row its own value.
func TestSerialInsertSelect(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer env.e.Close()
	s := env.session()
	env.exec(s, "CREATE TABLE src (x int)")
	env.exec(s, "INSERT INTO src SELECT generate_series(1, 500)")
	env.exec(s, "CREATE TABLE dst (id bigserial, x int)")
	env.exec(s, "INSERT INTO dst (x) SELECT x FROM src")
	if got, want := env.query(s, "SELECT count(DISTINCT id), min(id), max(id) FROM dst"), fmt.Sprintf("%d,1,%d", 500, 500); got != want {
		t.Fatalf("ids: %q, want %q", got, want)
	}
}
