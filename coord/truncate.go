package coord

import (
	"context"
	"fmt"

	"freshet/catalog"
	"freshet/pgwire"
	"freshet/planner"
	"freshet/repr"
	"freshet/sqlerr"
)

// truncate deletes every row of each table. Outside a transaction block,
// several tables are one implicit transaction: all are emptied or none.
func (s *Session) truncate(ctx context.Context, st *planner.Truncate) (result, error) {
	if st.RestartIdentity && s.tx.status != pgwire.TxIdle {
		// PostgreSQL rolls the restart back with the block; Freshet's
		// sequences do not take part in transactions.
		return result{}, sqlerr.New(sqlerr.FeatureNotSupported, "TRUNCATE … RESTART IDENTITY in a transaction block is not supported")
	}
	own := s.tx.status == pgwire.TxIdle && len(st.Deletes) > 1
	if own {
		s.tx = transaction{status: pgwire.TxInBlock, implicit: true}
	}
	for _, d := range st.Deletes {
		if _, _, err := s.writeRows(ctx, d.Table, d.Plan, -1, nil); err != nil {
			if own {
				s.endTx()
			}
			return result{}, err
		}
	}
	if own {
		err := s.commitWrites(ctx)
		s.tx.settings.committed = err == nil
		s.endTx()
		if err != nil {
			return result{}, err
		}
	}
	if st.RestartIdentity {
		// The tables' own sequences start again. (In a transaction
		// block this happens at once, as a sequence's changes are never
		// rolled back in PostgreSQL either.)
		var seqs []*catalog.Object
		s.engine.Catalog(func(c *catalog.Catalog) error {
			for _, o := range c.Objects() {
				for _, d := range st.Deletes {
					if o.Kind == catalog.Sequence && o.On == uint64(d.Table.ID) {
						seqs = append(seqs, o)
					}
				}
			}
			return nil
		})
		for _, o := range seqs {
			if err := s.engine.SetVal(ctx, o, o.Seq.Start, false); err != nil {
				return result{}, err
			}
		}
	}
	return result{tag: "TRUNCATE TABLE"}, nil
}

// createTableAs creates a table with the query's columns and writes the
// query's rows into it, tagged SELECT n as in PostgreSQL. The rows are
// read first, so that a query that fails creates nothing.
func (s *Session) createTableAs(ctx context.Context, st *planner.CreateTableAs, w pgwire.Writer) (result, error) {
	if s.tx.status != pgwire.TxIdle {
		return result{}, sqlerr.New(sqlerr.FeatureNotSupported, "CREATE TABLE AS in a transaction block is not supported")
	}
	if st.Table.IfNotExists {
		exists := false
		s.engine.Catalog(func(c *catalog.Catalog) error {
			schema, err := s.schemaFor(c, st.Table.Name)
			if err == nil {
				_, err = c.Resolve(s.database, schema, st.Table.Name.Name)
			}
			exists = err == nil
			return nil
		})
		if exists {
			w.Notice(sqlerr.New(sqlerr.DuplicateTable, "relation %q already exists, skipping", st.Table.Name.Name).WithSeverity(sqlerr.SeverityNotice))
			return result{tag: "CREATE TABLE AS"}, nil
		}
	}
	var rows [][]repr.Datum
	if !st.NoData {
		var err error
		if rows, err = s.selectDatums(ctx, st.Query); err != nil {
			return result{}, err
		}
	}
	if _, err := s.createTable(ctx, &st.Table, w); err != nil {
		return result{}, err
	}
	if len(rows) > 0 {
		var id uint64
		err := s.engine.Catalog(func(c *catalog.Catalog) error {
			schema, err := s.schemaFor(c, st.Table.Name)
			if err != nil {
				return err
			}
			o, err := c.Resolve(s.database, schema, st.Table.Name.Name)
			if err == nil {
				id = o.ID
			}
			return err
		})
		if err != nil {
			return result{}, err
		}
		writes := make([]TableWrite, len(rows))
		for i, r := range rows {
			writes[i] = TableWrite{Table: id, Row: repr.PackRow(r...), Diff: 1}
		}
		if _, err := s.engine.Write(ctx, writes); err != nil {
			return result{}, err
		}
	}
	if st.NoData {
		return result{tag: "CREATE TABLE AS"}, nil
	}
	return result{tag: fmt.Sprintf("SELECT %d", len(rows))}, nil
}
