package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"
)

// defaultMemoryLimit is the --memory-limit when none is given: three
// quarters of the machine's memory, leaving room for the Go runtime's
// own overhead, the page cache pebble relies on, and the rest of the
// machine. Zero (no limit) if the machine's memory cannot be read.
func defaultMemoryLimit() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0
			}
			return kb * 1024 / 4 * 3
		}
	}
	return 0
}

// parseSize reads a byte size: a number with an optional unit of B, KB,
// MB, GB or TB (powers of 1024; KiB and the like too).
func parseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.Replace(t, "IB", "B", 1), "B")
	mult := int64(1)
	for i, u := range []string{"K", "M", "G", "T"} {
		if strings.HasSuffix(t, u) {
			mult = int64(1) << (10 * (i + 1))
			t = strings.TrimSuffix(t, u)
			break
		}
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("invalid size %q: want a number of bytes, optionally with KB, MB, GB or TB", s)
	}
	return int64(n * float64(mult)), nil
}

// heapSample is what returnIdleMemory reads of the Go heap.
type heapSample struct {
	// cycles counts the garbage collections so far.
	cycles uint64
	// free is heap memory that holds no object and is still mapped: what
	// the runtime would hand back to the system. objects is the bytes of
	// objects, live or not yet swept; live is the bytes the last
	// collection found live.
	free, objects, live uint64
	// statements counts the statements the server finished, which
	// readHeap leaves to its caller.
	statements uint64
}

func readHeap() heapSample {
	s := []metrics.Sample{
		{Name: "/gc/cycles/total:gc-cycles"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/gc/heap/live:bytes"},
	}
	metrics.Read(s)
	return heapSample{cycles: s[0].Value.Uint64(), free: s[1].Value.Uint64(), objects: s[2].Value.Uint64(), live: s[3].Value.Uint64()}
}

// idleFreeFloor is the free heap below which returnIdleMemory leaves
// memory to the runtime's own pace.
const idleFreeFloor = 32 << 20

// shouldReturn reports whether, with the heap at cur one tick after
// prev, the server should collect and hand its free heap back now: no
// collection ran in between, so the burst that grew the heap (a load, a
// hydration, a restart's rebuild) is over, and what a collection would
// free is both above idleFreeFloor and above a quarter of the objects:
// the free heap, or the objects beyond those the last collection found
// live. The second is a burst's garbage that no collection has seen:
// the collector runs when the heap doubles, which an idle server never
// makes it do.
func shouldReturn(prev, cur heapSample) bool {
	if !quiet(prev, cur) {
		return false
	}
	worth := func(n uint64) bool { return n > idleFreeFloor && n > cur.objects/4 }
	return worth(cur.free) || cur.objects > cur.live && worth(cur.objects-cur.live)
}

// quiet reports whether the server was idle between two samples a tick
// apart: no collection ran and no statement finished. Handing the heap
// back holds the runtime's heap lock while it releases every free page,
// which stalls any allocation meanwhile (20 ms, measured, with 40 MB
// free): a server writing a row at a time, which never collects, is not
// idle, and its statements must not wait on it.
func quiet(prev, cur heapSample) bool {
	return cur.cycles == prev.cycles && cur.statements == prev.statements
}

// returnIdleMemory hands free heap back to the system once the server
// has gone quiet after a burst. The collector sizes the heap at twice
// its live data, and the runtime returns what a burst left free only a
// little at a time, so without this a server that hydrated a large view
// kept the burst's peak as its resident size long after. During
// sustained work collections keep running and nothing is done here.
// statements, if not nil, returns how many statements the server has
// finished: a tick in which one finished is not quiet either (quiet).
//
// The start of a server is a burst the heap's figures cannot show: a
// restart's replay of the tables' logs holds their rows in chunks until
// each worker's batch is built, so the last collection may have found
// them live. After each signal on opened (an engine opened, at the start
// or after a restart in place), the first quiet tick collects and hands
// back whatever that left.
func returnIdleMemory(ctx context.Context, every time.Duration, opened <-chan struct{}, statements func() uint64) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	sample := func() heapSample {
		h := readHeap()
		if statements != nil {
			h.statements = statements()
		}
		return h
	}
	prev := sample()
	startup := false
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-opened:
			if !ok {
				opened = nil // closed: no engine opens again
			}
			startup = true
			continue
		case <-tick.C:
		}
		cur := sample()
		if quiet(prev, cur) && startup || shouldReturn(prev, cur) {
			debug.FreeOSMemory()
			cur = sample()
			startup = false
		}
		prev = cur
	}
}

// The collector's pace. Go collects when the heap has grown by GOGC
// percent (100) of what the last collection found live. Both ends of
// that hurt a server: a small heap, as while a new server loads its
// first tables, is collected every few megabytes, dozens of times a
// second, each collection stopping the workers to scan their stacks;
// a large heap keeps as much again of garbage, which is most of the
// server's resident size above its data. So after each collection the
// server sets the percent to leave headroom of half the live heap, but
// never less than gcFloor: a collection per gcFloor of allocation while
// the heap is small, and resident memory at about 1.5 times the live
// data when it is large. GOGC in the environment turns this off.
const (
	gcFloor = 64 << 20
	// gcMinPercent is the headroom of a large heap; gcMaxPercent bounds
	// a tiny heap's (the floor over a heap of a few megabytes).
	gcMinPercent = 50
	gcMaxPercent = 1600
)

// gcPercent is the GOGC percent for a live heap of live bytes:
// max(gcFloor, live*gcMinPercent/100) of headroom, within the bounds.
func gcPercent(live uint64) int {
	if live == 0 {
		return gcMaxPercent
	}
	p := uint64(gcFloor) * 100 / live
	return int(min(max(p, gcMinPercent), gcMaxPercent))
}

// paceCollector sets the collector's percent now and again after every
// collection until ctx is done, from the live heap that collection
// found. A collection is noticed by a cleanup on an object nothing
// holds, which the runtime runs once a collection has found it
// unreachable; the cleanup arms the next one.
func paceCollector(ctx context.Context, onSet func(live uint64, percent int)) {
	if os.Getenv("GOGC") != "" {
		return
	}
	set := -1
	var arm func()
	arm = func() {
		if ctx.Err() != nil {
			return
		}
		live := readHeap().live
		if p := gcPercent(live); p != set {
			debug.SetGCPercent(p)
			set = p
			if onSet != nil {
				onSet(live, p)
			}
		}
		// Larger than the tiny allocator's blocks, which hold several
		// objects and free none of them until all are unreachable.
		runtime.AddCleanup(new([32]byte), func(struct{}) { arm() }, struct{}{})
	}
	arm()
}
