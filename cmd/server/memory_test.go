package main

import (
	"context"
	"runtime"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "1024": 1024, "2KB": 2048, "512MiB": 512 << 20, "1.5GB": 3 << 29, " 8 gb ": 8 << 30} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "lots", "-1GB", "1XB"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q) accepted", bad)
		}
	}
	if defaultMemoryLimit() <= 0 {
		t.Error("no default memory limit on a machine with /proc/meminfo")
	}
}

func TestShouldReturn(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		name      string
		prev, cur heapSample
		want      bool
	}{
		{"quiet after a burst", heapSample{cycles: 9}, heapSample{cycles: 9, free: 300 * mb, objects: 100 * mb}, true},
		{"a collection ran: still busy", heapSample{cycles: 8}, heapSample{cycles: 9, free: 300 * mb, objects: 100 * mb}, false},
		{"little free", heapSample{cycles: 9}, heapSample{cycles: 9, free: 20 * mb, objects: 10 * mb}, false},
		{"free small beside the live heap", heapSample{cycles: 9}, heapSample{cycles: 9, free: 40 * mb, objects: 400 * mb, live: 400 * mb}, false},
		{"garbage no collection has seen", heapSample{cycles: 9}, heapSample{cycles: 9, free: 10 * mb, objects: 1400 * mb, live: 220 * mb}, true},
		{"the same while collections run", heapSample{cycles: 8}, heapSample{cycles: 9, free: 10 * mb, objects: 1400 * mb, live: 220 * mb}, false},
		{"objects a little past the live heap", heapSample{cycles: 9}, heapSample{cycles: 9, free: 10 * mb, objects: 420 * mb, live: 400 * mb}, false},
	} {
		if got := shouldReturn(tc.prev, tc.cur); got != tc.want {
			t.Errorf("%s: shouldReturn = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestReturnIdleMemory leaves a burst's garbage behind and checks that
// the returner hands the free heap back once nothing else collects.
func TestReturnIdleMemory(t *testing.T) {
	burst := make([][]byte, 0, 256)
	for range 256 {
		burst = append(burst, make([]byte, 1<<20))
	}
	runtime.KeepAlive(burst)
	burst = nil
	runtime.GC()
	if before := readHeap(); before.free <= idleFreeFloor {
		t.Fatalf("the burst left only %d free bytes: the test does not reach the returner", before.free)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go returnIdleMemory(ctx, 20*time.Millisecond)
	deadline := time.Now().Add(10 * time.Second)
	for readHeap().free > idleFreeFloor {
		if time.Now().After(deadline) {
			t.Fatalf("%d free heap bytes after 10 s of quiet", readHeap().free)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
