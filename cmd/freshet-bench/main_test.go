package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestBenchSmall runs every workload at a small size against a server
// it builds and starts, so that the command keeps working: every figure
// is measured, every view is the one computed from scratch (each
// workload checks its own), and the tables have a row for the run. It
// checks what was measured, never how fast.
func TestBenchSmall(t *testing.T) {
	cfg := config{sizes: []int{3000}, workloads: workloads, freshSamples: 20, peekSamples: 20,
		writeFor: 200 * time.Millisecond, workers: 2, views: 50}
	var logs bytes.Buffer
	rs, err := run(context.Background(), cfg, &logs)
	if err != nil {
		t.Fatalf("%v\n%s", err, logs.String())
	}
	if len(rs) != 1 {
		t.Fatalf("%d results, want 1", len(rs))
	}
	r := rs[0]
	m := r.main
	if m == nil || m.loadRowsPerSec <= 0 || m.hydrate <= 0 || m.freshP50 <= 0 || m.freshP99 < m.freshP50 || m.peekP50 <= 0 ||
		m.writeRowsPerSec <= 0 || m.restart <= 0 || m.rssBytes <= 0 || m.rssPeak < m.rssBytes {
		t.Fatalf("a figure of main is missing: %+v", m)
	}
	// 3,000 orders, 20 one-row writes and at least one 1,000-row batch,
	// spread over 50 regions: every region is in the view.
	if got := strings.Count(m.viewRows, ":"); got != 2*regions {
		t.Fatalf("the view has %d fields, want %d: %s", got, 2*regions, m.viewRows)
	}
	if l := r.load; l == nil || l.rows != 3000 || l.selectRate <= 0 || l.valuesRate <= 0 || l.copyRate <= 0 {
		t.Fatalf("a figure of load is missing: %+v", l)
	}
	// Every region is in both views: two fields after the name in
	// threeway's rows, one in distinct's.
	for _, v := range []struct {
		name   string
		r      *viewResult
		fields int
	}{{"threeway", r.threeway, 2 * regions}, {"distinct", r.distinct, regions}} {
		if v.r == nil || v.r.hydrate <= 0 || v.r.freshP50 <= 0 || v.r.freshP99 < v.r.freshP50 || v.r.writeRowsPerSec <= 0 {
			t.Fatalf("a figure of %s is missing: %+v", v.name, v.r)
		}
		if got := strings.Count(v.r.viewRows, ":"); got != v.fields {
			t.Fatalf("view %s has %d fields, want %d: %s", v.name, got, v.fields, v.r.viewRows)
		}
	}
	if len(r.shared) != len(sharedVariants) {
		t.Fatalf("%d shared-index results, want %d", len(r.shared), len(sharedVariants))
	}
	for _, s := range r.shared {
		if s.index <= 0 || len(s.hydrate) != sharedViews || len(s.rssGrowth) != sharedViews || len(s.heapGrowth) != sharedViews || s.importers < 0 {
			t.Fatalf("a figure of the shared index on %s is missing: %+v", s.on, s)
		}
		t.Logf("%d of %d views import the index on %s", s.importers, sharedViews, s.on)
	}
	if mv := r.many; mv == nil || mv.views != 50 || mv.create <= 0 || mv.freshP50 <= 0 || mv.freshP99 < mv.freshP50 || mv.writeRowsPerSec <= 0 {
		t.Fatalf("a figure of many-views is missing: %+v", mv)
	}
	mem := r.memory
	if mem == nil || mem.rss <= 0 || mem.stats["HeapInuse"] <= 0 || mem.stats["StackSys"] <= 0 || mem.liveHeap <= 0 ||
		mem.before.rss <= 0 || mem.after.rss <= 0 || mem.before.heapInuse <= 0 || mem.after.heapInuse <= 0 {
		t.Fatalf("a figure of memory is missing: %+v", mem)
	}
	arranged := map[string]bool{}
	for _, a := range mem.arrangements {
		arranged[a.object] = a.records > 0 && a.bytes > 0
	}
	for _, o := range []string{"orders", "customers", "v"} {
		if !arranged[o] {
			t.Fatalf("no arrangement of %s with records and bytes: %+v", o, mem.arrangements)
		}
	}
	if mem.after.arrangementBytes != 0 {
		t.Fatalf("%d bytes of arrangements are left after every view and table was dropped", mem.after.arrangementBytes)
	}
	var table bytes.Buffer
	printTables(&table, rs)
	for _, title := range []string{"main:", "load:", "threeway", "shared-index:", "many-views:", "memory after main", "every view and table dropped"} {
		if !strings.Contains(table.String(), title) {
			t.Fatalf("the tables lack %q:\n%s", title, table.String())
		}
	}
	if !strings.Contains(table.String(), "Freshet") || !strings.Contains(table.String(), "3000") {
		t.Fatalf("the tables lack the run:\n%s", table.String())
	}
	t.Logf("\n%s", table.String())
}
