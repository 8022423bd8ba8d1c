package coord

import (
	"context"
	"slices"
	"strings"

	"freshet/catalog"
	"freshet/expr"
	"freshet/planner"
	"freshet/sqlerr"
)

// Privileges, as PostgreSQL 15 has them for what Freshet has:
//   - every relation and index has an owner, the role that created it
//     (the built-in superuser for objects from before owners were
//     recorded); the owner holds every privilege on it, may GRANT and
//     REVOKE them, DROP it and index it;
//   - SELECT, INSERT, UPDATE, DELETE and TRUNCATE on relations, CREATE
//     and USAGE on schemas, CONNECT, TEMPORARY and CREATE on databases
//     are granted to roles or to PUBLIC; by default PUBLIC has USAGE on
//     public and CONNECT on every database, and nothing else, as in
//     PostgreSQL 15 (which took CREATE on public from PUBLIC);
//   - a superuser passes every check;
//   - a relation read through a view is checked against the view
//     owner's privileges, a relation a statement names against the
//     session's.
// docs/security.md says what is not modelled.

// sessionRole returns the role the session acts as and whether it is a
// superuser: the built-in superuser, a role with SUPERUSER, or, under
// trust authentication, a user who is no role (such a session has
// always had every privilege).
func (s *Session) sessionRole(c *catalog.Catalog) (name string, super bool) {
	return userRole(c, s.startup.User)
}

// userRole is sessionRole for a session of user.
func userRole(c *catalog.Catalog, user string) (name string, super bool) {
	if user == catalog.BootstrapRole {
		return user, true
	}
	r := c.RoleNamed(user)
	if r == nil {
		return user, true
	}
	return user, r.Superuser
}

// ownerForNew returns the Owner a relation or index the session creates
// gets: its role, or empty (the built-in superuser) for a session that
// is no stored role.
func (s *Session) ownerForNew() string {
	owner := ""
	s.engine.Catalog(func(c *catalog.Catalog) error {
		if r := c.RoleNamed(s.startup.User); r != nil && r.Name != catalog.BootstrapRole {
			owner = r.Name
		}
		return nil
	})
	return owner
}

// roleIsSuper reports whether a session of role name has every
// privilege (userRole).
func roleIsSuper(c *catalog.Catalog, name string) bool {
	_, super := userRole(c, name)
	return super
}

// errPermission is PostgreSQL's 42501 for a missing privilege on o.
func errPermission(o *catalog.Object) error {
	return sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied for %s %s", o.Kind, o.Name)
}

// errNotOwner is PostgreSQL's 42501 for an action only o's owner may
// take.
func errNotOwner(o *catalog.Object) error {
	return sqlerr.New(sqlerr.InsufficientPrivilege, "must be owner of %s %s", o.Kind, o.Name)
}

// checkPrivilege fails unless role holds every privilege of p on o and,
// for a relation, USAGE on its schema, as PostgreSQL asks.
func checkPrivilege(c *catalog.Catalog, o *catalog.Object, role string, p catalog.Privileges) error {
	if roleIsSuper(c, role) {
		return nil
	}
	if o.Kind.IsRelation() {
		if sch := c.SchemaNamed(o.Database, o.Schema); sch != nil && sch.PrivilegesOf(role)&catalog.PrivUsage == 0 {
			return errPermission(sch)
		}
	}
	if o.PrivilegesOf(role)&p == p {
		return nil
	}
	return errPermission(o)
}

// checkOwner fails unless role owns o (or is a superuser).
func checkOwner(c *catalog.Catalog, o *catalog.Object, role string) error {
	if roleIsSuper(c, role) || o.OwnerName() == role {
		return nil
	}
	return errNotOwner(o)
}

// readTarget returns the catalog relation a planner read is of: an
// index read in a view's place is the view's.
func (s *Session) readTarget(c *catalog.Catalog, id expr.GlobalID) *catalog.Object {
	o := c.Get(uint64(id))
	if o != nil && o.Kind == catalog.Index {
		return c.Get(o.On)
	}
	return o
}

// checkReads checks SELECT on every relation the statement reads: as
// the session's role where the statement names it, as the view's owner
// where a view's definition does. Built-in relations and the system
// tables are everyone's to read.
func (s *Session) checkReads(c *catalog.Catalog, reads []planner.Read, skip ...uint64) error {
	role, super := s.sessionRole(c)
	if super {
		return nil
	}
	for _, r := range reads {
		if r.ID == 0 || isSystemTable(uint64(r.ID)) || slices.Contains(skip, uint64(r.ID)) {
			continue
		}
		o := s.readTarget(c, r.ID)
		if o == nil {
			continue
		}
		as := role
		if r.Via != 0 {
			if v := s.readTarget(c, r.Via); v != nil {
				as = v.OwnerName()
			}
		}
		if err := checkPrivilege(c, o, as, catalog.PrivSelect); err != nil {
			return err
		}
	}
	return nil
}

// schemaOf returns the schema object a new relation named name goes in.
func (s *Session) schemaOf(c *catalog.Catalog, name planner.QualifiedName) *catalog.Object {
	schema, err := s.schemaFor(c, name)
	if err != nil {
		return nil
	}
	return c.SchemaNamed(s.database, schema)
}

// checkCreateIn fails unless the session may create a relation named
// name: CREATE on its schema.
func (s *Session) checkCreateIn(c *catalog.Catalog, name planner.QualifiedName) error {
	role, super := s.sessionRole(c)
	if super {
		return nil
	}
	sch := s.schemaOf(c, name)
	if sch == nil {
		return nil // the create fails with the schema's own error
	}
	return checkPrivilege(c, sch, role, catalog.PrivCreate)
}

// checkTarget fails unless the session holds p on the table id.
func (s *Session) checkTarget(c *catalog.Catalog, id expr.GlobalID, p catalog.Privileges) error {
	role, super := s.sessionRole(c)
	if super {
		return nil
	}
	o := c.Get(uint64(id))
	if o == nil {
		return nil // the write fails with the table's own error
	}
	return checkPrivilege(c, o, role, p)
}

// authorize checks that the session may run st, which read reads as it
// was planned, before it runs.
func (s *Session) authorize(st planner.Statement, reads []planner.Read) error {
	return s.engine.Catalog(func(c *catalog.Catalog) error {
		switch st := st.(type) {
		case *planner.Select, *planner.Explain, *planner.CopyTo, *planner.DeclareCursor:
			return s.checkReads(c, reads)
		case *planner.Insert:
			p := catalog.PrivInsert
			if st.Returning != nil {
				p |= catalog.PrivSelect
			}
			if st.OnConflict != nil && st.OnConflict.Update != nil {
				// DO UPDATE updates rows it reads.
				p |= catalog.PrivUpdate | catalog.PrivSelect
			}
			if err := s.checkTarget(c, st.Table.ID, p); err != nil {
				return err
			}
			return s.checkReads(c, reads)
		case *planner.Update:
			if err := s.checkTarget(c, st.Table.ID, catalog.PrivUpdate); err != nil {
				return err
			}
			return s.checkReads(c, reads)
		case *planner.Delete:
			if err := s.checkTarget(c, st.Table.ID, catalog.PrivDelete); err != nil {
				return err
			}
			return s.checkReads(c, reads)
		case *planner.Merge:
			// As PostgreSQL: the privilege of each action a WHEN clause
			// names, whether or not any row takes it, and SELECT on
			// what the statement reads, the target included.
			var p catalog.Privileges
			for _, a := range st.Actions {
				p |= map[planner.MergeAction]catalog.Privileges{planner.MergeInsert: catalog.PrivInsert,
					planner.MergeUpdate: catalog.PrivUpdate, planner.MergeDelete: catalog.PrivDelete}[a]
			}
			if err := s.checkTarget(c, st.Table.ID, p); err != nil {
				return err
			}
			return s.checkReads(c, reads)
		case *planner.Copy:
			return s.checkTarget(c, st.Table.ID, catalog.PrivInsert)
		case *planner.Truncate:
			for _, d := range st.Deletes {
				if err := s.checkTarget(c, d.Table.ID, catalog.PrivTruncate); err != nil {
					return err
				}
			}
			return nil
		case *planner.CreateTable:
			return s.checkCreateIn(c, st.Name)
		case *planner.CreateTableAs:
			if err := s.checkCreateIn(c, st.Table.Name); err != nil {
				return err
			}
			return s.checkReads(c, reads)
		case *planner.CreateView:
			if err := s.checkCreateIn(c, st.Name); err != nil {
				return err
			}
			if st.Materialized {
				// The view is computed now, as its creator, as
				// PostgreSQL's CREATE MATERIALIZED VIEW runs its query;
				// a plain view's reads are checked when it is read.
				return s.checkReads(c, reads)
			}
			return nil
		case *planner.CreateIndex:
			role, _ := s.sessionRole(c)
			id := uint64(st.OnID)
			if on, ok := s.engine.indexedRelation(id); ok {
				id = on
			}
			if o := c.Get(id); o != nil {
				return checkOwner(c, o, role)
			}
			return nil
		case *planner.CreateDatabase:
			if _, super := s.sessionRole(c); !super {
				return sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied to create database")
			}
			return nil
		case *planner.DropDatabase:
			role, _ := s.sessionRole(c)
			for _, o := range c.Objects() {
				if o.Kind == catalog.Database && o.Name == st.Name {
					return checkOwner(c, o, role)
				}
			}
			return nil
		}
		return nil
	})
}

// checkConnect fails unless user may connect to database db: CONNECT,
// which PUBLIC has unless revoked.
func checkConnect(e *Engine, user, db string) error {
	return e.Catalog(func(c *catalog.Catalog) error {
		role, super := userRole(c, user)
		if super {
			return nil
		}
		for _, o := range c.Objects() {
			if o.Kind == catalog.Database && o.Name == db && o.PrivilegesOf(role)&catalog.PrivConnect == 0 {
				return sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied for database %s", o.Name).
					WithDetail("User does not have CONNECT privilege.").WithSeverity(sqlerr.SeverityFatal)
			}
		}
		return nil
	})
}

// grant runs GRANT and REVOKE.
func (s *Session) grant(ctx context.Context, st *planner.Grant) (result, error) {
	var changed []*catalog.Object
	err := s.engine.Catalog(func(c *catalog.Catalog) error {
		role, _ := s.sessionRole(c)
		kind := map[string]catalog.Kind{"TABLE": catalog.Table, "SCHEMA": catalog.Schema, "DATABASE": catalog.Database}[st.On]
		var privs catalog.Privileges
		for _, name := range st.Privileges {
			if kind == catalog.Table && (name == "REFERENCES" || name == "TRIGGER" || name == "MAINTAIN") {
				// Freshet has no foreign keys or triggers to allow.
				return sqlerr.New(sqlerr.FeatureNotSupported, "the %s privilege is not supported", name)
			}
			p, ok := catalog.PrivilegeNamed(name)
			if !ok || p&catalog.AllPrivileges(kind) == 0 {
				return sqlerr.New(sqlerr.InvalidGrantOperation, "invalid privilege type %s for %s", name, map[catalog.Kind]string{catalog.Table: "relation", catalog.Schema: "schema", catalog.Database: "database"}[kind])
			}
			privs |= p
		}
		if st.Privileges == nil {
			privs = catalog.AllPrivileges(kind)
		}
		var grantees []string
		for _, g := range st.Grantees {
			switch {
			case g.Public:
				grantees = append(grantees, catalog.Public)
			case g.Current:
				grantees = append(grantees, s.startup.User)
			case g.Name == catalog.BootstrapRole || c.RoleNamed(g.Name) != nil:
				grantees = append(grantees, g.Name)
			default:
				return sqlerr.New(sqlerr.UndefinedObject, "role %q does not exist", g.Name)
			}
		}
		var targets []*catalog.Object
		switch {
		case kind == catalog.Table && st.AllInSchema:
			for _, sch := range st.Objects {
				if c.SchemaNamed(s.database, sch.Name) == nil {
					return sqlerr.New(sqlerr.InvalidSchemaName, "schema %q does not exist", sch.Name)
				}
				for _, o := range c.Objects() {
					if o.Database == s.database && o.Schema == sch.Name && o.Kind.IsRelation() {
						targets = append(targets, o)
					}
				}
			}
		case kind == catalog.Table:
			for _, name := range st.Objects {
				if name.Schema == pgCatalogSchema || name.Schema == infoSchema || name.Schema == systemSchema {
					return sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied: %q is a system catalog", name.Name)
				}
				o, err := s.lookup(c, name)
				if err != nil {
					if _, ok := s.resolveBuiltin(name); ok {
						return sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied: %q is a system catalog", name.Name)
					}
					return err
				}
				if !o.Kind.IsRelation() {
					return sqlerr.New(sqlerr.WrongObjectType, "%q is not a table", o.Name)
				}
				targets = append(targets, o)
			}
		default:
			for _, name := range st.Objects {
				var found *catalog.Object
				for _, o := range c.Objects() {
					if o.Kind == kind && o.Name == name.Name && (kind == catalog.Database || o.Database == s.database) {
						found = o
					}
				}
				if found == nil {
					if kind == catalog.Database {
						return sqlerr.New(sqlerr.InvalidCatalogName, "database %q does not exist", name.Name)
					}
					return sqlerr.New(sqlerr.InvalidSchemaName, "schema %q does not exist", name.Name)
				}
				targets = append(targets, found)
			}
		}
		for _, o := range targets {
			if err := checkOwner(c, o, role); err != nil {
				return errPermission(o)
			}
			n := o
			for _, g := range grantees {
				n = n.WithGrant(g, privs&catalog.AllPrivileges(o.Kind), st.Revoke)
			}
			changed = append(changed, n)
		}
		return nil
	})
	if err != nil {
		return result{}, err
	}
	return result{tag: st.Tag()}, s.engine.replaceObjects(ctx, changed)
}

// replaceObjects stores changed copies of catalog objects (a GRANT's),
// durably, in their places.
func (e *Engine) replaceObjects(ctx context.Context, objs []*catalog.Object) error {
	if len(objs) == 0 {
		return nil
	}
	if err := e.mu.acquire(ctx); err != nil {
		return err
	}
	defer e.mu.Unlock()
	for _, o := range objs {
		if e.cat.Get(o.ID) == nil {
			return sqlerr.New(sqlerr.UndefinedTable, "relation %q does not exist", o.Name)
		}
	}
	if err := e.persistCatalog(ctx, objs, nil); err != nil {
		return err
	}
	for _, o := range objs {
		e.cat.Replace(o)
	}
	return e.catalogChangedLocked(ctx)
}

// dependentsOfRole is DROP ROLE's check: a role that owns objects or
// holds privileges on them cannot be dropped (2BP01), as in PostgreSQL.
func dependentsOfRole(c *catalog.Catalog, name string) error {
	owned, granted := c.Owns(name)
	if len(owned) == 0 && len(granted) == 0 {
		return nil
	}
	var lines []string
	for _, o := range owned {
		lines = append(lines, "owner of "+o.Kind.String()+" "+o.Name)
	}
	for _, o := range granted {
		lines = append(lines, "privileges for "+o.Kind.String()+" "+o.Name)
	}
	return sqlerr.New(sqlerr.DependentObjectsStillExist, "role %q cannot be dropped because some objects depend on it", name).
		WithDetail("%s", strings.Join(lines, "\n"))
}

// IsSuperuser implements pgwire.Superusers, for the connections kept for
// superusers.
func (b *Backend) IsSuperuser(user string) bool {
	super := false
	b.engine.Catalog(func(c *catalog.Catalog) error {
		_, super = userRole(c, user)
		return nil
	})
	return super
}
