package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// server is a Freshet server process the bench started. It serves Go's
// profiles on debugAddr (loopback), which the memory workloads read.
type server struct {
	bin, dataDir, addr, debugAddr string
	workers                       int
	cmd                           *exec.Cmd
	exited                        chan struct{}
	logs                          strings.Builder
	// peak is the largest VmHWM of the servers stopped since the size
	// began (a restart starts a new process).
	peak int64
	// started is when the running server's process was started.
	started time.Time
}

func (s *server) url() string {
	return fmt.Sprintf("postgres://bench@%s/freshet?sslmode=disable", s.addr)
}

// freePort returns a loopback address no one listens on now.
func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func (s *server) start(ctx context.Context) error {
	for _, a := range []*string{&s.addr, &s.debugAddr} {
		if *a == "" {
			p, err := freePort()
			if err != nil {
				return err
			}
			*a = p
		}
	}
	// No --http-listen: its default port may be another server's.
	args := []string{"--listen", s.addr, "--data-dir", s.dataDir, "--debug-listen", s.debugAddr, "--http-listen="}
	if s.workers > 0 {
		args = append(args, "--workers", strconv.Itoa(s.workers))
	}
	s.logs.Reset()
	s.cmd = exec.Command(s.bin, args...)
	s.cmd.Stdout, s.cmd.Stderr = &s.logs, &s.logs
	s.started = time.Now()
	if err := s.cmd.Start(); err != nil {
		return err
	}
	s.exited = make(chan struct{})
	go func() {
		s.cmd.Wait()
		close(s.exited)
	}()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		if c, err := pgx.Connect(ctx, s.url()); err == nil {
			c.Close(ctx)
			return nil
		}
		select {
		case <-s.exited:
			return fmt.Errorf("the server exited:\n%s", s.logs.String())
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server did not accept connections:\n%s", s.logs.String())
		}
	}
}

func (s *server) stop() {
	if s.cmd == nil {
		return
	}
	s.peak = max(s.peak, s.status("VmHWM:"))
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(time.Minute):
		s.cmd.Process.Kill()
		<-s.exited
	}
	s.cmd = nil
}

// rss reads the server's resident set size from /proc.
func (s *server) rss() int64 { return s.status("VmRSS:") }

// peakRSS returns the largest resident set size of the servers started
// for this size: the running one's and those stopped before it.
func (s *server) peakRSS() int64 { return max(s.peak, s.status("VmHWM:")) }

// status reads a size in kB from the server's /proc status, in bytes.
func (s *server) status(field string) int64 {
	if s.cmd == nil {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// memStats reads the server's runtime.MemStats from the end of
// /debug/pprof/heap?debug=1 ("# HeapInuse = 29196288" lines), after a
// garbage collection if gc.
func (s *server) memStats(ctx context.Context, gc bool) (map[string]int64, error) {
	url := "http://" + s.debugAddr + "/debug/pprof/heap?debug=1"
	if gc {
		url += "&gc=1"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", url, resp.Status)
	}
	stats := map[string]int64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if line == "# runtime.MemStats" {
			in = true
			continue
		}
		// "# Stack = 589824 / 589824" is in use / obtained from the OS:
		// the second is kept as StackSys.
		name, val, ok := strings.Cut(strings.TrimPrefix(line, "# "), " = ")
		if !in || !ok {
			continue
		}
		val, sys, two := strings.Cut(val, " / ")
		if v, err := strconv.ParseInt(val, 10, 64); err == nil {
			stats[name] = v
		}
		if v, err := strconv.ParseInt(sys, 10, 64); two && err == nil {
			stats[name+"Sys"] = v
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if _, ok := stats["HeapInuse"]; !ok {
		return nil, fmt.Errorf("%s has no runtime.MemStats", url)
	}
	return stats, nil
}
