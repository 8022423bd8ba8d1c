package main

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
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
		{"a statement finished: still busy", heapSample{cycles: 9, statements: 4}, heapSample{cycles: 9, statements: 5, free: 300 * mb, objects: 100 * mb}, false},
	} {
		if got := shouldReturn(tc.prev, tc.cur); got != tc.want {
			t.Errorf("%s: shouldReturn = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestReturnIdleMemory leaves a burst's garbage behind and checks that
// the returner hands the free heap back once nothing else collects.
func TestReturnIdleMemory(t *testing.T) {
	leaveFreeHeap(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go returnIdleMemory(ctx, 20*time.Millisecond, nil, nil)
	awaitFreeHandedBack(t)
}

// awaitFreeHandedBack waits until the free heap is below idleFreeFloor,
// and fails the test if it is not within 10 s.
func awaitFreeHandedBack(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for readHeap().free > idleFreeFloor {
		if time.Now().After(deadline) {
			t.Fatalf("%d free heap bytes after 10 s", readHeap().free)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// leaveFreeHeap leaves a 256 MB burst's garbage collected: free heap
// that only the returner hands back at once.
func leaveFreeHeap(t *testing.T) {
	t.Helper()
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
}

// TestReturnIdleMemoryWaitsForStatements: while statements finish every
// tick, with no collection (a client writing a row at a time), the
// returner leaves the free heap alone, and hands it back once they stop.
func TestReturnIdleMemoryWaitsForStatements(t *testing.T) {
	leaveFreeHeap(t)
	var busy atomic.Bool
	var statements atomic.Uint64
	busy.Store(true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go returnIdleMemory(ctx, 20*time.Millisecond, nil, func() uint64 {
		if busy.Load() {
			return statements.Add(1)
		}
		return statements.Load()
	})
	// Ten ticks of statements: nothing is handed back.
	time.Sleep(200 * time.Millisecond)
	if free := readHeap().free; free <= idleFreeFloor {
		t.Fatalf("%d free heap bytes: handed back while statements ran", free)
	}
	busy.Store(false)
	awaitFreeHandedBack(t)
}

// TestReturnIdleMemoryAfterOpen leaves garbage that the last collection
// found live, as a restart's replay does, which no figure of the heap
// shows, and checks that the first quiet tick after an engine opened
// collects it: at the start, and again after a restart in place.
func TestReturnIdleMemoryAfterOpen(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opened := make(chan struct{}, 1)
	go returnIdleMemory(ctx, 20*time.Millisecond, opened, nil)
	for open := range 2 {
		leaveLiveGarbage(t)
		opened <- struct{}{}
		deadline := time.Now().Add(10 * time.Second)
		for readHeap().objects >= 64<<20 {
			if time.Now().After(deadline) {
				t.Fatalf("open %d: %d bytes of objects after 10 s of quiet", open, readHeap().objects)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// leaveLiveGarbage leaves 128 MB that the last collection found live and
// nothing holds now.
func leaveLiveGarbage(t *testing.T) {
	t.Helper()
	burst := make([][]byte, 0, 128)
	for range 128 {
		b := make([]byte, 1<<20)
		for i := range b {
			b[i] = 1
		}
		burst = append(burst, b)
	}
	runtime.GC()
	runtime.KeepAlive(burst)
	burst = nil
	if before := readHeap(); before.objects < 128<<20 || before.objects > before.live+idleFreeFloor {
		t.Fatalf("objects %d, live %d: the burst is not the garbage the test needs", before.objects, before.live)
	}
}

func TestGCPercent(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		live uint64
		want int
	}{
		{0, gcMaxPercent},
		{1 * mb, gcMaxPercent}, // the floor would be 6400%
		{4 * mb, 1600},
		{32 * mb, 200},
		{64 * mb, 100},
		{100 * mb, 64},
		{128 * mb, 50},
		{4096 * mb, 50},
	} {
		if got := gcPercent(tc.live); got != tc.want {
			t.Errorf("gcPercent(%d MB) = %d, want %d", tc.live/mb, got, tc.want)
		}
	}
}

// TestPaceCollector checks the pace follows the live heap from one
// collection to the next: down to the minimum while 256 MB are held,
// back up once they are not.
func TestPaceCollector(t *testing.T) {
	t.Setenv("GOGC", "")
	old := debug.SetGCPercent(100)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		// The pacer stops at the first collection after the cancel;
		// then the percent is the test's to put back.
		cancel()
		runtime.GC()
		runtime.GC()
		debug.SetGCPercent(old)
	})
	set := make(chan int, 64)
	paceCollector(ctx, func(_ uint64, p int) {
		select {
		case set <- p:
		default:
		}
	})
	// until collects until the pace is set to a percent want accepts.
	until := func(what string, want func(int) bool) {
		t.Helper()
		deadline := time.After(time.Minute)
		for {
			runtime.GC()
			select {
			case p := <-set:
				if want(p) {
					if got := gogc(); got != p {
						t.Fatalf("percent %d set, the runtime has %d", p, got)
					}
					return
				}
			case <-deadline:
				t.Fatalf("no collection set the pace %s", what)
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	// Untouched, the held bytes cost the test no memory.
	held := make([]byte, 256<<20)
	until("to the minimum with 256 MB live", func(p int) bool { return p == gcMinPercent })
	runtime.KeepAlive(held)
	held = nil
	until("above 100% with the heap small again", func(p int) bool { return p > 100 })
}

func gogc() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}
