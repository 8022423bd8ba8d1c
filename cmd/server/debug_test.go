package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

func TestDebugListenIsLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "10.1.2.3:6060", "example.com:6060", "nonsense"} {
		if _, err := serveDebug(context.Background(), addr, slog.Default()); err == nil {
			t.Errorf("--debug-listen %q was accepted", addr)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, err := serveDebug(ctx, "127.0.0.1:0", slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + a.String() + "/debug/pprof/heap?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "heap profile") {
		t.Fatalf("heap profile: %s\n%.200s", resp.Status, body)
	}
}
