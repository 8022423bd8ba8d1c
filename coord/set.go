package coord

import (
	"context"
	"freshet/pgwire"
	"freshet/planner"
	"freshet/sqlerr"
)

// txSettings records what a transaction block did to the session's
// settings, so that its end can undo it: as in PostgreSQL, a ROLLBACK
// undoes every SET of the block, and a COMMIT keeps SET's values but
// not SET LOCAL's.
type txSettings struct {
	// before holds each changed setting's value from before the block;
	// a nil value means the setting (a custom one) did not exist.
	before map[string]*string
	// session holds, for each setting SET LOCAL changed, the value it
	// reverts to at COMMIT: the last session-level value.
	session map[string]*string
	// committed is set when the block commits.
	committed bool
}

// assign gives setting name (canonical) the value v (nil: remove the
// custom setting), for the session or, if local, for the transaction.
func (s *Session) assign(name string, v *string, local bool) {
	if s.tx.status != pgwire.TxIdle {
		ts := &s.tx.settings
		if ts.before == nil {
			ts.before, ts.session = map[string]*string{}, map[string]*string{}
		}
		if _, ok := ts.before[name]; !ok {
			ts.before[name] = s.settingPtr(name)
		}
		if local {
			if _, ok := ts.session[name]; !ok {
				ts.session[name] = s.settingPtr(name)
			}
		} else {
			ts.session[name] = v
		}
	}
	if v == nil {
		delete(s.settings, name)
	} else {
		s.settings[name] = *v
	}
}

func (s *Session) settingPtr(name string) *string {
	if v, ok := s.settings[name]; ok {
		return &v
	}
	return nil
}

// endSettings undoes, at the end of a transaction block, what the block
// did to the settings: all of it on rollback, SET LOCAL on commit.
func (s *Session) endSettings(ts txSettings) {
	undo := ts.before
	if ts.committed {
		undo = ts.session
	}
	for name, v := range undo {
		if v == nil {
			delete(s.settings, name)
		} else {
			s.settings[name] = *v
		}
	}
}

// set runs SET name = value: SET LOCAL outside a transaction block has
// no effect and warns, as in PostgreSQL.
func (s *Session) set(st *planner.Set, w pgwire.Writer) (result, error) {
	name, v, err := checked(st.Name, st.Value)
	if err != nil {
		return result{}, err
	}
	if st.Local && s.tx.status == pgwire.TxIdle {
		w.Notice(sqlerr.New(sqlerr.NoActiveSQLTransaction, "SET LOCAL can only be used in transaction blocks").WithSeverity(sqlerr.SeverityWarning))
		return result{tag: "SET"}, nil
	}
	s.assign(name, &v, st.Local)
	return result{tag: "SET"}, nil
}

// reset runs RESET name, RESET ALL and SET name TO DEFAULT.
func (s *Session) reset(st *planner.Reset, w pgwire.Writer) (result, error) {
	tag := "RESET"
	if st.Set {
		tag = "SET"
	}
	if st.Local && s.tx.status == pgwire.TxIdle {
		w.Notice(sqlerr.New(sqlerr.NoActiveSQLTransaction, "SET LOCAL can only be used in transaction blocks").WithSeverity(sqlerr.SeverityWarning))
		return result{tag: tag}, nil
	}
	if st.Name == "all" {
		s.resetAll()
		return result{tag: tag}, nil
	}
	name, v, err := resetValue(st.Name, s.startup)
	if err != nil {
		return result{}, err
	}
	s.assign(name, &v, st.Local)
	return result{tag: tag}, nil
}

// resetAll gives every setting its default; custom settings become
// empty, as RESET makes them.
func (s *Session) resetAll() {
	defaults := defaultSettings(s.startup)
	for name, v := range s.settings {
		if _, ok := defaults[name]; !ok && v != "" {
			empty := ""
			s.assign(name, &empty, false)
		}
	}
	for name, v := range defaults {
		if s.settings[name] != v {
			s.assign(name, &v, false)
		}
	}
}

// discard runs DISCARD: ALL resets the settings, closes the cursors,
// deallocates PREPARE's statements and drops the temporary tables; TEMP
// drops the temporary tables (temp.go); SEQUENCES forgets currval's and
// lastval's values; Freshet has no cached plans for PLANS to drop.
func (s *Session) discard(ctx context.Context, st *planner.Discard) (result, error) {
	if s.tx.status != pgwire.TxIdle {
		switch st.What {
		case "ALL":
			// A multi-statement message is a block too, as in PostgreSQL.
			return result{}, sqlerr.New(sqlerr.ActiveSQLTransaction, "DISCARD ALL cannot run inside a transaction block")
		case "TEMP":
			return result{}, sqlerr.New(sqlerr.FeatureNotSupported, "DISCARD TEMP in a transaction block is not supported")
		}
	}
	if st.What == "ALL" || st.What == "TEMP" {
		if err := s.dropTemp(ctx); err != nil {
			return result{}, err
		}
	}
	if st.What == "ALL" {
		s.resetAll()
		s.cursors, s.sqlPrepared = nil, nil
	}
	if st.What == "ALL" || st.What == "SEQUENCES" {
		s.seqs.mu.Lock()
		s.seqs.last, s.seqs.lastID = nil, 0
		s.seqs.mu.Unlock()
	}
	return result{tag: "DISCARD " + st.What}, nil
}

// show runs SHOW name and SHOW ALL. The column is named by the
// setting's canonical spelling, as in PostgreSQL.
func (s *Session) show(st *planner.Show) (result, error) {
	if st.Name == "all" {
		res := result{columns: showColumns(st.Name), tag: "SHOW"}
		for _, r := range s.settings.all() {
			res.rows = append(res.rows, [][]byte{[]byte(r[0]), []byte(r[1]), []byte(r[2])})
		}
		return res, nil
	}
	name, v, err := s.settings.value(st.Name)
	if err != nil {
		return result{}, err
	}
	return result{columns: []pgwire.Column{textColumn(name)}, rows: [][][]byte{{[]byte(v)}}, tag: "SHOW"}, nil
}

// showColumns describes SHOW name's result, for Describe before it runs.
func showColumns(name string) []pgwire.Column {
	if name == "all" {
		return []pgwire.Column{textColumn("name"), textColumn("setting"), textColumn("description")}
	}
	if s, custom, err := lookupSetting(name); err == nil && !custom {
		name = s.name
	}
	return []pgwire.Column{textColumn(name)}
}
