package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/sqlerr"
)

// Noop is a statement that Freshet accepts and that changes nothing:
// REFRESH MATERIALIZED VIEW (views are always fresh), VACUUM and
// ANALYZE (there is no dead tuple to vacuum and no statistic to gather).
// Notice, if set, tells the client so.
type Noop struct {
	Command string
	Notice  string
}

func (n *Noop) Tag() string { return n.Command }

func (p *planner) refresh(s *pg.RefreshMatViewStmt) (Statement, error) {
	r, err := p.cat.ResolveRelation(qualifiedName(s.Relation))
	if err != nil {
		return nil, errorAt(err, p.b.sql, s.Relation.Location)
	}
	if r.Kind != KindMaterializedView {
		return nil, errorAt(sqlerr.New(sqlerr.FeatureNotSupported, "%q is not a materialized view", s.Relation.Relname), p.b.sql, s.Relation.Location)
	}
	if s.SkipData {
		return nil, unsupported("REFRESH MATERIALIZED VIEW WITH NO DATA")
	}
	return &Noop{Command: "REFRESH MATERIALIZED VIEW",
		Notice: "materialized view \"" + s.Relation.Relname + "\" is always fresh: REFRESH MATERIALIZED VIEW does nothing"}, nil
}

func (p *planner) vacuum(s *pg.VacuumStmt) (Statement, error) {
	for _, n := range s.Rels {
		rel := n.GetVacuumRelation()
		if rel == nil || rel.Relation == nil {
			continue
		}
		if _, err := p.cat.ResolveRelation(qualifiedName(rel.Relation)); err != nil {
			return nil, errorAt(err, p.b.sql, rel.Relation.Location)
		}
	}
	if s.IsVacuumcmd {
		return &Noop{Command: "VACUUM"}, nil
	}
	return &Noop{Command: "ANALYZE"}, nil
}

// lockingName is a locking clause as SQL writes it: FOR UPDATE, FOR NO
// KEY UPDATE, FOR SHARE or FOR KEY SHARE.
func lockingName(lc *pg.LockingClause) string {
	switch lc.GetStrength() {
	case pg.LockClauseStrength_LCS_FORKEYSHARE:
		return "FOR KEY SHARE"
	case pg.LockClauseStrength_LCS_FORSHARE:
		return "FOR SHARE"
	case pg.LockClauseStrength_LCS_FORNOKEYUPDATE:
		return "FOR NO KEY UPDATE"
	}
	return "FOR UPDATE"
}

// Truncate is TRUNCATE [TABLE] t, ...: each table's rows deleted, as
// one write. Freshet has no sequences (RESTART IDENTITY changes
// nothing) and no foreign keys (CASCADE reaches no other table).
type Truncate struct {
	Deletes []*Delete
	// RestartIdentity restarts the sequences of the tables' serial and
	// identity columns.
	RestartIdentity bool
}

func (*Truncate) Tag() string { return "TRUNCATE TABLE" }

func (p *planner) truncate(s *pg.TruncateStmt) (Statement, error) {
	t := &Truncate{RestartIdentity: s.RestartSeqs}
	seen := map[string]bool{}
	for _, n := range s.Relations {
		rv := n.GetRangeVar()
		if rv == nil {
			continue
		}
		tgt, r, err := p.target(rv, "truncate")
		if err != nil {
			return nil, err
		}
		if key := tgt.Name.String(); seen[key] {
			continue
		} else {
			seen[key] = true
		}
		rel, _, err := p.tableScope(rv, r)
		if err != nil {
			return nil, err
		}
		plan, err := p.lower(rel)
		if err != nil {
			return nil, err
		}
		t.Deletes = append(t.Deletes, &Delete{Table: tgt, Plan: plan})
	}
	return t, nil
}
