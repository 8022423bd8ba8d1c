package coord

import (
	"net"
	"slices"
	"strconv"
	"sync"

	"freshet/catalog"
	"freshet/pgwire"
	"freshet/planner"
	"freshet/repr"
)

// activity is what pg_stat_activity shows of a session: when it started,
// its state and its current (or last) statement. Times are milliseconds
// since the Unix epoch, from the engine's clock.
type activity struct {
	mu           sync.Mutex
	backendStart uint64
	xactStart    uint64 // 0 outside a transaction block
	queryStart   uint64
	stateChange  uint64
	state        string
	query        string
	// appName is application_name as of the last statement: another
	// session reads it, and settings are the session's own.
	appName string
}

// beginStatement records that the session started running sql.
func (s *Session) beginStatement(sql string) {
	now := s.engine.Clock()
	a := &s.activity
	a.mu.Lock()
	defer a.mu.Unlock()
	a.query, a.queryStart, a.stateChange, a.state = sql, now, now, "active"
	a.appName = s.settings["application_name"]
	if a.xactStart == 0 {
		a.xactStart = now
	}
}

// endStatement records that the session finished its statement: idle,
// or idle in a transaction block.
func (s *Session) endStatement() {
	now := s.engine.Clock()
	a := &s.activity
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stateChange = now
	switch s.tx.status {
	case pgwire.TxInBlock:
		a.state = "idle in transaction"
	case pgwire.TxFailed:
		a.state = "idle in transaction (aborted)"
	default:
		a.state, a.xactStart = "idle", 0
	}
}

// pgStatActivityColumns are pg_stat_activity's columns, PostgreSQL 15's;
// client_addr, an inet, is text, and the xid columns int8.
var pgStatActivityColumns = []planner.RelationColumn{
	col("datid", oidType, true), col("datname", repr.Name, true),
	col("pid", repr.Int4, false), col("leader_pid", repr.Int4, true),
	col("usesysid", oidType, true), col("usename", repr.Name, true),
	col("application_name", repr.Text, true), col("client_addr", repr.Text, true),
	col("client_hostname", repr.Text, true), col("client_port", repr.Int4, true),
	col("backend_start", repr.TimestampTZ, true), col("xact_start", repr.TimestampTZ, true),
	col("query_start", repr.TimestampTZ, true), col("state_change", repr.TimestampTZ, true),
	col("wait_event_type", repr.Text, true), col("wait_event", repr.Text, true),
	col("state", repr.Text, true), col("backend_xid", repr.Int8, true),
	col("backend_xmin", repr.Int8, true), col("query_id", repr.Int8, true),
	col("query", repr.Text, true), col("backend_type", repr.Text, true),
}

// pgStatActivitySQL is pg_stat_activity: one row per session of the
// server, as the reading statement is planned (the reading session shows
// itself active, running the statement that reads).
func (s *Session) pgStatActivitySQL() string {
	sessions := s.backend.liveSessions()
	dbOIDs := map[string]uint64{}
	_ = s.engine.Catalog(func(c *catalog.Catalog) error {
		for _, o := range c.Objects() {
			if o.Kind == catalog.Database {
				dbOIDs[o.Name] = relationOID(o.ID)
			}
		}
		return nil
	})
	ts := sqlMillis
	var rows [][]string
	for _, o := range sessions {
		a := &o.activity
		a.mu.Lock()
		addr, port := sqlNull, sqlNull
		if tcp, ok := o.startup.RemoteAddr.(*net.TCPAddr); ok {
			addr, port = sqlText(tcp.IP.String()), strconv.Itoa(tcp.Port)
		}
		datid := sqlNull
		if oid, ok := dbOIDs[o.database]; ok {
			datid = sqlInt(oid)
		}
		rows = append(rows, []string{
			datid, sqlText(o.database), sqlInt(o.key.ProcessID), sqlNull,
			sqlInt(bootstrapRoleOID), sqlText(o.startup.User), sqlText(a.appName), addr,
			sqlNull, port, ts(a.backendStart), ts(a.xactStart),
			ts(a.queryStart), ts(a.stateChange), sqlNull, sqlNull,
			sqlText(a.state), sqlNull, sqlNull, sqlNull,
			sqlText(a.query), "'client backend'",
		})
		a.mu.Unlock()
	}
	return constRowsSQL(pgStatActivityColumns, rows)
}

// unixToPostgresMicros is 2000-01-01 in microseconds since the Unix
// epoch: repr's timestamps count from it.
const unixToPostgresMicros = 946684800 * 1000000

// liveSessions returns the sessions not yet terminated, by process id.
func (b *Backend) liveSessions() []*Session {
	b.mu.Lock()
	var out []*Session
	for _, s := range b.mu.sessions {
		if s.terminated.Err() == nil {
			out = append(out, s)
		}
	}
	b.mu.Unlock()
	slices.SortFunc(out, func(x, y *Session) int { return int(x.key.ProcessID) - int(y.key.ProcessID) })
	return out
}
