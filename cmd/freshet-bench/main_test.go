package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestBenchSmall runs the whole benchmark at a small size against a
// server it builds and starts, so that the command keeps working: every
// figure is measured, the view is the one computed from scratch, and the
// table has a row for the run. It checks what was measured, never how
// fast.
func TestBenchSmall(t *testing.T) {
	cfg := config{sizes: []int{3000}, freshSamples: 20, peekSamples: 20, writeFor: 200 * time.Millisecond, workers: 2}
	var logs bytes.Buffer
	rs, err := run(context.Background(), cfg, &logs)
	if err != nil {
		t.Fatalf("%v\n%s", err, logs.String())
	}
	if len(rs) != 1 {
		t.Fatalf("%d results, want 1", len(rs))
	}
	r := rs[0]
	if r.loadRowsPerSec <= 0 || r.hydrate <= 0 || r.freshP50 <= 0 || r.freshP99 < r.freshP50 || r.peekP50 <= 0 ||
		r.writeRowsPerSec <= 0 || r.restart <= 0 || r.rssBytes <= 0 {
		t.Fatalf("a figure is missing: %+v", r)
	}
	// 3,000 orders, 20 one-row writes and at least one 1,000-row batch,
	// spread over 50 regions: every region is in the view.
	if got := strings.Count(r.viewRows, ":"); got != 2*regions {
		t.Fatalf("the view has %d fields, want %d: %s", got, 2*regions, r.viewRows)
	}
	var table bytes.Buffer
	printTable(&table, rs)
	if !strings.Contains(table.String(), "Freshet") || !strings.Contains(table.String(), "3000") {
		t.Fatalf("the table lacks the run:\n%s", table.String())
	}
	t.Logf("\n%s", table.String())
}
