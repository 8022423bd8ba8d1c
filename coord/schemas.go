package coord

import (
	"context"
	"strconv"
	"strings"

	"freshet/catalog"
	"freshet/pgwire"
	"freshet/planner"
	"freshet/repr"
	"freshet/sqlerr"
)

// Schemas. Every database has public; CREATE SCHEMA adds others, and
// search_path decides where unqualified names are looked up and where
// new objects go, as in PostgreSQL: the built-in pg_catalog first, then
// the path's schemas that exist, in order ("$user" is the schema named
// like the session's user, if there is one).

// searchPath returns the schemas of the session's search_path, "$user"
// replaced by the user's name, pg_catalog and pg_temp left out (the
// built-ins are looked up first anyway).
func (s *Session) searchPath() []string {
	path := s.parsePath(s.settings["search_path"])
	if s.tempSchema != "" {
		// The temporary schema is searched first, as in PostgreSQL.
		path = append([]string{s.tempSchema}, path...)
	}
	return path
}

// parsePath reads a search_path value for the session (searchPath).
func (s *Session) parsePath(v string) []string {
	var path []string
	for _, part := range strings.Split(v, ",") {
		p := strings.TrimSpace(part)
		if unq, err := strconv.Unquote(p); err == nil && strings.HasPrefix(p, `"`) {
			p = unq
		} else {
			p = strings.ToLower(p)
		}
		switch p {
		case "", pgCatalogSchema, "pg_temp":
			continue
		case "$user":
			p = s.startup.User
		}
		path = append(path, p)
	}
	return path
}

// lookup returns the catalog object name denotes: in its schema, or the
// first one of the search path's schemas that holds one so named.
func (s *Session) lookup(c *catalog.Catalog, name planner.QualifiedName) (*catalog.Object, error) {
	return s.lookupIn(c, name, s.searchPath())
}

// lookupIn is lookup through the schemas of path.
func (s *Session) lookupIn(c *catalog.Catalog, name planner.QualifiedName, path []string) (*catalog.Object, error) {
	if name.Schema == "pg_temp" {
		// The session's temporary schema, by its alias.
		if s.tempSchema == "" {
			return nil, sqlerr.New(sqlerr.UndefinedTable, "relation %q does not exist", name.String())
		}
		name.Schema = s.tempSchema
	}
	if name.Schema != "" {
		return c.Resolve(s.database, name.Schema, name.Name)
	}
	for _, schema := range path {
		if o, err := c.Resolve(s.database, schema, name.Name); err == nil {
			return o, nil
		}
	}
	return nil, sqlerr.New(sqlerr.UndefinedTable, "relation %q does not exist", name.Name)
}

// schemaFor returns the schema an object created as name goes in: its
// own, or the first of the search path's schemas that exists (3F000 if
// none does).
func (s *Session) schemaFor(c *catalog.Catalog, name planner.QualifiedName) (string, error) {
	if name.Schema != "" {
		return name.Schema, nil
	}
	for _, schema := range s.searchPath() {
		// Only CREATE TEMPORARY creates in the temporary schema.
		if !isTempSchema(schema) && c.SchemaNamed(s.database, schema) != nil {
			return schema, nil
		}
	}
	return "", sqlerr.New(sqlerr.InvalidSchemaName, "no schema has been selected to create in")
}

// creationSchema is schemaFor under the engine's lock.
func (s *Session) creationSchema(name planner.QualifiedName) (string, error) {
	var schema string
	err := s.engine.Catalog(func(c *catalog.Catalog) error {
		var err error
		schema, err = s.schemaFor(c, name)
		return err
	})
	return schema, err
}

// currentSchema is current_schema(): the first of the search path's
// schemas that exists, or NULL.
func (s *Session) currentSchema() repr.Datum {
	var out repr.Datum
	s.engine.Catalog(func(c *catalog.Catalog) error {
		for _, schema := range s.searchPath() {
			if !isTempSchema(schema) && c.SchemaNamed(s.database, schema) != nil {
				out = repr.NewText(schema)
				return nil
			}
		}
		return nil
	})
	return out
}

// schemaOID is the OID of schema name of database db: public's is
// PostgreSQL's 2200 in every database, another's derives from its
// catalog id; 0 if there is none.
func schemaOID(c *catalog.Catalog, db, name string) uint64 {
	if name == catalog.DefaultSchema {
		return publicNamespaceOID
	}
	if sch := c.SchemaNamed(db, name); sch != nil {
		return relationOID(sch.ID)
	}
	return 0
}

func (s *Session) createSchema(ctx context.Context, st *planner.CreateSchema, w pgwire.Writer) (result, error) {
	if st.Name == pgCatalogSchema || st.Name == infoSchema || st.Name == systemSchema || strings.HasPrefix(st.Name, "pg_") {
		return result{}, sqlerr.New(sqlerr.ReservedName, "unacceptable schema name %q", st.Name).
			WithDetail("The prefix \"pg_\" is reserved for system schemas.")
	}
	var super bool
	s.engine.Catalog(func(c *catalog.Catalog) error {
		_, super = s.sessionRole(c)
		return nil
	})
	if !super {
		// CREATE on the database, which PostgreSQL 15 gives its owner
		// only: here, the built-in superuser.
		return result{}, sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied for database %s", s.database)
	}
	err := s.engine.CreateSchema(ctx, &catalog.Object{Name: st.Name, Database: s.database, Owner: s.ownerForNew()})
	if err != nil && st.IfNotExists && sqlerr.Code(err) == sqlerr.DuplicateSchema {
		w.Notice(sqlerr.New(sqlerr.DuplicateSchema, "schema %q already exists, skipping", st.Name).WithSeverity(sqlerr.SeverityNotice))
		err = nil
	}
	return result{tag: st.Tag()}, err
}

func (s *Session) dropSchema(ctx context.Context, st *planner.DropSchema, w pgwire.Writer) (result, error) {
	for _, name := range st.Names {
		if name == pgCatalogSchema || name == infoSchema || name == systemSchema {
			return result{}, sqlerr.New(sqlerr.DependentObjectsStillExist, "cannot drop schema %s because it is required by the database system", name)
		}
		var skipped bool
		plan, err := s.engine.Drop(ctx, func(c *catalog.Catalog) (*catalog.DropPlan, error) {
			skipped = false
			sch := c.SchemaNamed(s.database, name)
			if sch == nil && st.IfExists {
				skipped = true
				return nil, nil
			}
			if sch != nil {
				role, _ := s.sessionRole(c)
				if err := checkOwner(c, sch, role); err != nil {
					return nil, err
				}
			}
			return c.PlanDropSchema(s.database, name, st.Cascade)
		})
		if err != nil {
			return result{}, err
		}
		if skipped {
			w.Notice(sqlerr.New(sqlerr.InvalidSchemaName, "schema %q does not exist, skipping", name).WithSeverity(sqlerr.SeverityNotice))
		}
		if plan != nil && plan.Notice != "" {
			n := sqlerr.New(sqlerr.SuccessfulCompletion, "%s", plan.Notice).WithSeverity(sqlerr.SeverityNotice)
			if plan.Detail != "" {
				n = n.WithDetail("%s", plan.Detail)
			}
			w.Notice(n)
		}
	}
	return result{tag: st.Tag()}, nil
}

// CreateSchema adds a schema: a catalog record.
func (e *Engine) CreateSchema(ctx context.Context, o *catalog.Object) error {
	if err := e.mu.acquire(ctx); err != nil {
		return err
	}
	defer e.mu.Unlock()
	if _, err := e.cat.CreateSchema(o); err != nil {
		return err
	}
	if err := e.persistCatalog(ctx, []*catalog.Object{o}, nil); err != nil {
		e.cat.Remove([]*catalog.Object{o})
		return err
	}
	return e.catalogChangedLocked(ctx)
}

// pgNamespaceColumns are pg_namespace's columns.
var pgNamespaceColumns = []planner.RelationColumn{
	col("oid", oidType, false), col("nspname", repr.Name, false),
	col("nspowner", oidType, false), col("nspacl", textArray, true),
}

// pgNamespaceRows are object o's row of pg_namespace, if it is a schema;
// for o nil, the built-in schemas', which every database has.
func pgNamespaceRows(rs *rowSource, o *catalog.Object) [][]string {
	row := func(oid uint64, name string, owner uint64, acl string) []string {
		return []string{sqlInt(oid), sqlText(name), sqlInt(owner), acl}
	}
	switch {
	case o == nil:
		return [][]string{
			row(pgCatalogNamespaceOID, pgCatalogSchema, bootstrapRoleOID, sqlNull),
			row(infoSchemaNamespaceOID, infoSchema, bootstrapRoleOID, sqlNull),
		}
	case o.Kind == catalog.Schema:
		return [][]string{row(schemaOID(rs.c, o.Database, o.Name), o.Name, roleOID(rs.c, o.OwnerName()), sqlTextArray(o.ACLItems()))}
	}
	return nil
}

func init() {
	generatedViews["pg_namespace"] = generatedView{columns: pgNamespaceColumns, rows: pgNamespaceRows}
}

// storedPath is the search path a view or index the session creates
// keeps (catalog.Object.SearchPath): empty for the default.
func (s *Session) storedPath() string {
	if v := s.settings["search_path"]; v != defaultSettings(pgwire.Startup{})["search_path"] {
		return v
	}
	return ""
}
