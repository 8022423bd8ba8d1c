package catalog

import (
	"fmt"
	"slices"
	"strings"

	"freshet/sqlerr"
)

// DefaultDatabase and DefaultSchema exist in every fresh catalog, and
// so does PostgresDatabase: psql -l, pgAdmin and other tools connect to
// it when told no database.
const (
	DefaultDatabase  = "freshet"
	DefaultSchema    = "public"
	PostgresDatabase = "postgres"
)

// Catalog holds every object. It is not safe for concurrent use: the
// coordinator serializes DDL.
type Catalog struct {
	objects map[uint64]*Object
	names   map[nameKey]uint64
	// nextID is the id the next object gets.
	// Invariant: greater than every id ever used.
	nextID uint64
}

type nameKey struct {
	kind                   Kind // Database, Schema, or Table for the relation namespace
	database, schema, name string
}

func keyOf(o *Object) nameKey {
	switch o.Kind {
	case Database:
		return nameKey{kind: Database, name: o.Name}
	case Schema:
		return nameKey{kind: Schema, database: o.Database, name: o.Name}
	case Role:
		return nameKey{kind: Role, name: o.Name}
	case Type:
		return typeKey(o.Database, o.Schema, o.Name)
	}
	return nameKey{kind: Table, database: o.Database, schema: o.Schema, name: o.Name}
}

// New returns a catalog holding the default database, the postgres
// database and their public schemas.
func New() *Catalog {
	c := &Catalog{objects: map[uint64]*Object{}, names: map[nameKey]uint64{}, nextID: 1}
	for _, db := range []string{DefaultDatabase, PostgresDatabase} {
		if _, err := c.CreateDatabase(db); err != nil {
			panic(err)
		}
	}
	return c
}

// Load rebuilds a catalog from stored objects.
func Load(objs []*Object) (*Catalog, error) {
	c := &Catalog{objects: map[uint64]*Object{}, names: map[nameKey]uint64{}, nextID: 1}
	for _, o := range objs {
		if _, dup := c.names[keyOf(o)]; dup {
			return nil, sqlerr.AssertionFailedf("catalog holds %s twice", o.QualifiedName())
		}
		c.objects[o.ID] = o
		c.names[keyOf(o)] = o.ID
		c.nextID = max(c.nextID, o.ID+1)
	}
	// Keys are checked once every object is in: a unique index's table
	// comes with the rest.
	for _, o := range objs {
		if err := c.checkKeys(o); err != nil {
			return nil, sqlerr.Wrapf(err, sqlerr.DataCorrupted, "catalog object %s", o.QualifiedName())
		}
	}
	return c, nil
}

// NextID returns the id the next object will get. The coordinator stores
// it so that ids are never reused across restarts.
func (c *Catalog) NextID() uint64 { return c.nextID }

// SetNextID raises the next id (after a restart).
func (c *Catalog) SetNextID(id uint64) { c.nextID = max(c.nextID, id) }

// Get returns the object with id, or nil.
func (c *Catalog) Get(id uint64) *Object { return c.objects[id] }

// Objects returns every object in id order, roles aside (Roles).
func (c *Catalog) Objects() []*Object {
	out := make([]*Object, 0, len(c.objects))
	for _, o := range c.objects {
		if o.Kind != Role {
			out = append(out, o)
		}
	}
	slices.SortFunc(out, func(a, b *Object) int { return int(a.ID) - int(b.ID) })
	return out
}

// HasDatabase reports whether database name exists.
func (c *Catalog) HasDatabase(name string) bool {
	_, ok := c.names[nameKey{kind: Database, name: name}]
	return ok
}

// CreateDatabase adds a database with its public schema and returns both.
func (c *Catalog) CreateDatabase(name string) ([]*Object, error) {
	if c.HasDatabase(name) {
		return nil, sqlerr.New(sqlerr.DuplicateDatabase, "database %q already exists", name)
	}
	db := c.add(&Object{Kind: Database, Name: name})
	sch := c.add(&Object{Kind: Schema, Name: DefaultSchema, Database: name, DependsOn: []uint64{db.ID}})
	return []*Object{db, sch}, nil
}

// Create validates and adds a relation or index. It fills in the id.
func (c *Catalog) Create(o *Object) (*Object, error) {
	if !c.HasDatabase(o.Database) {
		return nil, sqlerr.New(sqlerr.InvalidCatalogName, "database %q does not exist", o.Database)
	}
	if _, ok := c.names[nameKey{kind: Schema, database: o.Database, name: o.Schema}]; !ok {
		return nil, sqlerr.New(sqlerr.InvalidSchemaName, "schema %q does not exist", o.Schema)
	}
	// Tables, views and indexes share one namespace per schema.
	if _, dup := c.names[keyOf(o)]; dup {
		return nil, sqlerr.New(sqlerr.DuplicateTable, "relation %q already exists", o.Name)
	}
	seen := map[string]bool{}
	for _, col := range o.Columns {
		if seen[col.Name] {
			return nil, sqlerr.New(sqlerr.DuplicateColumn, "column %q specified more than once", col.Name)
		}
		seen[col.Name] = true
	}
	for _, d := range o.DependsOn {
		if c.objects[d] == nil {
			return nil, sqlerr.AssertionFailedf("%s depends on missing object %d", o.Name, d)
		}
	}
	if err := c.checkKeys(o); err != nil {
		return nil, err
	}
	return c.add(o), nil
}

// checkKeys validates o's unique keys: a table's constraints, or a
// unique index, which must be on a table and not share a name with one
// of the table's constraints (in PostgreSQL both are relations of one
// namespace).
func (c *Catalog) checkKeys(o *Object) error {
	if len(o.UniqueKeys) > 0 && o.Kind != Table {
		return sqlerr.AssertionFailedf("%s %s has unique keys", o.Kind, o.Name)
	}
	names := map[string]bool{}
	for _, k := range o.UniqueKeys {
		if names[k.Name] {
			return sqlerr.New(sqlerr.DuplicateTable, "relation %q already exists", k.Name)
		}
		names[k.Name] = true
		if err := checkKeyColumns(o.Name, k.Columns, len(o.Columns)); err != nil {
			return err
		}
	}
	if !o.Unique {
		return nil
	}
	on := c.objects[o.On]
	switch {
	case o.Kind != Index || on == nil:
		return sqlerr.AssertionFailedf("%s %s is unique but not an index on a relation", o.Kind, o.Name)
	case on.Kind != Table:
		return sqlerr.New(sqlerr.FeatureNotSupported, "unique indexes on %ss not supported", on.Kind)
	}
	for _, k := range on.UniqueKeys {
		if k.Name == o.Name {
			return sqlerr.New(sqlerr.DuplicateTable, "relation %q already exists", o.Name)
		}
	}
	return checkKeyColumns(o.Name, o.KeyColumns, len(on.Columns))
}

// checkKeyColumns checks that a key of object name has columns, each a
// column of its table (of n). The planner guarantees it: a failure is
// a bug.
func checkKeyColumns(name string, cols []int, n int) error {
	if len(cols) == 0 {
		return sqlerr.AssertionFailedf("a unique key of %s has no columns", name)
	}
	for _, i := range cols {
		if i < 0 || i >= n {
			return sqlerr.AssertionFailedf("a unique key of %s names column %d of %d", name, i, n)
		}
	}
	return nil
}

// UniqueKeys returns the unique keys of table id: its PRIMARY KEY and
// UNIQUE constraints, then the keys of its unique indexes in id order.
// It returns nil for an object that is not a table.
func (c *Catalog) UniqueKeys(id uint64) []UniqueKey {
	t := c.objects[id]
	if t == nil || t.Kind != Table {
		return nil
	}
	keys := slices.Clone(t.UniqueKeys)
	for _, o := range c.Objects() {
		if o.Kind == Index && o.Unique && o.On == id {
			keys = append(keys, UniqueKey{Name: o.Name, Columns: o.KeyColumns, Index: o.ID})
		}
	}
	return keys
}

func (c *Catalog) add(o *Object) *Object {
	o.ID = c.nextID
	c.nextID++
	c.objects[o.ID] = o
	c.names[keyOf(o)] = o.ID
	return o
}

// Resolve finds a relation or index by name.
func (c *Catalog) Resolve(database, schema, name string) (*Object, error) {
	id, ok := c.names[nameKey{kind: Table, database: database, schema: schema, name: name}]
	if !ok {
		return nil, sqlerr.New(sqlerr.UndefinedTable, "relation %q does not exist", name)
	}
	return c.objects[id], nil
}

// Dependents returns the objects that depend on id directly, in id order.
func (c *Catalog) Dependents(id uint64) []*Object {
	var out []*Object
	for _, o := range c.Objects() {
		if slices.Contains(o.DependsOn, id) || ((o.Kind == Index || o.Kind == Sequence) && o.On == id) {
			out = append(out, o)
		}
	}
	return out
}

// DropPlan is what a DROP removes: the objects in the order to drop them
// (dependents first) and the notices PostgreSQL sends for a cascade.
type DropPlan struct {
	Objects []*Object
	Notice  string
	Detail  string
}

// PlanDrop works out what DROP kind name [CASCADE] removes, without
// changing anything. With dependents and no cascade it fails with 2BP01
// and PostgreSQL's message, detail and hint. Indexes are dropped with
// their relation silently, as PostgreSQL does.
func (c *Catalog) PlanDrop(kind Kind, target *Object, cascade bool) (*DropPlan, error) {
	if target.Kind != kind {
		return nil, wrongKind(target, kind)
	}
	if target.Kind == Sequence && target.On != 0 && target.Seq != nil && target.Seq.Column > 0 {
		// A serial or identity column's default calls the sequence,
		// which goes with its table.
		if t := c.objects[target.On]; t != nil && target.Seq.Column <= len(t.Columns) {
			col := t.Columns[target.Seq.Column-1]
			if col.Identity != 0 {
				return nil, sqlerr.New(sqlerr.DependentObjectsStillExist, "cannot drop sequence %s because column %s of table %s requires it", target.Name, col.Name, t.Name).
					WithHint("You can drop column %s of table %s instead.", col.Name, t.Name)
			}
			return nil, sqlerr.New(sqlerr.DependentObjectsStillExist, "cannot drop sequence %s because other objects depend on it", target.Name).
				WithDetail("default value for column %s of table %s depends on sequence %s", col.Name, t.Name, target.Name).
				WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
	}
	order := c.dependentsFirst(target, map[uint64]bool{}, nil)
	// Objects other than the target and its own indexes are dependents
	// that need CASCADE.
	var lines []string
	for _, o := range order {
		if o == target || ((o.Kind == Index || o.Kind == Sequence) && o.On == target.ID) || o.Kind == Schema {
			continue
		}
		lines = append(lines, c.dependsLine(o))
	}
	if len(lines) > 0 && !cascade {
		slices.Reverse(lines)
		return nil, sqlerr.New(sqlerr.DependentObjectsStillExist, "cannot drop %s %s because other objects depend on it", target.Kind, target.Name).
			WithDetail("%s", strings.Join(lines, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	plan := &DropPlan{Objects: order}
	var cascades []string
	for i := len(order) - 1; i >= 0; i-- {
		o := order[i]
		if o == target || ((o.Kind == Index || o.Kind == Sequence) && o.On == target.ID) || o.Kind == Schema {
			continue
		}
		cascades = append(cascades, fmt.Sprintf("drop cascades to %s %s", o.Kind, o.Name))
	}
	plan.noteCascades(cascades)
	return plan, nil
}

// dependsLine is PostgreSQL's "view v depends on table t" for o and the
// first object it depends on.
func (c *Catalog) dependsLine(o *Object) string {
	on := o.On
	if on == 0 && len(o.DependsOn) > 0 {
		on = o.DependsOn[0]
	}
	if d := c.objects[on]; d != nil {
		return fmt.Sprintf("%s %s depends on %s %s", o.Kind, o.Name, d.Kind, d.Name)
	}
	return fmt.Sprintf("%s %s", o.Kind, o.Name)
}

// wrongKind is PostgreSQL's error for DROP VIEW on a table and the like.
func wrongKind(o *Object, want Kind) error {
	return sqlerr.New(sqlerr.WrongObjectType, "%q is not a %s", o.Name, want).
		WithHint("Use DROP %s to remove a %s.", strings.ToUpper(o.Kind.String()), o.Kind)
}

// PlanDropDatabase returns every object of the database, dependents first.
func (c *Catalog) PlanDropDatabase(name string) (*DropPlan, error) {
	id, ok := c.names[nameKey{kind: Database, name: name}]
	if !ok {
		return nil, sqlerr.New(sqlerr.InvalidCatalogName, "database %q does not exist", name)
	}
	var objs []*Object
	for _, o := range c.Objects() {
		if o.Database == name && o.Kind != Schema && o.Kind != Database {
			objs = append(objs, o)
		}
	}
	// Later ids depend only on earlier ones: drop in reverse id order.
	slices.Reverse(objs)
	for _, o := range c.Objects() {
		if o.Database == name && o.Kind == Schema {
			objs = append(objs, o)
		}
	}
	return &DropPlan{Objects: append(objs, c.objects[id])}, nil
}

// Remove deletes objects from the catalog (after they are dropped).
func (c *Catalog) Remove(objs []*Object) {
	for _, o := range objs {
		delete(c.objects, o.ID)
		if c.names[keyOf(o)] == o.ID {
			delete(c.names, keyOf(o))
		}
	}
}

// SchemaNamed returns schema name of database db, or nil.
func (c *Catalog) SchemaNamed(db, name string) *Object {
	if id, ok := c.names[nameKey{kind: Schema, database: db, name: name}]; ok {
		return c.objects[id]
	}
	return nil
}

// CreateSchema adds schema o (its Database and Name set); it fills in
// the id. A name taken is 42P06.
func (c *Catalog) CreateSchema(o *Object) (*Object, error) {
	id, ok := c.names[nameKey{kind: Database, name: o.Database}]
	if !ok {
		return nil, sqlerr.New(sqlerr.InvalidCatalogName, "database %q does not exist", o.Database)
	}
	if c.SchemaNamed(o.Database, o.Name) != nil {
		return nil, sqlerr.New(sqlerr.DuplicateSchema, "schema %q already exists", o.Name)
	}
	o.Kind, o.DependsOn = Schema, []uint64{id}
	return c.add(o), nil
}

// PlanDropSchema works out what DROP SCHEMA name [CASCADE] removes: the
// schema, and with CASCADE every object in it and every object that
// depends on one of those, dependents first. Without CASCADE a schema
// that holds objects is 2BP01.
func (c *Catalog) PlanDropSchema(db, name string, cascade bool) (*DropPlan, error) {
	sch := c.SchemaNamed(db, name)
	if sch == nil {
		return nil, sqlerr.New(sqlerr.InvalidSchemaName, "schema %q does not exist", name)
	}
	var in []*Object
	for _, o := range c.Objects() {
		if o.Database == db && o.Schema == name && o.Kind != Schema && o.Kind != Database {
			in = append(in, o)
		}
	}
	// A relation's own indexes and sequences go with it, unnamed.
	owned := func(o *Object) bool { return (o.Kind == Index || o.Kind == Sequence) && o.On != 0 }
	if len(in) > 0 && !cascade {
		var lines []string
		for _, o := range in {
			if !owned(o) {
				lines = append(lines, fmt.Sprintf("%s %s.%s depends on schema %s", o.Kind, o.Schema, o.Name, name))
			}
		}
		return nil, sqlerr.New(sqlerr.DependentObjectsStillExist, "cannot drop schema %s because other objects depend on it", name).
			WithDetail("%s", strings.Join(lines, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	plan := &DropPlan{}
	seen := map[uint64]bool{}
	var cascades []string
	// Later ids depend only on earlier ones: the newest first.
	for i := len(in) - 1; i >= 0; i-- {
		o := in[i]
		if seen[o.ID] || (o.Kind == Sequence && o.On != 0) {
			// A table's own sequence goes with the table.
			continue
		}
		sub, err := c.PlanDrop(o.Kind, o, true)
		if err != nil {
			return nil, err
		}
		for _, d := range sub.Objects {
			if !seen[d.ID] {
				seen[d.ID] = true
				plan.Objects = append(plan.Objects, d)
				if !owned(d) {
					cascades = append(cascades, fmt.Sprintf("drop cascades to %s %s.%s", d.Kind, d.Schema, d.Name))
				}
			}
		}
	}
	// PostgreSQL names them oldest first.
	slices.Reverse(cascades)
	plan.Objects = append(plan.Objects, sch)
	plan.noteCascades(cascades)
	return plan, nil
}

// noteCascades sets the plan's NOTICE for the objects a CASCADE drops
// beside its target, as PostgreSQL words it.
func (p *DropPlan) noteCascades(cascades []string) {
	switch len(cascades) {
	case 0:
	case 1:
		p.Notice = cascades[0]
	default:
		p.Notice = fmt.Sprintf("drop cascades to %d other objects", len(cascades))
		p.Detail = strings.Join(cascades, "\n")
	}
}

// Rename puts o, a changed copy of an object of the catalog with a new
// name (ALTER … RENAME TO), in the original's place and under its new
// name. A name another relation of the schema has is 42P07, and nothing
// changes.
func (c *Catalog) Rename(o *Object) error {
	old := c.objects[o.ID]
	if old == nil {
		return sqlerr.AssertionFailedf("rename of missing object %d", o.ID)
	}
	if id, dup := c.names[keyOf(o)]; dup && id != o.ID {
		return sqlerr.New(sqlerr.DuplicateTable, "relation %q already exists", o.Name)
	}
	delete(c.names, keyOf(old))
	c.names[keyOf(o)] = o.ID
	c.objects[o.ID] = o
	return nil
}

// PlanDropDependents works out what ALTER TABLE … DROP COLUMN … CASCADE
// removes beside the column: every object that depends on table t,
// directly or through another, dependents first, but not t and not the
// sequences t owns. The notice names the views and materialized views,
// as PostgreSQL's does; indexes go silently. It returns nil when t has
// no dependents.
func (c *Catalog) PlanDropDependents(t *Object) *DropPlan {
	var order []*Object
	visited := map[uint64]bool{t.ID: true}
	for _, d := range c.Dependents(t.ID) {
		if d.Kind == Sequence && d.On == t.ID {
			continue
		}
		order = c.dependentsFirst(d, visited, order)
	}
	if len(order) == 0 {
		return nil
	}
	plan := &DropPlan{Objects: order}
	var cascades []string
	for i := len(order) - 1; i >= 0; i-- {
		if o := order[i]; o.Kind != Index {
			cascades = append(cascades, fmt.Sprintf("drop cascades to %s %s", o.Kind, o.Name))
		}
	}
	plan.noteCascades(cascades)
	return plan
}

// dependentsFirst appends o and what depends on it, transitively, to
// order, each object after everything that depends on it (the order a
// drop takes them in), skipping and then marking the objects visited
// holds.
func (c *Catalog) dependentsFirst(o *Object, visited map[uint64]bool, order []*Object) []*Object {
	if visited[o.ID] {
		return order
	}
	visited[o.ID] = true
	for _, d := range c.Dependents(o.ID) {
		order = c.dependentsFirst(d, visited, order)
	}
	return append(order, o)
}
