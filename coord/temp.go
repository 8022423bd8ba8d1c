package coord

import (
	"context"
	"strconv"
	"strings"

	"freshet/catalog"
	"freshet/planner"
	"freshet/sqlerr"
)

// Temporary tables and views live in a schema of their session's,
// pg_temp_<pid>, made at its first temporary object, as PostgreSQL's
// do. The session reads through it first (a temporary table hides a
// permanent one of the same name) and as pg_temp. When the session ends,
// or at DISCARD TEMP or DISCARD ALL, the schema is dropped with
// everything in it through the engine's ordinary DROP ... CASCADE, so a
// temporary table's dataflow goes as any dropped table's does. A server
// that stopped with sessions open drops their schemas when it starts
// again (dropLeftoverTemp). While a temporary table lives its rows are
// written like any table's: durable, which PostgreSQL's are not.
//
// A view over a temporary relation is temporary too (with PostgreSQL's
// notice); a materialized view or an index over one is refused or made
// in the temporary schema respectively, as in PostgreSQL.

// tempSchemaPrefix begins the name of every session's temporary schema.
const tempSchemaPrefix = "pg_temp_"

// isTempSchema reports whether schema is a session's temporary schema.
func isTempSchema(schema string) bool { return strings.HasPrefix(schema, tempSchemaPrefix) }

// ensureTempSchema returns the session's temporary schema, creating it at
// the first temporary object.
func (s *Session) ensureTempSchema(ctx context.Context) (string, error) {
	if s.tempSchema != "" {
		return s.tempSchema, nil
	}
	name := tempSchemaPrefix + strconv.FormatUint(uint64(s.key.ProcessID), 10)
	err := s.engine.CreateSchema(ctx, &catalog.Object{Name: name, Database: s.database, Owner: s.ownerForNew()})
	if err != nil && sqlerr.Code(err) != sqlerr.DuplicateSchema {
		return "", err
	}
	s.tempSchema = name
	return name, nil
}

// tempName places a temporary object created as name in the session's
// temporary schema.
func (s *Session) tempName(ctx context.Context, name planner.QualifiedName) (planner.QualifiedName, error) {
	schema, err := s.ensureTempSchema(ctx)
	if err != nil {
		return name, err
	}
	name.Schema = schema
	return name, nil
}

// dropTemp drops the session's temporary schema and what is in it.
func (s *Session) dropTemp(ctx context.Context) error {
	if s.tempSchema == "" {
		return nil
	}
	name := s.tempSchema
	s.tempSchema = ""
	return s.engine.dropSchemas(ctx, func(o *catalog.Object) bool { return o.Database == s.database && o.Name == name })
}

// dropLeftoverTemp drops every temporary schema: at startup, those of
// sessions that were open when the server stopped.
func (e *Engine) dropLeftoverTemp(ctx context.Context) error {
	return e.dropSchemas(ctx, func(o *catalog.Object) bool { return isTempSchema(o.Name) })
}

// dropSchemas drops the schemas that match, with CASCADE.
func (e *Engine) dropSchemas(ctx context.Context, match func(*catalog.Object) bool) error {
	var schemas []*catalog.Object
	_ = e.Catalog(func(c *catalog.Catalog) error {
		for _, o := range c.Objects() {
			if o.Kind == catalog.Schema && match(o) {
				schemas = append(schemas, o)
			}
		}
		return nil
	})
	for _, sch := range schemas {
		_, err := e.Drop(ctx, func(c *catalog.Catalog) (*catalog.DropPlan, error) {
			if c.SchemaNamed(sch.Database, sch.Name) == nil {
				return nil, nil
			}
			return c.PlanDropSchema(sch.Database, sch.Name, true)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// readsTemp returns the first of reads in a temporary schema, if any.
func (s *Session) readsTemp(reads []planner.Read) (string, bool) {
	var name string
	_ = s.engine.Catalog(func(c *catalog.Catalog) error {
		for _, r := range reads {
			if o := c.Get(uint64(r.ID)); o != nil && isTempSchema(o.Schema) {
				name = o.Name
				return nil
			}
		}
		return nil
	})
	return name, name != ""
}
