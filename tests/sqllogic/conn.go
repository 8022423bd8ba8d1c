package sqllogic

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Conn is the DB of one PostgreSQL-wire connection. It sends every SQL
// text as a simple-protocol Query message, so values come back in text
// format with their column's type OID, whatever types the client knows,
// and the server sees the SQL exactly as the file has it.
//
// A text with several statements runs them all; Exec reports the first
// error and Query returns the last result.
type Conn struct {
	conn *pgx.Conn
}

// NewConn returns the DB that runs records on conn. The caller keeps
// ownership of conn and closes it.
func NewConn(conn *pgx.Conn) *Conn { return &Conn{conn: conn} }

// Exec implements DB.
func (c *Conn) Exec(ctx context.Context, sql string) error {
	_, _, err := c.run(ctx, sql, false)
	return err
}

// Query implements DB.
func (c *Conn) Query(ctx context.Context, sql string) (columns int, rows [][]Value, err error) {
	return c.run(ctx, sql, true)
}

func (c *Conn) run(ctx context.Context, sql string, keep bool) (columns int, rows [][]Value, err error) {
	mrr := c.conn.PgConn().Exec(ctx, sql)
	for mrr.NextResult() {
		rr := mrr.ResultReader()
		// The field descriptions are valid only until the next result,
		// and the row values only until the next row: copy both.
		fields := rr.FieldDescriptions()
		oids := make([]uint32, len(fields))
		for i := range fields {
			oids[i] = fields[i].DataTypeOID
		}
		columns, rows = len(fields), nil
		for rr.NextRow() {
			if !keep {
				continue
			}
			raw := rr.Values()
			row := make([]Value, len(raw))
			for i, b := range raw {
				var oid uint32
				if i < len(oids) {
					oid = oids[i]
				}
				if b == nil {
					row[i] = NullValue(oid)
				} else {
					row[i] = TextValue(oid, string(b))
				}
			}
			rows = append(rows, row)
		}
		if _, cerr := rr.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	if cerr := mrr.Close(); cerr != nil && err == nil {
		err = cerr
	}
	if err != nil {
		return 0, nil, err
	}
	return columns, rows, nil
}
