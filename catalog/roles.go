package catalog

import (
	"slices"
	"strings"

	"freshet/sqlerr"
)

// BootstrapRole is the built-in superuser, which every catalog has and
// which owns every object. It is not stored: CREATE ROLE of its name is
// refused, and ALTER ROLE of it stores a Role object of that name that
// holds only its password and attributes.
const BootstrapRole = "freshet"

// Roles returns the stored roles, by name.
func (c *Catalog) Roles() []*Object {
	var out []*Object
	for _, o := range c.objects {
		if o.Kind == Role {
			out = append(out, o)
		}
	}
	slices.SortFunc(out, func(a, b *Object) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// RoleNamed returns the stored role called name, or nil.
func (c *Catalog) RoleNamed(name string) *Object {
	if id, ok := c.names[nameKey{kind: Role, name: name}]; ok {
		return c.objects[id]
	}
	return nil
}

// CreateRole adds a role; it fills in the id. A name taken by a role is
// 42710 (the coordinator refuses the built-in superuser's name to CREATE
// ROLE, and stores that role's record at its first ALTER ROLE).
func (c *Catalog) CreateRole(o *Object) (*Object, error) {
	if o.Kind != Role {
		return nil, sqlerr.AssertionFailedf("CreateRole of a %s", o.Kind)
	}
	if c.RoleNamed(o.Name) != nil {
		return nil, sqlerr.New(sqlerr.DuplicateObject, "role %q already exists", o.Name)
	}
	return c.add(o), nil
}

// ReplaceRole puts o, a changed copy of a stored role, in its place.
func (c *Catalog) ReplaceRole(o *Object) {
	c.objects[o.ID] = o
}
