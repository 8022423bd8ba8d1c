package coord

import (
	"maps"

	"freshet/pgwire"
	"freshet/planner"
	"freshet/sqlerr"
)

// Savepoints. A transaction block buffers its writes until COMMIT, so a
// savepoint is a mark in that buffer, with the block's other state as it
// was then (what it read and wrote, and the settings); ROLLBACK TO cuts
// the buffer back to the mark and puts the rest back, and takes a failed
// block back to an open one, as in PostgreSQL. Reads see the block's
// snapshot whatever the savepoints.

// savepoint is one SAVEPOINT of the block.
type savepoint struct {
	name            string
	writes          int
	read, written   map[uint64]bool
	settings        sessionSettings
	before, session map[string]*string
}

func (s *Session) savepoint(st *planner.Savepoint) (result, error) {
	if s.tx.status == pgwire.TxIdle || s.tx.implicit {
		return result{}, sqlerr.New(sqlerr.NoActiveSQLTransaction, "SAVEPOINT can only be used in transaction blocks")
	}
	s.tx.savepoints = append(s.tx.savepoints, savepoint{
		name: st.Name, writes: len(s.tx.writes),
		read: maps.Clone(s.tx.read), written: maps.Clone(s.tx.written),
		settings: maps.Clone(s.settings),
		before:   maps.Clone(s.tx.settings.before), session: maps.Clone(s.tx.settings.session),
	})
	return result{tag: st.Tag()}, nil
}

// findSavepoint returns the index of the newest savepoint called name.
func (s *Session) findSavepoint(name, verb string) (int, error) {
	if s.tx.status == pgwire.TxIdle || s.tx.implicit {
		return 0, sqlerr.New(sqlerr.NoActiveSQLTransaction, "%s can only be used in transaction blocks", verb)
	}
	for i := len(s.tx.savepoints) - 1; i >= 0; i-- {
		if s.tx.savepoints[i].name == name {
			return i, nil
		}
	}
	return 0, sqlerr.New(sqlerr.InvalidSavepointSpecification, "savepoint %q does not exist", name)
}

func (s *Session) releaseSavepoint(st *planner.ReleaseSavepoint) (result, error) {
	i, err := s.findSavepoint(st.Name, "RELEASE SAVEPOINT")
	if err != nil {
		return result{}, err
	}
	// The savepoint and every later one go; their work stays.
	s.tx.savepoints = s.tx.savepoints[:i]
	return result{tag: st.Tag()}, nil
}

func (s *Session) rollbackToSavepoint(st *planner.RollbackToSavepoint) (result, error) {
	i, err := s.findSavepoint(st.Name, "ROLLBACK TO SAVEPOINT")
	if err != nil {
		return result{}, err
	}
	sp := s.tx.savepoints[i]
	// The later savepoints go; this one stays, as in PostgreSQL.
	s.tx.savepoints = s.tx.savepoints[:i+1]
	s.tx.writes = s.tx.writes[:sp.writes]
	// The unique keys' view of the block is made again from the writes
	// that are left (Engine.checkBlockWrite).
	s.tx.keys = blockKeys{}
	s.tx.read, s.tx.written = maps.Clone(sp.read), maps.Clone(sp.written)
	s.settings = maps.Clone(sp.settings)
	s.tx.settings.before, s.tx.settings.session = maps.Clone(sp.before), maps.Clone(sp.session)
	s.tx.status = pgwire.TxInBlock
	return result{tag: st.Tag()}, nil
}
