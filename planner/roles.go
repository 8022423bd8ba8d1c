package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/sqlerr"
)

// RoleOptions are the attributes CREATE ROLE and ALTER ROLE set; nil is
// not given.
type RoleOptions struct {
	Login, Superuser *bool
	// Password is the password as given (clear text or a SCRAM
	// verifier); PasswordSet with an empty Password and PasswordNull is
	// PASSWORD NULL, which removes it.
	Password     string
	PasswordSet  bool
	PasswordNull bool
}

// CreateRole is CREATE ROLE, CREATE USER (LOGIN unless told NOLOGIN) and
// CREATE GROUP.
type CreateRole struct {
	Name    string
	Options RoleOptions
}

// AlterRole is ALTER ROLE / ALTER USER name [WITH] options.
type AlterRole struct {
	Name    string
	Options RoleOptions
}

// DropRole is DROP ROLE / DROP USER [IF EXISTS] names.
type DropRole struct {
	Names    []string
	IfExists bool
}

func (*CreateRole) Tag() string { return "CREATE ROLE" }
func (*AlterRole) Tag() string  { return "ALTER ROLE" }
func (*DropRole) Tag() string   { return "DROP ROLE" }

// roleOptions reads the options of CREATE or ALTER ROLE. The attributes
// whose privileges Freshet does not enforce yet are refused when they
// would grant something (CREATEDB, CREATEROLE, REPLICATION, BYPASSRLS,
// a connection limit, VALID UNTIL), accepted when they deny it.
func roleOptions(opts []*pg.Node) (RoleOptions, error) {
	var o RoleOptions
	flag := func(d *pg.DefElem) bool {
		if d.Arg == nil {
			return true
		}
		if b := d.Arg.GetBoolean(); b != nil {
			return b.Boolval
		}
		return d.Arg.GetInteger().GetIval() != 0
	}
	for _, n := range opts {
		d := n.GetDefElem()
		if d == nil {
			continue
		}
		switch d.Defname {
		case "canlogin":
			v := flag(d)
			o.Login = &v
		case "superuser":
			v := flag(d)
			o.Superuser = &v
		case "password":
			o.PasswordSet = true
			if s := d.Arg.GetString_(); s != nil {
				o.Password = s.Sval
			} else {
				o.PasswordNull = true
			}
		case "inherit":
		case "createdb", "createrole", "isreplication", "bypassrls":
			// Only superusers have privileges yet (docs/security.md).
			if flag(d) {
				return o, unsupported("role attribute %s", attributeNames[d.Defname])
			}
		case "connectionlimit":
			if d.Arg.GetInteger().GetIval() != -1 {
				return o, unsupported("CONNECTION LIMIT for a role")
			}
		default:
			return o, unsupported("role option %s", d.Defname)
		}
	}
	return o, nil
}

// attributeNames are the SQL names of the role attributes of roleOptions.
var attributeNames = map[string]string{"createdb": "CREATEDB", "createrole": "CREATEROLE", "isreplication": "REPLICATION", "bypassrls": "BYPASSRLS"}

func (p *planner) createRole(s *pg.CreateRoleStmt) (Statement, error) {
	o, err := roleOptions(s.Options)
	if err != nil {
		return nil, err
	}
	if s.StmtType == pg.RoleStmtType_ROLESTMT_USER && o.Login == nil {
		login := true
		o.Login = &login
	}
	return &CreateRole{Name: s.Role, Options: o}, nil
}

func (p *planner) alterRole(s *pg.AlterRoleStmt) (Statement, error) {
	name, err := roleSpecName(s.Role)
	if err != nil {
		return nil, err
	}
	o, err := roleOptions(s.Options)
	if err != nil {
		return nil, err
	}
	return &AlterRole{Name: name, Options: o}, nil
}

func (p *planner) dropRole(s *pg.DropRoleStmt) (Statement, error) {
	d := &DropRole{IfExists: s.MissingOk}
	for _, n := range s.Roles {
		name, err := roleSpecName(n.GetRoleSpec())
		if err != nil {
			return nil, err
		}
		d.Names = append(d.Names, name)
	}
	return d, nil
}

// roleSpecName is the name a role specification gives; CURRENT_USER and
// the like are not supported.
func roleSpecName(r *pg.RoleSpec) (string, error) {
	if r == nil || r.Roletype != pg.RoleSpecType_ROLESPEC_CSTRING {
		return "", sqlerr.New(sqlerr.FeatureNotSupported, "only a role's name is supported here")
	}
	return r.Rolename, nil
}
