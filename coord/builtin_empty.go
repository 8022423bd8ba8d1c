package coord

import (
	"fmt"
	"strings"

	"freshet/planner"
	"freshet/repr"
)

// emptyRelations are the pg_catalog relations Freshet has nothing to put
// in (no comments, enums, ranges, inheritance, policies, extensions,
// triggers, publications, role memberships, sequences, rules, foreign
// tables, partitions, event triggers, extended statistics, conversions)
// with PostgreSQL 15's columns, so that the catalog queries of psql,
// drivers and BI tools that join them run and find no rows. A column is
// "name:type", the type one of o (oid),
// t, n (name), h ("char"), b, c (int2), i (int4), l (int8), f (float4),
// z (timestamptz), or an
// array: O (of OIDs), T (of text; also aclitem[] and "char"[]), C (of
// int2), V (int2vector), W (oidvector).
var emptyRelations = map[string]string{
	"pg_shdescription":         "objoid:o classoid:o description:t",
	"pg_range":                 "rngtypid:o rngsubtype:o rngmultitypid:o rngcollation:o rngsubopc:o rngcanonical:t rngsubdiff:t",
	"pg_inherits":              "inhrelid:o inhparent:o inhseqno:i inhdetachpending:b",
	"pg_collation":             "oid:o collname:n collnamespace:o collowner:o collprovider:h collisdeterministic:b collencoding:i collcollate:t collctype:t colliculocale:t collversion:t",
	"pg_policy":                "oid:o polname:n polrelid:o polcmd:h polpermissive:b polroles:O polqual:t polwithcheck:t",
	"pg_extension":             "oid:o extname:n extowner:o extnamespace:o extrelocatable:b extversion:t extconfig:O extcondition:T",
	"pg_trigger":               "oid:o tgrelid:o tgparentid:o tgname:n tgfoid:o tgtype:c tgenabled:h tgisinternal:b tgconstrrelid:o tgconstrindid:o tgconstraint:o tgdeferrable:b tginitdeferred:b tgnargs:c tgattr:V tgargs:t tgqual:t tgoldtable:n tgnewtable:n",
	"pg_statistic_ext":         "oid:o stxrelid:o stxname:n stxnamespace:o stxowner:o stxstattarget:i stxkeys:V stxkind:T stxexprs:t",
	"pg_publication":           "oid:o pubname:n pubowner:o puballtables:b pubinsert:b pubupdate:b pubdelete:b pubtruncate:b pubviaroot:b",
	"pg_publication_rel":       "oid:o prpubid:o prrelid:o prqual:t prattrs:V",
	"pg_publication_namespace": "oid:o pnpubid:o pnnspid:o",
	"pg_auth_members":          "roleid:o member:o grantor:o admin_option:b",
	"pg_rewrite":               "oid:o rulename:n ev_class:o ev_type:h ev_enabled:h is_instead:b ev_qual:t ev_action:t",
	"pg_foreign_table":         "ftrelid:o ftserver:o ftoptions:T",
	"pg_partitioned_table":     "partrelid:o partstrat:h partnatts:c partdefid:o partattrs:V partclass:W partcollation:W partexprs:t",
	"pg_event_trigger":         "oid:o evtname:n evtevent:n evtowner:o evtfoid:o evtenabled:h evttags:T",
	"pg_conversion":            "oid:o conname:n connamespace:o conowner:o conforencoding:i contoencoding:i conproc:t condefault:b",
	"pg_tablespace":            "oid:o spcname:n spcowner:o spcacl:T spcoptions:T",
	// Freshet keeps no access statistics: a row per table and
	// materialized view, its counts zero (constRelationSQL).
	"pg_stat_user_tables": "relid:o schemaname:n relname:n seq_scan:l seq_tup_read:l idx_scan:l idx_tup_fetch:l n_tup_ins:l n_tup_upd:l n_tup_del:l n_tup_hot_upd:l n_live_tup:l n_dead_tup:l n_mod_since_analyze:l n_ins_since_vacuum:l last_vacuum:z last_autovacuum:z last_analyze:z last_autoanalyze:z vacuum_count:l autovacuum_count:l analyze_count:l autoanalyze_count:l",
}

// constRelationSQL are the queries of the relations of emptyRelations
// whose rows come from other catalog relations.
var constRelationSQL = map[string]string{
	"pg_stat_user_tables": "SELECT c.oid, n.nspname, c.relname, 0, 0, NULL, NULL, 0, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0, 0, 0 " +
		"FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'm')",
}

// constRelationRows are the rows of the relations of emptyRelations
// that are not empty, as lists of SQL values in the relation's column
// order: PostgreSQL's two tablespaces, and the collations it defines
// whatever the locale (default, C, POSIX; Freshet compares text in C
// order under every name).
var constRelationRows = map[string][][]string{
	"pg_tablespace": {
		{"1663", "'pg_default'", "10", "NULL", "NULL"},
		{"1664", "'pg_global'", "10", "NULL", "NULL"},
	},
	"pg_collation": {
		{"100", "'default'", "11", "10", "'d'", "true", "-1", "NULL", "NULL", "NULL", "NULL"},
		{"950", "'C'", "11", "10", "'c'", "true", "-1", "'C'", "'C'", "NULL", "NULL"},
		{"951", "'POSIX'", "11", "10", "'c'", "true", "-1", "'POSIX'", "'POSIX'", "NULL", "NULL"},
	},
}

func init() {
	types := map[string]repr.Type{"o": oidType, "t": repr.Text, "n": repr.Name, "h": repr.Char, "b": repr.Bool, "c": repr.Int2, "i": repr.Int4, "l": repr.Int8, "f": repr.Float4, "z": repr.TimestampTZ,
		"O": repr.ArrayOf(oidType), "T": textArray, "C": repr.ArrayOf(repr.Int2), "V": repr.Int2Vector, "W": repr.OIDVector}
	for name, spec := range emptyRelations {
		var cols []planner.RelationColumn
		var nulls, names []string
		for _, c := range strings.Fields(spec) {
			n, k, _ := strings.Cut(c, ":")
			t, ok := types[k]
			if !ok {
				panic(fmt.Sprintf("emptyRelations: %s.%s has type %q", name, n, k))
			}
			cols = append(cols, col(n, t, true))
			nulls = append(nulls, "NULL::"+t.Name())
			names = append(names, n)
		}
		sql := fmt.Sprintf("SELECT * FROM (VALUES (%s)) AS t (%s) WHERE false", strings.Join(nulls, ", "), strings.Join(names, ", "))
		if rows, ok := constRelationRows[name]; ok {
			sql = constRowsSQL(cols, rows)
		}
		if q, ok := constRelationSQL[name]; ok {
			sql = fmt.Sprintf("SELECT * FROM (%s) AS t (%s)", q, strings.Join(names, ", "))
		}
		builtinViews[name] = builtinView{columns: cols, sql: sql}
	}
}
