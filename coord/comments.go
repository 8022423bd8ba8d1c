package coord

import (
	"context"
	"slices"

	"freshet/catalog"
	"freshet/planner"
	"freshet/repr"
	"freshet/sqlerr"
)

// comment runs COMMENT ON: the text is kept in the object's (or the
// column's) catalog record, durably, and shown by pg_description, hence
// by obj_description, col_description, psql's \d+ and \dt+, and the
// descriptions BI tools read. Only the owner may comment, as in
// PostgreSQL.
func (s *Session) comment(ctx context.Context, st *planner.Comment) (result, error) {
	if _, ok := s.resolveBuiltin(st.Name); ok || st.Name.Schema == pgCatalogSchema {
		return result{}, sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied: %q is a system catalog", st.Name.Name)
	}
	err := s.engine.changeCatalog(ctx, func(c *catalog.Catalog) ([]*catalog.Object, error) {
		o, err := s.lookup(c, st.Name)
		if err != nil {
			return nil, sqlerr.New(sqlerr.UndefinedTable, "relation %q does not exist", st.Name.Name)
		}
		if want, ok := map[planner.ObjectKind]catalog.Kind{planner.ObjectTable: catalog.Table, planner.ObjectView: catalog.View,
			planner.ObjectMaterializedView: catalog.MaterializedView, planner.ObjectIndex: catalog.Index,
			planner.ObjectSequence: catalog.Sequence}[st.Kind]; ok && st.Column == "" && o.Kind != want {
			return nil, sqlerr.New(sqlerr.WrongObjectType, "%q is not a %s", o.Name, want)
		}
		role, _ := s.sessionRole(c)
		if err := checkOwner(c, o, role); err != nil {
			return nil, err
		}
		r := *o
		if st.Column == "" {
			r.Comment = st.Text
			return []*catalog.Object{&r}, nil
		}
		i := slices.IndexFunc(o.Columns, func(col catalog.Column) bool { return col.Name == st.Column })
		if i < 0 || o.Kind == catalog.Index || o.Kind == catalog.Sequence {
			return nil, sqlerr.New(sqlerr.UndefinedColumn, "column %q of relation %q does not exist", st.Column, o.Name)
		}
		r.Columns = slices.Clone(o.Columns)
		r.Columns[i].Comment = st.Text
		return []*catalog.Object{&r}, nil
	})
	if err != nil {
		return result{}, err
	}
	return result{tag: st.Tag()}, nil
}

// pgDescriptionColumns are pg_description's columns, PostgreSQL 15's.
var pgDescriptionColumns = []planner.RelationColumn{
	col("objoid", oidType, false), col("classoid", oidType, false),
	col("objsubid", repr.Int4, false), col("description", repr.Text, false),
}

// pgClassOID is pg_class's OID, the classoid of a relation's comment.
const pgClassOID = 1259

// pgDescriptionRows are object o's comments: its own (objsubid 0) and
// its columns' (objsubid the column's number).
func pgDescriptionRows(_ *rowSource, o *catalog.Object) [][]string {
	if o == nil || !(o.Kind.IsRelation() || o.Kind == catalog.Index || o.Kind == catalog.Sequence) {
		return nil
	}
	var rows [][]string
	if o.Comment != "" {
		rows = append(rows, []string{sqlInt(relationOID(o.ID)), sqlInt(pgClassOID), "0", sqlText(o.Comment)})
	}
	for i, c := range o.Columns {
		if c.Comment != "" {
			rows = append(rows, []string{sqlInt(relationOID(o.ID)), sqlInt(pgClassOID), sqlInt(i + 1), sqlText(c.Comment)})
		}
	}
	return rows
}

func init() {
	generatedViews["pg_description"] = generatedView{columns: pgDescriptionColumns, rows: pgDescriptionRows}
}
