package planner

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/sqlerr"
)

// normalizeSetting maps the names that the grammar gives some settings
// (SET TIME ZONE, SET NAMES, SHOW TRANSACTION ISOLATION LEVEL) to the
// settings' own names.
func normalizeSetting(name string) string {
	switch name = strings.ToLower(name); name {
	case "time zone", "timezone":
		return "timezone"
	case "names", "client_encoding":
		return "client_encoding"
	case "transaction isolation level", "transaction_isolation":
		return "transaction_isolation"
	case "session authorization", "session_authorization":
		return "session_authorization"
	}
	return name
}

func (p *planner) set(s *pg.VariableSetStmt) (Statement, error) {
	name := normalizeSetting(s.Name)
	switch s.Kind {
	case pg.VariableSetKind_VAR_SET_VALUE:
		var vals []string
		for _, a := range s.Args {
			v, err := settingValue(a)
			if err != nil {
				return nil, err
			}
			vals = append(vals, v)
		}
		return &Set{Name: name, Value: strings.Join(vals, ", "), Local: s.IsLocal}, nil
	case pg.VariableSetKind_VAR_SET_DEFAULT:
		return &Reset{Name: name, Local: s.IsLocal, Set: true}, nil
	case pg.VariableSetKind_VAR_RESET:
		return &Reset{Name: name}, nil
	case pg.VariableSetKind_VAR_RESET_ALL:
		return &Reset{Name: "all"}, nil
	case pg.VariableSetKind_VAR_SET_MULTI:
		// SET TRANSACTION ... and SET SESSION CHARACTERISTICS AS
		// TRANSACTION ...: only the isolation level is kept.
		for _, a := range s.Args {
			d := a.GetDefElem()
			if d != nil && d.Defname == "transaction_isolation" {
				v, err := settingValue(d.Arg)
				if err != nil {
					return nil, err
				}
				return &Set{Name: "transaction_isolation", Value: v, Local: strings.EqualFold(s.Name, "transaction")}, nil
			}
		}
		return nil, unsupported("SET %s without an isolation level", s.Name)
	}
	return nil, unsupported("SET FROM CURRENT")
}

// settingValue returns a SET argument as text.
func settingValue(n *pg.Node) (string, error) {
	switch x := n.GetNode().(type) {
	case *pg.Node_AConst:
		if x.AConst.Isnull {
			return "", sqlerr.New(sqlerr.SyntaxError, "syntax error at or near \"NULL\"")
		}
		switch v := x.AConst.Val.(type) {
		case *pg.A_Const_Sval:
			return v.Sval.Sval, nil
		case *pg.A_Const_Ival:
			return defElemString(&pg.Node{Node: &pg.Node_Integer{Integer: v.Ival}}), nil
		case *pg.A_Const_Fval:
			return v.Fval.Fval, nil
		case *pg.A_Const_Boolval:
			if v.Boolval.Boolval {
				return "on", nil
			}
			return "off", nil
		}
	case *pg.Node_TypeCast:
		// SET TIME ZONE INTERVAL '...' and the like: keep the literal.
		return settingValue(x.TypeCast.Arg)
	}
	return "", unsupported("this SET value")
}

func discard(d *pg.DiscardStmt) *Discard {
	switch d.Target {
	case pg.DiscardMode_DISCARD_PLANS:
		return &Discard{What: "PLANS"}
	case pg.DiscardMode_DISCARD_SEQUENCES:
		return &Discard{What: "SEQUENCES"}
	case pg.DiscardMode_DISCARD_TEMP:
		return &Discard{What: "TEMP"}
	}
	return &Discard{What: "ALL"}
}

func (p *planner) transaction(t *pg.TransactionStmt) (Statement, error) {
	switch t.Kind {
	case pg.TransactionStmtKind_TRANS_STMT_BEGIN, pg.TransactionStmtKind_TRANS_STMT_START:
		b := &Begin{}
		for _, o := range t.Options {
			d := o.GetDefElem()
			if d == nil {
				continue
			}
			v, err := settingValue(d.Arg)
			if err != nil {
				return nil, err
			}
			switch d.Defname {
			case "transaction_isolation":
				b.Isolation = v
			case "transaction_read_only":
				b.ReadOnly = v == "1" || v == "on" || v == "true"
			}
		}
		return b, nil
	case pg.TransactionStmtKind_TRANS_STMT_COMMIT:
		if t.Chain {
			return nil, unsupported("COMMIT AND CHAIN")
		}
		return &Commit{}, nil
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK:
		if t.Chain {
			return nil, unsupported("ROLLBACK AND CHAIN")
		}
		return &Rollback{}, nil
	case pg.TransactionStmtKind_TRANS_STMT_SAVEPOINT:
		return &Savepoint{Name: t.SavepointName}, nil
	case pg.TransactionStmtKind_TRANS_STMT_RELEASE:
		return &ReleaseSavepoint{Name: t.SavepointName}, nil
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		return &RollbackToSavepoint{Name: t.SavepointName}, nil
	}
	return nil, unsupported("two-phase commit")
}

// Savepoint is SAVEPOINT name.
type Savepoint struct{ Name string }

// ReleaseSavepoint is RELEASE [SAVEPOINT] name.
type ReleaseSavepoint struct{ Name string }

// RollbackToSavepoint is ROLLBACK TO [SAVEPOINT] name.
type RollbackToSavepoint struct{ Name string }

func (*Savepoint) Tag() string           { return "SAVEPOINT" }
func (*ReleaseSavepoint) Tag() string    { return "RELEASE" }
func (*RollbackToSavepoint) Tag() string { return "ROLLBACK" }
