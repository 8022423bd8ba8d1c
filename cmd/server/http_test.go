package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"freshet/coord"
	"freshet/pgwire"
	"freshet/sqlerr"
)

// recorder is a pgwire.QueryWriter that keeps nothing.
type recorder struct{}

func (recorder) Row([][]byte) error                           { return nil }
func (recorder) Notice(*sqlerr.Error) error                   { return nil }
func (recorder) Flush() error                                 { return nil }
func (recorder) CopyIn(pgwire.CopyFormat) (io.Reader, error)  { return strings.NewReader(""), nil }
func (recorder) CopyOut(pgwire.CopyFormat) (io.Writer, error) { return io.Discard, nil }
func (recorder) Describe([]pgwire.Column) error               { return nil }
func (recorder) Complete(string) error                        { return nil }

// TestHTTPListener: /metrics has the engine's figures and Go's, /healthz
// answers, other paths are 404, and only loopback is served unless
// --insecure.
func TestHTTPListener(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sup, err := coord.Supervise(ctx, coord.Config{Workers: 2, DataDir: t.TempDir()}, coord.AuthTrust)
	if err != nil {
		t.Fatal(err)
	}
	defer sup.Close()
	if _, err := serveHTTP(ctx, "0.0.0.0:0", false, sup, slog.Default()); err == nil {
		t.Fatal("--http-listen on every address was accepted without --insecure")
	}
	addr, err := serveHTTP(ctx, "127.0.0.1:0", false, sup, slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	s, err := sup.NewSession(ctx, pgwire.Startup{User: "u", Database: "freshet"})
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		"CREATE TABLE t (k int)",
		"INSERT INTO t VALUES (1), (2)",
		"CREATE MATERIALIZED VIEW m AS SELECT count(*) FROM t",
		"SELECT * FROM m",
	} {
		if err := s.Query(ctx, sql, recorder{}); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get("http://" + addr.String() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	code, body := get("/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d", code)
	}
	for _, want := range []string{
		"freshet_up 1",
		"freshet_storage_healthy 1",
		"freshet_connections 1",
		`freshet_dataflows{state="running"}`,
		`freshet_arrangement_records{kind="table",object="freshet.public.t"} 2`,
		`freshet_freshness_lag_ms{kind="materialized view",object="freshet.public.m"} 0`,
		`freshet_dataflow_memory_bytes{kind="materialized view",object="freshet.public.m"}`,
		`freshet_statement_duration_seconds_count{command="INSERT"} 1`,
		"freshet_write_rows_total 2",
		"freshet_storage_sync_duration_seconds_count",
		"go_goroutines",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if code, body := get("/healthz"); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	if code, _ := get("/nope"); code != http.StatusNotFound {
		t.Errorf("/nope: %d, want 404", code)
	}
	if code, body := get("/"); code != http.StatusOK || !strings.Contains(body, "<title>Freshet console</title>") {
		t.Errorf("/: %d, want the console", code)
	}
	code, body = get("/api/state")
	var st coord.ConsoleState
	if err := json.Unmarshal([]byte(body), &st); code != http.StatusOK || err != nil {
		t.Fatalf("/api/state: %d %v", code, err)
	}
	var m *coord.ConsoleObject
	for i := range st.Objects {
		if st.Objects[i].Name == "m" {
			m = &st.Objects[i]
		}
	}
	if m == nil || m.Kind != "materialized view" || m.State != "running" || m.Records != 1 || len(m.DependsOn) != 1 {
		t.Fatalf("/api/state's m: %+v", m)
	}
	code, body = get(fmt.Sprintf("/api/graph?object=%d", m.ID))
	var g coord.ConsoleGraph
	if err := json.Unmarshal([]byte(body), &g); code != http.StatusOK || err != nil || len(g.Operators) < 2 || len(g.Imports) != 1 || g.Imports[0].Name != "t" {
		t.Fatalf("/api/graph of m: %d %v %s", code, err, body)
	}
	if code, _ := get("/api/graph?object=x"); code != http.StatusBadRequest {
		t.Errorf("/api/graph?object=x: %d, want 400", code)
	}
	if code, _ := get("/api/graph?object=999999"); code != http.StatusNotFound {
		t.Errorf("/api/graph of no object: %d, want 404", code)
	}
	if code, _ := get("/debug/pprof/cmdline"); code != http.StatusOK {
		t.Errorf("/debug/pprof/cmdline: %d", code)
	}
}
