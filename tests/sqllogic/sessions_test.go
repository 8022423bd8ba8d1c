package sqllogic

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// A fresh data directory has the postgres database, which tools connect
// to when told none.
func TestPostgresDatabase(t *testing.T) {
	addr, stop := startServer(t, t.TempDir())
	defer stop()
	conn := connect(t, addr, "postgres")
	defer conn.Close(context.Background())
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "CREATE TABLE t (a int)"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE postgres"); pgCode(err) != "42P04" {
		t.Fatalf("CREATE DATABASE postgres: %v", err)
	}
}

func pgCode(err error) string {
	if e, ok := err.(*pgconn.PgError); ok {
		return e.Code
	}
	return ""
}

// ParameterStatus reports settings under PostgreSQL's spelling, and a
// SET of any spelling changes that one parameter: no second, lower-case
// one appears. SHOW answers every spelling with the canonical column
// name, through the extended protocol (pgx's default) as through the
// simple one.
func TestParameterStatusSpelling(t *testing.T) {
	addr, stop := startServer(t, t.TempDir())
	defer stop()
	conn := connect(t, addr, "freshet")
	defer conn.Close(context.Background())
	ctx := context.Background()
	pc := conn.PgConn()
	for name, want := range map[string]string{"TimeZone": "UTC", "DateStyle": "ISO, MDY", "IntervalStyle": "postgres",
		"server_version": "15.0", "session_authorization": "u", "standard_conforming_strings": "on"} {
		if got := pc.ParameterStatus(name); got != want {
			t.Errorf("ParameterStatus(%s) = %q, want %q", name, got, want)
		}
	}
	if _, err := conn.Exec(ctx, "SET TIME ZONE 'etc/utc'"); err != nil {
		t.Fatal(err)
	}
	if got := pc.ParameterStatus("TimeZone"); got != "Etc/UTC" {
		t.Errorf("after SET TIME ZONE, TimeZone = %q", got)
	}
	if got := pc.ParameterStatus("timezone"); got != "" {
		t.Errorf("SET TIME ZONE reported a lower-case parameter: %q", got)
	}
	if _, err := conn.Exec(ctx, "set application_name = 'probe'"); err != nil {
		t.Fatal(err)
	}
	if got := pc.ParameterStatus("application_name"); got != "probe" {
		t.Errorf("application_name = %q", got)
	}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		for _, sql := range []string{"SHOW TimeZone", "show timezone", "SHOW TIME ZONE", "SHOW TIMEZONE"} {
			rows, err := conn.Query(ctx, sql, mode)
			if err != nil {
				t.Fatal(err)
			}
			if f := rows.FieldDescriptions(); len(f) != 1 || f[0].Name != "TimeZone" {
				t.Errorf("%s (mode %v): columns %v", sql, mode, f)
			}
			got, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil || len(got) != 1 || got[0] != "Etc/UTC" {
				t.Errorf("%s (mode %v) = %v, %v", sql, mode, got, err)
			}
		}
	}
}

// SHOW ALL gives name, setting and description, sorted by name ignoring
// case, as PostgreSQL does, and includes what SET changed but not custom
// settings (checked against PostgreSQL 15).
func TestShowAll(t *testing.T) {
	addr, stop := startServer(t, t.TempDir())
	defer stop()
	conn := connect(t, addr, "freshet")
	defer conn.Close(context.Background())
	ctx := context.Background()
	for _, sql := range []string{"SET extra_float_digits = 3", "SET myapp.flavour = 'mint'"} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := conn.Query(ctx, "SHOW ALL")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range rows.FieldDescriptions() {
		names = append(names, f.Name)
	}
	if strings.Join(names, ",") != "name,setting,description" {
		t.Fatalf("columns %v", names)
	}
	settings := map[string]string{}
	var order []string
	for rows.Next() {
		var name, setting, desc string
		if err := rows.Scan(&name, &setting, &desc); err != nil {
			t.Fatal(err)
		}
		settings[name] = setting
		order = append(order, strings.ToLower(name))
		if desc == "" {
			t.Errorf("%s has no description", name)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if _, ok := settings["myapp.flavour"]; ok {
		t.Errorf("SHOW ALL lists a custom setting, which PostgreSQL leaves out")
	}
	if !slices.IsSorted(order) {
		t.Errorf("not sorted: %v", order)
	}
	for name, want := range map[string]string{"TimeZone": "UTC", "extra_float_digits": "3", "search_path": `"$user", public`,
		"server_version_num": "150000", "transaction_isolation": "serializable"} {
		if settings[name] != want {
			t.Errorf("SHOW ALL: %s = %q, want %q", name, settings[name], want)
		}
	}
}

// Settings in a multi-statement message are transactional like a
// block's: an error undoes the message's SETs, and DISCARD ALL is
// refused in it. Session functions take bound parameters as arguments.
func TestSettingsInMessagesAndParameters(t *testing.T) {
	addr, stop := startServer(t, t.TempDir())
	defer stop()
	conn := connect(t, addr, "freshet")
	defer conn.Close(context.Background())
	ctx := context.Background()
	pc := conn.PgConn()
	if err := pc.Exec(ctx, "SET application_name = 'a'; SELECT 1/0").Close(); pgCode(err) != "22012" {
		t.Fatalf("want 22012, got %v", err)
	}
	var name string
	if err := conn.QueryRow(ctx, "SHOW application_name").Scan(&name); err != nil || name != "" {
		t.Fatalf("after a failed message application_name = %q, %v", name, err)
	}
	if err := pc.Exec(ctx, "SET application_name = 'b'; DISCARD ALL").Close(); pgCode(err) != "25001" {
		t.Fatalf("DISCARD ALL in a message: want 25001, got %v", err)
	}
	if err := conn.QueryRow(ctx, "SELECT set_config($1, $2, false)", "application_name", "bound").Scan(&name); err != nil || name != "bound" {
		t.Fatalf("set_config with parameters = %q, %v", name, err)
	}
	if err := conn.QueryRow(ctx, "SELECT current_setting($1)", "APPLICATION_NAME").Scan(&name); err != nil || name != "bound" {
		t.Fatalf("current_setting with a parameter = %q, %v", name, err)
	}
	if got := pc.ParameterStatus("application_name"); got != "bound" {
		t.Fatalf("set_config did not report application_name: %q", got)
	}
}

// COPY fills a column default that calls a session function with the
// session's value.
func TestCopyDefaultCurrentUser(t *testing.T) {
	addr, stop := startServer(t, t.TempDir())
	defer stop()
	conn := connect(t, addr, "freshet")
	defer conn.Close(context.Background())
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "CREATE TABLE a (id int, who text DEFAULT current_user)"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.PgConn().CopyFrom(ctx, strings.NewReader("1\n2\n"), "COPY a (id) FROM STDIN"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM a WHERE who = 'u'").Scan(&n); err != nil || n != 2 {
		t.Fatalf("rows with who = u: %d, %v", n, err)
	}
}

// pg_terminate_backend ends another session: its connection gets FATAL
// 57P01 at once, though it is idle, and the server goes on serving.
func TestTerminateBackend(t *testing.T) {
	addr, stop := startServer(t, t.TempDir())
	defer stop()
	ctx := context.Background()
	victim := connect(t, addr, "freshet")
	defer victim.Close(ctx)
	admin := connect(t, addr, "freshet")
	defer admin.Close(ctx)
	var pid int32
	if err := victim.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	var ok bool
	if err := admin.QueryRow(ctx, "SELECT pg_terminate_backend($1)", pid).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_terminate_backend: %v %v", ok, err)
	}
	_, err := victim.Exec(ctx, "SELECT 1")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "57P01" || pe.Severity != "FATAL" {
		t.Fatalf("the terminated session: %v, want FATAL 57P01", err)
	}
	if err := admin.QueryRow(ctx, "SELECT pg_terminate_backend($1)", pid).Scan(&ok); err != nil || ok {
		t.Fatalf("a second pg_terminate_backend: %v %v, want false", ok, err)
	}
}
