package coord

import (
	"context"
	"net"

	"freshet/catalog"
	"freshet/pgwire"
	"freshet/planner"
	"freshet/scram"
	"freshet/sqlerr"
)

// Roles and authentication. The built-in superuser, freshet, owns every
// object; CREATE ROLE adds roles, each with LOGIN, SUPERUSER and a
// password kept as a SCRAM-SHA-256 verifier (never the password), in the
// catalog, so that they survive a restart. Role management needs a
// superuser: freshet, a role with SUPERUSER, or, under trust
// authentication, a user who is no role at all (trust lets anyone be
// anyone, and such a session has always been the superuser's). Other
// privileges are not enforced yet (docs/security.md).

// AuthMode is how the server authenticates sessions.
type AuthMode uint8

// The authentication modes.
const (
	// AuthAuto is trust for clients on a loopback address and
	// SCRAM-SHA-256 for the rest.
	AuthAuto AuthMode = iota
	// AuthTrust lets everyone in as whoever they say.
	AuthTrust
	// AuthSCRAM asks every client for its role's password.
	AuthSCRAM
)

// ParseAuthMode reads --auth's value.
func ParseAuthMode(s string) (AuthMode, bool) {
	switch s {
	case "auto":
		return AuthAuto, true
	case "trust":
		return AuthTrust, true
	case "scram", "scram-sha-256":
		return AuthSCRAM, true
	}
	return 0, false
}

// Authenticator returns the pgwire.Authenticator of mode over b's
// roles.
func (b *Backend) Authenticator(mode AuthMode) pgwire.Authenticator {
	return roleAuth{b: b, mode: mode}
}

type roleAuth struct {
	b    *Backend
	mode AuthMode
}

// Authenticate implements pgwire.Authenticator.
func (a roleAuth) Authenticate(user string, addr net.Addr, _ bool) (pgwire.AuthMethod, scram.Verifier, bool) {
	switch a.mode {
	case AuthTrust:
		return pgwire.AuthTrust, scram.Verifier{}, false
	case AuthAuto:
		if isLoopback(addr) {
			return pgwire.AuthTrust, scram.Verifier{}, false
		}
	}
	var v scram.Verifier
	ok := false
	a.b.engine.Catalog(func(c *catalog.Catalog) error {
		r := c.RoleNamed(user)
		if r == nil || r.Password == "" || !(r.Login || user == catalog.BootstrapRole) {
			return nil
		}
		var err error
		v, err = scram.Parse(r.Password)
		ok = err == nil
		return nil
	})
	return pgwire.AuthSCRAM, v, ok
}

// isLoopback reports whether addr is a loopback address (or a Unix
// socket).
func isLoopback(addr net.Addr) bool {
	switch a := addr.(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return true
	}
	return false
}

// superuser reports whether the session's user may manage roles.
func (s *Session) superuser() bool {
	user := s.startup.User
	if user == catalog.BootstrapRole {
		return true
	}
	super, known := false, false
	s.engine.Catalog(func(c *catalog.Catalog) error {
		if r := c.RoleNamed(user); r != nil {
			known, super = true, r.Superuser
		}
		return nil
	})
	return super || !known
}

func errRolePrivilege(what string) error {
	return sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied to %s", what).
		WithDetail("Only superusers may %s.", what)
}

// verifierOf returns the stored form of a role's password: a verifier
// given as one, or the verifier of a clear-text password.
func verifierOf(o planner.RoleOptions) (string, error) {
	if o.PasswordNull || !o.PasswordSet {
		return "", nil
	}
	if o.Password == "" {
		return "", sqlerr.New(sqlerr.InvalidParameterValue, "empty password").
			WithHint("Use PASSWORD NULL for a role without a password.")
	}
	if scram.IsVerifier(o.Password) {
		return o.Password, nil
	}
	v, err := scram.FromPassword(o.Password)
	if err != nil {
		return "", sqlerr.Wrapf(err, sqlerr.InternalError, "computing the password's verifier")
	}
	return v.String(), nil
}

func applyRoleOptions(r *catalog.Object, o planner.RoleOptions) error {
	if o.Login != nil {
		r.Login = *o.Login
	}
	if o.Superuser != nil {
		r.Superuser = *o.Superuser
	}
	if o.PasswordSet {
		v, err := verifierOf(o)
		if err != nil {
			return err
		}
		r.Password = v
	}
	return nil
}

func (s *Session) createRole(ctx context.Context, st *planner.CreateRole) (result, error) {
	if !s.superuser() {
		return result{}, errRolePrivilege("create roles")
	}
	if st.Name == catalog.BootstrapRole {
		return result{}, sqlerr.New(sqlerr.DuplicateObject, "role %q already exists", st.Name)
	}
	r := &catalog.Object{Kind: catalog.Role, Name: st.Name}
	if err := applyRoleOptions(r, st.Options); err != nil {
		return result{}, err
	}
	return result{tag: "CREATE ROLE"}, s.engine.putRole(ctx, r, true)
}

func (s *Session) alterRole(ctx context.Context, st *planner.AlterRole) (result, error) {
	if !s.superuser() {
		return result{}, errRolePrivilege("alter roles")
	}
	var r *catalog.Object
	s.engine.Catalog(func(c *catalog.Catalog) error {
		if old := c.RoleNamed(st.Name); old != nil {
			cp := *old
			r = &cp
		}
		return nil
	})
	if r == nil {
		if st.Name != catalog.BootstrapRole {
			return result{}, sqlerr.New(sqlerr.UndefinedObject, "role %q does not exist", st.Name)
		}
		// The built-in superuser's first ALTER stores its record.
		r = &catalog.Object{Kind: catalog.Role, Name: st.Name, Login: true, Superuser: true}
	}
	if err := applyRoleOptions(r, st.Options); err != nil {
		return result{}, err
	}
	if r.Name == catalog.BootstrapRole && (!r.Superuser || !r.Login) {
		return result{}, sqlerr.New(sqlerr.FeatureNotSupported, "the built-in superuser %q stays a superuser that can log in", r.Name)
	}
	return result{tag: "ALTER ROLE"}, s.engine.putRole(ctx, r, r.ID == 0)
}

func (s *Session) dropRole(ctx context.Context, st *planner.DropRole) (result, error) {
	if !s.superuser() {
		return result{}, errRolePrivilege("drop roles")
	}
	var drop []*catalog.Object
	var err error
	s.engine.Catalog(func(c *catalog.Catalog) error {
		for _, name := range st.Names {
			r := c.RoleNamed(name)
			switch {
			case name == catalog.BootstrapRole:
				err = sqlerr.New(sqlerr.DependentObjectsStillExist, "role %q cannot be dropped because some objects depend on it", name).
					WithDetail("It is the built-in superuser.")
			case name == s.startup.User:
				err = sqlerr.New(sqlerr.ObjectInUse, "current user cannot be dropped")
			case r == nil && st.IfExists:
			case r == nil:
				err = sqlerr.New(sqlerr.UndefinedObject, "role %q does not exist", name)
			default:
				drop = append(drop, r)
			}
			if err != nil {
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return result{}, err
	}
	return result{tag: "DROP ROLE"}, s.engine.dropRoles(ctx, drop)
}

// putRole stores a new role (create) or a changed one, durably.
func (e *Engine) putRole(ctx context.Context, r *catalog.Object, create bool) error {
	if err := e.mu.acquire(ctx); err != nil {
		return err
	}
	defer e.mu.Unlock()
	if create {
		if _, err := e.cat.CreateRole(r); err != nil {
			return err
		}
		if err := e.persistCatalog(ctx, []*catalog.Object{r}, nil); err != nil {
			e.cat.Remove([]*catalog.Object{r})
			return err
		}
		return e.catalogChangedLocked(ctx)
	}
	old := e.cat.Get(r.ID)
	if err := e.persistCatalog(ctx, []*catalog.Object{r}, nil); err != nil {
		return err
	}
	if old != nil {
		e.cat.ReplaceRole(r)
	}
	return e.catalogChangedLocked(ctx)
}

// dropRoles removes roles, durably.
func (e *Engine) dropRoles(ctx context.Context, roles []*catalog.Object) error {
	if len(roles) == 0 {
		return nil
	}
	if err := e.mu.acquire(ctx); err != nil {
		return err
	}
	defer e.mu.Unlock()
	for _, r := range roles {
		if err := dependentsOfRole(e.cat, r.Name); err != nil {
			return err
		}
	}
	if err := e.persistCatalog(ctx, nil, roles); err != nil {
		return err
	}
	e.cat.Remove(roles)
	return e.catalogChangedLocked(ctx)
}
