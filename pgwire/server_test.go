package pgwire

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// testServer is a Server on 127.0.0.1 with a fake backend.
type testServer struct {
	addr    string
	backend *fakeBackend
	srv     *Server
	// stop shuts the server down and returns Serve's error.
	stop func() error
}

// startServer starts a server for the duration of the test. The test's
// cleanup shuts it down and checks that Serve returned cleanly.
func startServer(t testing.TB, b *fakeBackend, options ...func(*Server)) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &Server{
		Backend:         b,
		Logger:          slog.New(slog.NewTextHandler(&testLog{t: t}, &slog.HandlerOptions{Level: slog.LevelWarn})),
		ShutdownTimeout: 5 * time.Second,
	}
	for _, o := range options {
		o(srv)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	var once sync.Once
	var serveErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case serveErr = <-done:
			case <-time.After(20 * time.Second):
				serveErr = fmt.Errorf("Serve did not return after shutdown")
			}
		})
		return serveErr
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return &testServer{addr: ln.Addr().String(), backend: b, srv: srv, stop: stop}
}

// connString returns a pgx connection string for the server.
func (ts *testServer) connString(params ...string) string {
	return fmt.Sprintf("postgres://u@%s/freshet?sslmode=disable&connect_timeout=10&%s",
		ts.addr, strings.Join(params, "&"))
}

// testLog writes the server's log lines to the test log.
type testLog struct {
	t  testing.TB
	mu sync.Mutex
}

func (l *testLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// waitEvent waits for the backend event with the given prefix.
func waitEvent(t *testing.T, events chan string, prefix string) string {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case e := <-events:
			if strings.HasPrefix(e, prefix) {
				return e
			}
		case <-timeout:
			t.Fatalf("no event %q", prefix)
		}
	}
}
