package coord

import (
	"context"

	"freshet/pgwire"
	"freshet/planner"
)

// truncate deletes every row of each table. Outside a transaction block,
// several tables are one implicit transaction: all are emptied or none.
func (s *Session) truncate(ctx context.Context, st *planner.Truncate) (result, error) {
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
	return result{tag: "TRUNCATE TABLE"}, nil
}
