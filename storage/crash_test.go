package storage

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// crashDirEnv names the environment variable that makes TestHelperProcess
// the child of TestKillDashNine, writing to the store in that directory.
const crashDirEnv = "FRESHET_STORAGE_CRASH_DIR"

// TestHelperProcess is the child process of TestKillDashNine; run
// directly, it does nothing. It opens the store, and from several
// goroutines writes test Txns at times above the persisted upper, printing
// "ack <ts>" once each Write has returned, until it is killed.
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv(crashDirEnv)
	if dir == "" {
		t.Skip("run as the child of TestKillDashNine")
	}
	s, err := Open(dir, Options{})
	if err != nil {
		fmt.Fprintf(os.Stderr, "open: %v\n", err)
		os.Exit(2)
	}
	upper, err := s.LoadTimestampUpper()
	if err != nil {
		fmt.Fprintf(os.Stderr, "upper: %v\n", err)
		os.Exit(2)
	}
	var next atomic.Uint64
	next.Store(upper)
	var out sync.Mutex
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			// Bounded, in case the parent dies without killing us.
			for range 100000 {
				ts := next.Add(1)
				if err := s.Write(context.Background(), ts, txnWrites(ts)); err != nil {
					fmt.Fprintf(os.Stderr, "write %d: %v\n", ts, err)
					os.Exit(2)
				}
				out.Lock()
				fmt.Fprintf(os.Stdout, "ack %d\n", ts)
				out.Unlock()
			}
		})
	}
	wg.Wait()
	os.Exit(0)
}

// TestKillDashNine runs TestHelperProcess as a child process writing to a
// store on disk, kills it with SIGKILL once it has acknowledged a seeded
// number of Txns, and reopens the store: every Txn the child acknowledged
// is present, whole, and none is present in part. Each seed kills the
// child twice on the same directory, so that the second child starts from
// a store recovered after a kill.
func TestKillDashNine(t *testing.T) {
	if os.Getenv(crashDirEnv) != "" {
		t.Skip("in the child")
	}
	forSeeds(t, 3, func(t *testing.T, seed uint64, rng *rand.Rand) {
		dir := t.TempDir()
		var acked []uint64
		for round := range 2 {
			killAfter := 10 + rng.IntN(400)
			acked = append(acked, runAndKill(t, dir, killAfter)...)
			s, err := Open(dir, Options{})
			if err != nil {
				t.Fatalf("round %d: reopen after kill: %v", round, err)
			}
			present := checkTxns(t, s, acked)
			t.Logf("round %d: killed after %d acks; %d acknowledged in all, %d present", round, killAfter, len(acked), len(present))
			upper, err := s.LoadTimestampUpper()
			if err != nil {
				t.Fatal(err)
			}
			for ts := range present {
				if ts > upper {
					t.Errorf("time %d is present but the persisted upper is %d", ts, upper)
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// runAndKill starts the child on dir, kills it once it has printed
// killAfter acks, and returns every ack it printed, those that were
// still in the pipe included.
func runAndKill(t *testing.T, dir string, killAfter int) []uint64 {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), crashDirEnv+"="+dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var acked []uint64
	killed := false
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		f, ok := strings.CutPrefix(sc.Text(), "ack ")
		if !ok {
			continue
		}
		ts, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			t.Fatalf("child printed %q", sc.Text())
		}
		acked = append(acked, ts)
		if !killed && len(acked) >= killAfter {
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
	}
	err = cmd.Wait()
	if !killed {
		t.Fatalf("child ended before it was killed: %v\n%s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Logf("child stderr:\n%s", stderr.String())
	}
	return acked
}
