package planner

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// Grant is GRANT or REVOKE of privileges on tables (views and
// materialized views too), schemas or databases.
type Grant struct {
	Revoke bool
	// Privileges are the privileges' names, upper case (SELECT, INSERT,
	// …); nil for ALL PRIVILEGES.
	Privileges []string
	// On is "TABLE", "SCHEMA" or "DATABASE".
	On string
	// Objects are the relations named (TABLE), or the schemas or
	// databases (their Name); with AllInSchema, the schemas whose every
	// relation is meant.
	Objects     []QualifiedName
	AllInSchema bool
	Grantees    []Grantee
}

// Grantee is a role a GRANT names: by name, PUBLIC, or the session's
// user (CURRENT_USER, CURRENT_ROLE, SESSION_USER).
type Grantee struct {
	Name    string
	Public  bool
	Current bool
}

func (g *Grant) Tag() string {
	if g.Revoke {
		return "REVOKE"
	}
	return "GRANT"
}

func (p *planner) grant(s *pg.GrantStmt) (Statement, error) {
	g := &Grant{Revoke: !s.IsGrant}
	if s.GrantOption {
		if g.Revoke {
			return nil, unsupported("REVOKE GRANT OPTION FOR")
		}
		return nil, unsupported("WITH GRANT OPTION")
	}
	if s.Grantor != nil {
		return nil, unsupported("GRANTED BY")
	}
	switch s.Objtype {
	case pg.ObjectType_OBJECT_TABLE:
		g.On = "TABLE"
	case pg.ObjectType_OBJECT_SCHEMA:
		g.On = "SCHEMA"
	case pg.ObjectType_OBJECT_DATABASE:
		g.On = "DATABASE"
	default:
		return nil, unsupported("privileges on %s", strings.ToLower(strings.TrimPrefix(s.Objtype.String(), "OBJECT_")))
	}
	switch s.Targtype {
	case pg.GrantTargetType_ACL_TARGET_OBJECT:
	case pg.GrantTargetType_ACL_TARGET_ALL_IN_SCHEMA:
		g.AllInSchema = true
	default:
		return nil, unsupported("default privileges")
	}
	for _, n := range s.Privileges {
		a := n.GetAccessPriv()
		if a == nil {
			continue
		}
		if len(a.Cols) > 0 {
			return nil, unsupported("column privileges")
		}
		if a.PrivName == "" {
			// ALL (column list): all privileges.
			g.Privileges = nil
			break
		}
		g.Privileges = append(g.Privileges, strings.ToUpper(a.PrivName))
	}
	for _, n := range s.Objects {
		switch {
		case n.GetRangeVar() != nil:
			g.Objects = append(g.Objects, qualifiedName(n.GetRangeVar()))
		case n.GetString_() != nil:
			g.Objects = append(g.Objects, QualifiedName{Name: n.GetString_().Sval})
		}
	}
	for _, n := range s.Grantees {
		r := n.GetRoleSpec()
		if r == nil {
			continue
		}
		switch r.Roletype {
		case pg.RoleSpecType_ROLESPEC_CSTRING:
			g.Grantees = append(g.Grantees, Grantee{Name: r.Rolename})
		case pg.RoleSpecType_ROLESPEC_PUBLIC:
			g.Grantees = append(g.Grantees, Grantee{Public: true})
		default:
			g.Grantees = append(g.Grantees, Grantee{Current: true})
		}
	}
	return g, nil
}
