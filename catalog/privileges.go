package catalog

import (
	"fmt"
	"slices"
	"strings"
)

// Privileges is a set of privileges on an object, as PostgreSQL's ACL
// letters name them.
type Privileges uint16

// The privileges. A relation has SELECT, INSERT, UPDATE, DELETE and
// TRUNCATE; a schema CREATE and USAGE; a database CONNECT, TEMPORARY
// and CREATE.
const (
	PrivSelect Privileges = 1 << iota
	PrivInsert
	PrivUpdate
	PrivDelete
	PrivTruncate
	PrivCreate
	PrivUsage
	PrivConnect
	PrivTemporary
)

// privLetter is a privilege with its ACL letter and SQL name.
type privLetter struct {
	p      Privileges
	letter byte
	name   string
}

// privLetters are the ACL letters, in PostgreSQL's order.
var privLetters = []privLetter{
	{PrivInsert, 'a', "INSERT"}, {PrivSelect, 'r', "SELECT"}, {PrivUpdate, 'w', "UPDATE"},
	{PrivDelete, 'd', "DELETE"}, {PrivTruncate, 'D', "TRUNCATE"}, {PrivUsage, 'U', "USAGE"},
	{PrivCreate, 'C', "CREATE"}, {PrivTemporary, 'T', "TEMPORARY"}, {PrivConnect, 'c', "CONNECT"},
}

// Letters returns p as an ACL item writes it: "arwd".
func (p Privileges) Letters() string {
	var b strings.Builder
	for _, l := range privLetters {
		if p&l.p != 0 {
			b.WriteByte(l.letter)
		}
	}
	return b.String()
}

// Names returns p's privileges by their SQL names, in ACL order.
func (p Privileges) Names() []string {
	var names []string
	for _, l := range privLetters {
		if p&l.p != 0 {
			names = append(names, l.name)
		}
	}
	return names
}

// privilegesFromLetters reads Letters' output.
func privilegesFromLetters(s string) (Privileges, error) {
	var p Privileges
	for i := range len(s) {
		j := slices.IndexFunc(privLetters, func(l privLetter) bool { return l.letter == s[i] })
		if j < 0 {
			return 0, fmt.Errorf("unknown privilege %q", s[i])
		}
		p |= privLetters[j].p
	}
	return p, nil
}

// PrivilegeNamed returns the privilege a GRANT names (SELECT, …), if any.
func PrivilegeNamed(name string) (Privileges, bool) {
	name = strings.ToUpper(name)
	if name == "TEMP" {
		name = "TEMPORARY"
	}
	for _, l := range privLetters {
		if l.name == name {
			return l.p, true
		}
	}
	return 0, false
}

// AllPrivileges returns every privilege objects of kind k can have.
func AllPrivileges(k Kind) Privileges {
	switch k {
	case Database:
		return PrivConnect | PrivTemporary | PrivCreate
	case Schema:
		return PrivCreate | PrivUsage
	case Table:
		return PrivSelect | PrivInsert | PrivUpdate | PrivDelete | PrivTruncate
	case View, MaterializedView:
		// PostgreSQL lets every table privilege be granted on a view;
		// only SELECT means anything for Freshet's views.
		return PrivSelect | PrivInsert | PrivUpdate | PrivDelete | PrivTruncate
	}
	return 0
}

// Public is the grantee of a grant to PUBLIC: every role.
const Public = ""

// Grant is privileges granted to a role (or to PUBLIC) on an object.
type Grant struct {
	Role       string
	Privileges Privileges
}

// OwnerName returns the role that owns o: its Owner, or the built-in
// superuser for objects it owns (Owner empty).
func (o *Object) OwnerName() string {
	if o.Owner == "" {
		return BootstrapRole
	}
	return o.Owner
}

// EffectiveACL returns the grants on o: its ACL, or PostgreSQL 15's
// defaults where no GRANT or REVOKE has changed them (none for a
// relation or a schema of CREATE SCHEMA, USAGE for PUBLIC on public,
// CONNECT and TEMPORARY for PUBLIC on a database). The owner's own
// privileges are implicit.
func (o *Object) EffectiveACL() []Grant {
	if o.ACL != nil {
		return o.ACL
	}
	switch o.Kind {
	case Schema:
		if o.Name != DefaultSchema {
			return nil
		}
		return []Grant{{Role: Public, Privileges: PrivUsage}}
	case Database:
		return []Grant{{Role: Public, Privileges: PrivConnect | PrivTemporary}}
	}
	return nil
}

// PrivilegesOf returns what role holds on o, its own grants and
// PUBLIC's, and every privilege if it owns o. Superusers are the
// caller's concern.
func (o *Object) PrivilegesOf(role string) Privileges {
	if role == o.OwnerName() {
		return AllPrivileges(o.Kind)
	}
	var p Privileges
	for _, g := range o.EffectiveACL() {
		if g.Role == Public || g.Role == role {
			p |= g.Privileges
		}
	}
	return p
}

// WithGrant returns a copy of o with privs granted to (revoke false) or
// revoked from role. Grants are kept in role order.
func (o *Object) WithGrant(role string, privs Privileges, revoke bool) *Object {
	cp := *o
	acl := slices.Clone(o.EffectiveACL())
	if acl == nil {
		acl = []Grant{}
	}
	i := slices.IndexFunc(acl, func(g Grant) bool { return g.Role == role })
	switch {
	case i < 0 && !revoke:
		acl = append(acl, Grant{Role: role, Privileges: privs})
		slices.SortFunc(acl, func(a, b Grant) int { return strings.Compare(a.Role, b.Role) })
	case i >= 0 && revoke:
		acl[i].Privileges &^= privs
		if acl[i].Privileges == 0 {
			acl = slices.Delete(acl, i, i+1)
		}
	case i >= 0:
		acl[i].Privileges |= privs
	}
	cp.ACL = acl
	return &cp
}

// ACLItems returns o's grants as PostgreSQL writes its ACL column
// ("alice=arwd/freshet", "=r/freshet" for PUBLIC), the owner's own
// first, or nil while o has its default privileges (the column is then
// NULL).
func (o *Object) ACLItems() []string {
	if o.ACL == nil {
		return nil
	}
	owner := o.OwnerName()
	items := []string{owner + "=" + AllPrivileges(o.Kind).Letters() + "/" + owner}
	for _, g := range o.ACL {
		if g.Role != owner {
			items = append(items, g.Role+"="+g.Privileges.Letters()+"/"+owner)
		}
	}
	return items
}

// Owns returns the objects role owns, and those on which it holds a
// grant, for DROP ROLE's check.
func (c *Catalog) Owns(role string) (owned, granted []*Object) {
	for _, o := range c.Objects() {
		if o.Owner == role {
			owned = append(owned, o)
		}
		for _, g := range o.ACL {
			if g.Role == role {
				granted = append(granted, o)
				break
			}
		}
	}
	return owned, granted
}

// Replace puts o in the place of the object with its id (a GRANT or
// REVOKE changes an object's record).
func (c *Catalog) Replace(o *Object) {
	if c.objects[o.ID] != nil {
		c.objects[o.ID] = o
	}
}
