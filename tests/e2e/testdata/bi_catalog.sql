-- The catalog and session queries that BI tools and drivers send when
-- they connect and sync a database, written in our own words: each one
-- reads the same catalog relations and columns, calls the same
-- functions and has the same join shape and filters as the tool's
-- query it stands for (docs/catalog.md, "The tools' queries"), over the
-- schema in bi_catalog_schema.sql. TestBICatalog runs each and compares
-- its rows with bi_catalog.out, PostgreSQL 15's answer
-- (bi_catalog_regen.sh writes it).
--
-- A query starts at a line "-- query: NAME"; the comment lines after
-- it say which tool behaviour it stands for. Every query orders its
-- rows completely, and none orders by a user object's OID.

-- query: session_schema
-- the default schema a dialect or SQL editor asks for on connecting
SELECT current_schema() AS default_schema;

-- query: show_standard_strings
-- a dialect checking how backslashes in string literals are read
SHOW standard_conforming_strings;

-- query: show_search_path
-- a SQL editor reading the search path to pick its default schema
SHOW search_path;

-- query: show_date_style
-- a driver checking the date output style it parses
SHOW DateStyle;

-- query: show_time_zone
-- a BI tool reading the session time zone (lower-case spelling)
show timezone;

-- query: current_search_path
-- a dashboard's table picker reading the search path as a setting
SELECT pg_catalog.current_setting('search_path') AS path_setting;

-- query: set_config_search_path
-- a replayed dump setting the search path through set_config
SELECT pg_catalog.set_config('search_path', 'public', false) AS new_path;

-- query: server_version_major
-- a dashboard tool deriving the server's major version from a setting
SELECT (current_setting('server_version_num')::integer) / 100 AS major_x100;

-- query: table_privilege_probe
-- a BI tool probing one privilege on a qualified table name
SELECT has_table_privilege('public.customers', 'SELECT') AS can_read,
       has_table_privilege('public.orders', 'INSERT') AS can_insert;

-- query: format_type_builtins
-- format_type over built-in type OIDs and typmods, as describe commands print column types
SELECT v.type_oid, v.typmod, format_type(v.type_oid, v.typmod) AS printed
FROM (VALUES (23::oid, -1), (25::oid, -1), (1700::oid, 655366), (1700::oid, -1),
             (1184::oid, -1), (1043::oid, 54), (1007::oid, -1)) AS v (type_oid, typmod)
ORDER BY v.type_oid, v.typmod;

-- query: max_index_keys
-- a JDBC driver reading the index-key limit before listing foreign keys
SELECT s.setting AS key_limit
FROM pg_catalog.pg_settings AS s
WHERE s.name = 'max_index_keys';

-- query: get_expr_of_null
-- pg_get_expr on a NULL expression, as index and default lookups call it
SELECT pg_catalog.pg_get_expr(NULL, 0) IS NULL AS gives_null;

-- query: info_schema_user_tables
-- a generic information_schema listing of every table outside the system schemas
SELECT it.table_schema, it.table_name, it.table_type
FROM information_schema.tables AS it
WHERE it.table_schema NOT IN ('information_schema', 'pg_catalog')
ORDER BY it.table_schema, it.table_name;

-- query: bi_table_sync
-- the table list a BI tool syncs: relations of kind r, p, v, f, m in the
-- chosen schemas, with their comment and live-row estimate
SELECT ns.nspname AS schema_name,
       rel.relname AS rel_name,
       CASE rel.relkind
           WHEN 'r' THEN 'TABLE'
           WHEN 'p' THEN 'PARTITIONED TABLE'
           WHEN 'v' THEN 'VIEW'
           WHEN 'f' THEN 'FOREIGN TABLE'
           WHEN 'm' THEN 'MATERIALIZED VIEW'
       END AS rel_type,
       descr.description AS remarks,
       st.n_live_tup AS live_rows
FROM pg_catalog.pg_class rel
     JOIN pg_catalog.pg_namespace ns ON ns.oid = rel.relnamespace
     LEFT JOIN pg_catalog.pg_description descr
            ON descr.objoid = rel.oid AND descr.objsubid = 0
           AND descr.classoid = 'pg_catalog.pg_class'::regclass
     LEFT JOIN pg_catalog.pg_stat_user_tables st
            ON st.schemaname = ns.nspname AND st.relname = rel.relname
WHERE ns.nspname !~ '^pg_'
  AND ns.nspname <> 'information_schema'
  AND rel.relkind IN ('r', 'p', 'v', 'f', 'm')
  AND ns.nspname IN ('public')
ORDER BY rel_type, schema_name, rel_name;

-- query: bi_object_privileges
-- a BI tool's per-object privilege check over pg_tables, pg_views and
-- pg_matviews, with the column- and table-privilege functions
WITH objects (sch, obj) AS (
    SELECT schemaname, tablename FROM pg_catalog.pg_tables
    UNION
    SELECT schemaname, viewname FROM pg_catalog.pg_views
    UNION
    SELECT schemaname, matviewname FROM pg_catalog.pg_matviews
), quoted AS (
    SELECT sch, obj,
           '"' || replace(sch, '"', '""') || '"."' || replace(obj, '"', '""') || '"' AS qname
    FROM objects
    WHERE sch !~ '^pg_'
      AND sch <> 'information_schema'
      AND pg_catalog.has_schema_privilege(current_user, sch, 'usage')
)
SELECT sch, obj,
       pg_catalog.has_any_column_privilege(current_user, qname, 'select') AS may_select,
       pg_catalog.has_any_column_privilege(current_user, qname, 'insert') AS may_insert,
       pg_catalog.has_any_column_privilege(current_user, qname, 'update') AS may_update,
       pg_catalog.has_table_privilege(current_user, qname, 'delete') AS may_delete
FROM quoted
ORDER BY sch, obj;

-- query: bi_field_sync
-- a BI tool's field sync: information_schema columns with the primary
-- key marked through table_constraints and key_column_usage, the type
-- name through format(), the comment through col_description of a
-- regclass cast, plus materialized views' columns from pg_attribute
SELECT fld.column_name AS field,
       CASE WHEN fld.udt_schema IN ('public', 'pg_catalog') THEN format('%s', fld.udt_name)
            ELSE format('"%s"."%s"', fld.udt_schema, fld.udt_name) END AS db_type,
       fld.ordinal_position - 1 AS position,
       fld.table_schema AS tbl_schema,
       fld.table_name AS tbl,
       keycols.column_name IS NOT NULL AS is_pk,
       col_description(format('%I.%I', fld.table_schema::text, fld.table_name::text)::regclass::oid,
                       fld.ordinal_position) AS field_comment,
       (fld.column_default IS NULL OR lower(fld.column_default) = 'null')
         AND fld.is_nullable = 'NO'
         AND NOT ((fld.column_default IS NOT NULL AND fld.column_default LIKE '%nextval(%')
                  OR fld.is_identity <> 'NO') AS required,
       (fld.column_default IS NOT NULL AND fld.column_default LIKE '%nextval(%')
         OR fld.is_identity <> 'NO' AS auto_increment
FROM information_schema.columns fld
     LEFT JOIN (SELECT con.table_schema, con.table_name, use.column_name
                FROM information_schema.table_constraints con
                     JOIN information_schema.key_column_usage use
                       ON use.constraint_name = con.constraint_name
                      AND use.table_schema = con.table_schema
                      AND use.table_name = con.table_name
                WHERE con.constraint_type = 'PRIMARY KEY') keycols
            ON keycols.table_schema = fld.table_schema
           AND keycols.table_name = fld.table_name
           AND keycols.column_name = fld.column_name
WHERE fld.table_schema !~ '^information_schema|catalog_history|pg_'
  AND fld.table_schema IN ('public')
  AND fld.table_name IN ('orders', 'customers')
UNION ALL
SELECT att.attname,
       CASE WHEN tns.nspname IN ('public', 'pg_catalog') THEN format('%s', typ.typname)
            ELSE format('"%s"."%s"', tns.nspname, typ.typname) END,
       att.attnum - 1,
       rns.nspname,
       rel.relname,
       false, NULL, false, false
FROM pg_catalog.pg_class rel
     JOIN pg_catalog.pg_namespace rns ON rns.oid = rel.relnamespace
     JOIN pg_catalog.pg_attribute att ON att.attrelid = rel.oid
     JOIN pg_catalog.pg_type typ ON typ.oid = att.atttypid
     JOIN pg_catalog.pg_namespace tns ON tns.oid = typ.typnamespace
WHERE rel.relkind = 'm'
  AND att.attnum >= 1
  AND rns.nspname IN ('public')
  AND rel.relname IN ('totals')
ORDER BY tbl_schema, tbl, position;

-- query: bi_enum_types
-- a BI tool finding the enum types it should offer as categories
SELECT ns.nspname, ty.typname
FROM pg_type ty
     JOIN pg_namespace ns ON ty.typnamespace = ns.oid
WHERE ty.oid IN (SELECT DISTINCT en.enumtypid FROM pg_enum en)
ORDER BY 1, 2;

-- query: bi_foreign_keys
-- a BI tool's foreign-key sync: constraints of type f with both ends'
-- tables and columns matched through conkey and confkey
SELECT src_ns.nspname AS from_schema, src.relname AS from_table, src_col.attname AS from_column,
       dst_ns.nspname AS to_schema, dst.relname AS to_table, dst_col.attname AS to_column
FROM pg_constraint fk
     JOIN pg_class src ON src.oid = fk.conrelid
     JOIN pg_namespace src_ns ON src_ns.oid = fk.connamespace
     JOIN pg_attribute src_col ON src_col.attrelid = fk.conrelid
     JOIN pg_class dst ON dst.oid = fk.confrelid
     JOIN pg_namespace dst_ns ON dst_ns.oid = dst.relnamespace
     JOIN pg_attribute dst_col ON dst_col.attrelid = fk.confrelid
WHERE src_ns.nspname !~ '^information_schema|catalog_history|pg_'
  AND fk.contype = 'f'::"char"
  AND src_col.attnum = ANY (fk.conkey)
  AND dst_col.attnum = ANY (fk.confkey)
ORDER BY 1, 2, 3, 4, 5, 6;

-- query: bi_count_by_customer
-- a query builder's count grouped by a column, fully qualified and quoted
SELECT "public"."orders"."customer" AS "customer", count(*) AS "n_orders"
FROM "public"."orders"
GROUP BY "public"."orders"."customer"
ORDER BY "public"."orders"."customer";

-- query: bi_month_bucket
-- a query builder's month bucket of a timestamptz column
SELECT date_trunc('month', "public"."orders"."placed") AS "month", count(*) AS "n_orders"
FROM "public"."orders"
GROUP BY date_trunc('month', "public"."orders"."placed")
ORDER BY date_trunc('month', "public"."orders"."placed") NULLS LAST;

-- query: dash_timescale_probe
-- a dashboard tool probing for an extension's version
SELECT ext.extversion FROM pg_extension ext WHERE ext.extname = 'timescaledb';

-- query: dash_schema_picker
-- a dashboard's schema picker: information_schema.schemata without the system and extension schemas
SELECT sch.schema_name AS picked
FROM information_schema.schemata sch
WHERE sch.schema_name NOT IN ('information_schema', 'pg_catalog', 'pg_toast',
                              '_timescaledb_cache', '_timescaledb_catalog',
                              '_timescaledb_internal', '_timescaledb_config',
                              'timescaledb_information', 'timescaledb_experimental')
ORDER BY sch.schema_name;

-- query: dash_tables_in_schema
-- a dashboard's table picker for one schema, names through quote_ident
SELECT quote_ident(tb.table_name) AS picked
FROM information_schema.tables tb
WHERE quote_ident(tb.table_schema) = 'public'
ORDER BY 1;

-- query: dash_tables_on_path
-- a dashboard's table picker over every schema, names unqualified for
-- schemas on the search path (split with string_to_array and walked
-- with generate_series between array_lower and array_upper)
WITH path_items AS (
    SELECT CASE WHEN trim(parts[k]) = '"$user"' THEN user ELSE trim(parts[k]) END AS item
    FROM string_to_array(current_setting('search_path'), ',') AS parts,
         generate_series(array_lower(string_to_array(current_setting('search_path'), ','), 1),
                         array_upper(string_to_array(current_setting('search_path'), ','), 1)) AS k
)
SELECT CASE WHEN quote_ident(tb.table_schema) IN (SELECT item FROM path_items)
            THEN quote_ident(tb.table_name)
            ELSE quote_ident(tb.table_schema) || '.' || quote_ident(tb.table_name) END AS picked
FROM information_schema.tables tb
WHERE quote_ident(tb.table_schema) NOT IN ('information_schema', 'pg_catalog',
                                           '_timescaledb_cache', '_timescaledb_catalog',
                                           '_timescaledb_internal', '_timescaledb_config',
                                           'timescaledb_information', 'timescaledb_experimental')
ORDER BY CASE WHEN quote_ident(tb.table_schema) IN (SELECT item FROM path_items) THEN 0 ELSE 1 END, 1;

-- query: dash_column_picker
-- a dashboard's column picker for a possibly qualified table name, read with parse_ident
SELECT quote_ident(col.column_name) AS picked, col.data_type AS kind
FROM information_schema.columns col
WHERE CASE WHEN array_length(parse_ident('public.orders'), 1) = 2
           THEN quote_ident(col.table_schema) = (parse_ident('public.orders'))[1]
            AND quote_ident(col.table_name) = (parse_ident('public.orders'))[2]
           ELSE quote_ident(col.table_name) = 'public.orders'
      END
ORDER BY col.ordinal_position;

-- query: dash_hour_buckets
-- a dashboard panel's hourly buckets from epoch arithmetic, inside a time filter
SELECT floor(extract(epoch FROM o.placed) / 3600) * 3600 AS bucket, sum(o.amount) AS total
FROM orders o
WHERE o.placed BETWEEN '2024-01-01T00:00:00Z' AND '2024-12-31T23:59:59Z'
GROUP BY 1
ORDER BY 1;

-- query: explorer_catalogs
-- a data explorer listing non-template databases (here: whether the current one is among them)
SELECT bool_or(db.datname = current_database()) AS lists_current
FROM pg_database db
WHERE db.datistemplate = false;

-- query: explorer_cancel_nothing
-- a data explorer cancelling a query by backend pid, for a pid no session has
SELECT pg_terminate_backend(act.pid) AS ended
FROM pg_stat_activity act
WHERE act.pid = '0';

-- query: explorer_week_grain
-- a data explorer's weekly time grain
SELECT date_trunc('week', o.placed) AS week_start, count(*) AS n_orders
FROM orders o
GROUP BY date_trunc('week', o.placed)
ORDER BY n_orders DESC, week_start NULLS LAST;

-- query: explorer_datetime_filter
-- a data explorer's datetime filter built with to_timestamp and a format
SELECT count(*) AS matching
FROM orders o
WHERE o.placed >= to_timestamp('2024-02-01 00:00:00.000000', 'YYYY-MM-DD HH24:MI:SS.US');

-- query: editor_session_defaults
-- a SQL editor's default objects: database, schema and user of the session
SELECT current_database() = (SELECT d.datname FROM pg_database d WHERE d.datname = current_database()) AS db_found,
       current_schema() AS schema_name,
       session_user = current_user AS same_user;

-- query: editor_database_by_name
-- a SQL editor loading its database's row: not a template, connectable, by name
SELECT db.datname = current_database() AS found, db.datistemplate, db.datallowconn,
       pg_encoding_to_char(db.encoding) AS enc
FROM pg_catalog.pg_database db
WHERE NOT db.datistemplate AND db.datallowconn AND db.datname = current_database();

-- query: npgsql_type_loading
-- a .NET driver's type loading: pg_type with its receive function
-- (array_recv marks arrays), ranges and multiranges, domains' base
-- types and element types, for the types the schema's columns use
WITH kinds AS (
    SELECT ty.oid, ty.typnamespace, ty.typname, ty.typrelid, ty.typnotnull, cl.relkind,
           CASE WHEN rp.proname = 'array_recv' THEN 'a' ELSE ty.typtype END AS kind,
           CASE WHEN rp.proname = 'array_recv' THEN ty.typelem
                WHEN ty.typtype = 'r' THEN rg.rngsubtype
                WHEN ty.typtype = 'm' THEN (SELECT r2.rngtypid FROM pg_range r2 WHERE r2.rngmultitypid = ty.oid)
                WHEN ty.typtype = 'd' THEN ty.typbasetype
           END AS elem_oid
    FROM pg_type ty
         LEFT JOIN pg_class cl ON cl.oid = ty.typrelid
         LEFT JOIN pg_proc rp ON rp.oid = ty.typreceive
         LEFT JOIN pg_range rg ON rg.rngtypid = ty.oid
), user_columns AS (
    SELECT a.atttypid
    FROM pg_attribute a
         JOIN pg_class c ON c.oid = a.attrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND a.attnum > 0
), described AS (
    SELECT k.*, el.typname AS elem_name, elcl.relkind AS elem_relkind,
           CASE WHEN elp.proname = 'array_recv' THEN 'a' ELSE el.typtype END AS elem_kind
    FROM kinds k
         LEFT JOIN pg_type el ON el.oid = k.elem_oid
         LEFT JOIN pg_class elcl ON elcl.oid = el.typrelid
         LEFT JOIN pg_proc elp ON elp.oid = el.typreceive
)
SELECT ns.nspname, d.oid, d.typname, d.kind, d.typnotnull, d.elem_oid
FROM described d
     JOIN pg_namespace ns ON ns.oid = d.typnamespace
WHERE (d.kind IN ('b', 'r', 'm', 'e', 'd')
       OR (d.kind = 'c' AND d.relkind = 'c')
       OR (d.kind = 'p' AND d.typname IN ('record', 'void'))
       OR (d.kind = 'a' AND (d.elem_kind IN ('b', 'r', 'm', 'e', 'd')
                             OR (d.elem_kind = 'p' AND d.elem_name IN ('record', 'void'))
                             OR (d.elem_kind = 'c' AND d.elem_relkind = 'c'))))
  AND (d.oid IN (SELECT uc.atttypid FROM user_columns uc)
       OR (d.kind = 'a' AND d.elem_oid IN (SELECT uc.atttypid FROM user_columns uc)))
ORDER BY CASE WHEN d.kind IN ('b', 'e', 'p') THEN 0
              WHEN d.kind = 'r' THEN 1
              WHEN d.kind = 'm' THEN 2
              WHEN d.kind = 'c' THEN 3
              WHEN d.kind = 'd' AND d.elem_kind <> 'a' THEN 4
              WHEN d.kind = 'a' THEN 5
              WHEN d.kind = 'd' AND d.elem_kind = 'a' THEN 6
         END, d.typname;

-- query: npgsql_composite_fields
-- a .NET driver loading the fields of free-standing composite types
SELECT ty.oid, att.attname, att.atttypid
FROM pg_type ty
     JOIN pg_namespace ns ON ns.oid = ty.typnamespace
     JOIN pg_class cl ON cl.oid = ty.typrelid
     JOIN pg_attribute att ON att.attrelid = ty.typrelid
WHERE ty.typtype = 'c' AND cl.relkind = 'c'
  AND att.attnum > 0 AND NOT att.attisdropped
ORDER BY ty.typname, att.attnum;

-- query: npgsql_enum_labels
-- a .NET driver loading enum labels in their sort order
SELECT ty.typname, en.enumlabel
FROM pg_enum en
     JOIN pg_type ty ON ty.oid = en.enumtypid
ORDER BY ty.typname, en.enumsortorder;

-- query: jdbc_schemas
-- a JDBC driver's schema list: no toast schemas, and temp schemas only
-- the session's own, found through current_schemas(true)[1]
SELECT ns.nspname AS table_schem, NULL AS table_catalog
FROM pg_catalog.pg_namespace ns
WHERE ns.nspname <> 'pg_toast'
  AND (ns.nspname !~ '^pg_temp_' OR ns.nspname = (pg_catalog.current_schemas(true))[1])
  AND (ns.nspname !~ '^pg_toast_temp_'
       OR ns.nspname = replace((pg_catalog.current_schemas(true))[1], 'pg_temp_', 'pg_toast_temp_'))
  AND ns.nspname LIKE '%'
ORDER BY table_schem;

-- query: jdbc_tables_typed
-- a JDBC driver's table list for one schema and the table types a SQL
-- editor asks for, typed by relkind and schema class, with remarks
SELECT NULL AS table_cat, ns.nspname AS table_schem, rel.relname AS table_name,
       CASE WHEN ns.nspname ~ '^pg_' OR ns.nspname = 'information_schema' THEN
                CASE WHEN ns.nspname IN ('pg_catalog', 'information_schema') THEN
                         CASE rel.relkind WHEN 'r' THEN 'SYSTEM TABLE' WHEN 'v' THEN 'SYSTEM VIEW'
                                          WHEN 'i' THEN 'SYSTEM INDEX' END
                     WHEN ns.nspname = 'pg_toast' THEN
                         CASE rel.relkind WHEN 'r' THEN 'SYSTEM TOAST TABLE' WHEN 'i' THEN 'SYSTEM TOAST INDEX' END
                     ELSE
                         CASE rel.relkind WHEN 'r' THEN 'TEMPORARY TABLE' WHEN 'p' THEN 'TEMPORARY TABLE'
                                          WHEN 'i' THEN 'TEMPORARY INDEX' WHEN 'S' THEN 'TEMPORARY SEQUENCE'
                                          WHEN 'v' THEN 'TEMPORARY VIEW' END
                END
            ELSE
                CASE rel.relkind WHEN 'r' THEN 'TABLE' WHEN 'p' THEN 'PARTITIONED TABLE'
                                 WHEN 'i' THEN 'INDEX' WHEN 'P' THEN 'PARTITIONED INDEX'
                                 WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'c' THEN 'TYPE'
                                 WHEN 'f' THEN 'FOREIGN TABLE' WHEN 'm' THEN 'MATERIALIZED VIEW' END
       END AS table_type,
       descr.description AS remarks
FROM pg_catalog.pg_namespace ns,
     pg_catalog.pg_class rel
     LEFT JOIN pg_catalog.pg_description descr
            ON rel.oid = descr.objoid AND descr.objsubid = 0
           AND descr.classoid = 'pg_class'::regclass
WHERE rel.relnamespace = ns.oid
  AND ns.nspname LIKE 'public'
  AND rel.relname LIKE '%'
  AND ((rel.relkind IN ('r', 'p') AND ns.nspname !~ '^pg_' AND ns.nspname <> 'information_schema')
       OR (rel.relkind = 'v' AND ns.nspname NOT IN ('pg_catalog', 'information_schema'))
       OR rel.relkind IN ('f', 'm'))
ORDER BY table_type, table_schem, table_name;

-- query: jdbc_tables_by_name
-- a JDBC driver's table list with no schema pattern and no type filter,
-- for a table-name pattern: indexes come back too
SELECT ns.nspname AS table_schem, rel.relname AS table_name,
       CASE WHEN ns.nspname ~ '^pg_' OR ns.nspname = 'information_schema'
            THEN 'SYSTEM ' || rel.relkind::text
            ELSE CASE rel.relkind WHEN 'r' THEN 'TABLE' WHEN 'i' THEN 'INDEX' WHEN 'v' THEN 'VIEW'
                                  WHEN 'm' THEN 'MATERIALIZED VIEW' END
       END AS table_type,
       descr.description AS remarks
FROM pg_catalog.pg_namespace ns
     JOIN pg_catalog.pg_class rel ON rel.relnamespace = ns.oid
     LEFT JOIN pg_catalog.pg_description descr
            ON descr.objoid = rel.oid AND descr.objsubid = 0
           AND descr.classoid = 'pg_class'::regclass
WHERE rel.relname LIKE 'orders%'
ORDER BY table_type, table_schem, table_name;

-- query: jdbc_columns
-- a JDBC driver's column list: attributes numbered again with
-- row_number() over each relation, defaults through pg_get_expr,
-- comments joined with the pg_class entry of pg_class in pg_catalog
SELECT * FROM (
    SELECT ns.nspname, rel.relname, att.attname, att.atttypid,
           att.attnotnull OR (ty.typtype = 'd' AND ty.typnotnull) AS notnull,
           att.atttypmod, att.attlen, ty.typtypmod,
           row_number() OVER (PARTITION BY att.attrelid ORDER BY att.attnum) AS colno,
           nullif(att.attidentity, '') AS identity_kind,
           nullif(att.attgenerated, '') AS generated_kind,
           pg_catalog.pg_get_expr(dflt.adbin, dflt.adrelid) AS default_expr,
           descr.description,
           ty.typbasetype, ty.typtype
    FROM pg_catalog.pg_namespace ns
         JOIN pg_catalog.pg_class rel ON rel.relnamespace = ns.oid
         JOIN pg_catalog.pg_attribute att ON att.attrelid = rel.oid
         JOIN pg_catalog.pg_type ty ON ty.oid = att.atttypid
         LEFT JOIN pg_catalog.pg_attrdef dflt ON dflt.adrelid = att.attrelid AND dflt.adnum = att.attnum
         LEFT JOIN pg_catalog.pg_description descr ON descr.objoid = rel.oid AND descr.objsubid = att.attnum
         LEFT JOIN pg_catalog.pg_class dcl ON dcl.oid = descr.classoid AND dcl.relname = 'pg_class'
         LEFT JOIN pg_catalog.pg_namespace dns ON dns.oid = dcl.relnamespace AND dns.nspname = 'pg_catalog'
    WHERE rel.relkind IN ('r', 'p', 'v', 'f', 'm')
      AND att.attnum > 0 AND NOT att.attisdropped
      AND ns.nspname LIKE 'public'
      AND rel.relname LIKE '%'
) cols
WHERE cols.attname LIKE '%'
ORDER BY cols.nspname, cols.relname, cols.colno;

-- query: jdbc_primary_keys
-- a JDBC driver's primary-key columns, positions from _pg_expandarray over indkey
SELECT pk.tbl, pk.col, pk.key_seq, pk.pk_name
FROM (SELECT ct.relname AS tbl, att.attname AS col,
             (information_schema._pg_expandarray(ix.indkey)).n AS key_seq,
             ci.relname AS pk_name,
             information_schema._pg_expandarray(ix.indkey) AS expanded,
             att.attnum AS colnum
      FROM pg_catalog.pg_class ct
           JOIN pg_catalog.pg_attribute att ON att.attrelid = ct.oid
           JOIN pg_catalog.pg_namespace ns ON ns.oid = ct.relnamespace
           JOIN pg_catalog.pg_index ix ON ix.indrelid = att.attrelid
           JOIN pg_catalog.pg_class ci ON ci.oid = ix.indexrelid
      WHERE ns.nspname = 'public' AND ix.indisprimary) pk
WHERE pk.colnum = (pk.expanded).x
ORDER BY pk.tbl, pk.pk_name, pk.key_seq;

-- query: jdbc_index_info
-- a JDBC driver's index columns: one row per key position, the column
-- through pg_get_indexdef(index, position, false), the direction from
-- indoption's bit 1, the predicate through pg_get_expr
SELECT q.tbl, q.non_unique, q.index_name, q.kind, q.ordinal,
       trim(both '"' from pg_catalog.pg_get_indexdef(q.index_oid, q.ordinal, false)) AS column_name,
       CASE q.am WHEN 'btree' THEN CASE q.options[q.ordinal - 1] & 1::smallint WHEN 1 THEN 'D' ELSE 'A' END END AS direction,
       q.predicate
FROM (SELECT ct.relname AS tbl, NOT ix.indisunique AS non_unique, ci.relname AS index_name,
             CASE WHEN ix.indisclustered THEN 1 WHEN am.amname = 'hash' THEN 2 ELSE 3 END AS kind,
             (information_schema._pg_expandarray(ix.indkey)).n AS ordinal,
             pg_catalog.pg_get_expr(ix.indpred, ix.indrelid) AS predicate,
             ci.oid AS index_oid, ix.indoption AS options, am.amname AS am
      FROM pg_catalog.pg_class ct
           JOIN pg_catalog.pg_namespace ns ON ns.oid = ct.relnamespace
           JOIN pg_catalog.pg_index ix ON ix.indrelid = ct.oid
           JOIN pg_catalog.pg_class ci ON ci.oid = ix.indexrelid
           JOIN pg_catalog.pg_am am ON am.oid = ci.relam
      WHERE ns.nspname = 'public' AND ct.relname = 'orders') q
ORDER BY q.non_unique, q.kind, q.index_name, q.ordinal;

-- query: jdbc_type_info
-- a JDBC driver's type list: types outside pg_toast that are not a
-- relation's row type unless free-standing, here for the schema's column types
SELECT ty.typname, ty.oid
FROM pg_catalog.pg_type ty
     JOIN pg_catalog.pg_namespace ns ON ns.oid = ty.typnamespace
WHERE ns.nspname != 'pg_toast'
  AND (ty.typrelid = 0 OR (SELECT cl.relkind = 'c' FROM pg_catalog.pg_class cl WHERE cl.oid = ty.typrelid))
  AND ty.typname IN ('int4', 'text', 'numeric', 'timestamptz', 'int8', '_int4', '_text', '_numeric')
ORDER BY ty.typname;

-- query: jdbc_array_in
-- a JDBC driver telling array types by their input function, a regproc cast
SELECT ty.typname
FROM pg_catalog.pg_type ty
WHERE ty.typinput = 'pg_catalog.array_in'::regproc
  AND ty.typname IN ('_int4', '_text', '_numeric', 'int4', 'text')
ORDER BY 1;

-- query: jdbc_functions
-- a JDBC driver's function list for a schema, typed by its result
SELECT current_database() = current_database() AS cat_ok, ns.nspname AS fn_schema, fn.proname AS fn_name,
       descr.description AS remarks,
       CASE WHEN format_type(fn.prorettype, NULL) = 'unknown' THEN 0
            WHEN substring(pg_get_function_result(fn.oid) FROM 0 FOR 6) IN ('TABLE', 'SETOF') THEN 2
            ELSE 1 END AS fn_type
FROM pg_catalog.pg_proc fn
     JOIN pg_catalog.pg_namespace ns ON ns.oid = fn.pronamespace
     LEFT JOIN pg_catalog.pg_description descr ON descr.objoid = fn.oid
WHERE fn.prokind = 'f' AND ns.nspname LIKE 'public' AND fn.proname LIKE '%'
ORDER BY fn_schema, fn_name, fn.oid::text;

-- query: jdbc_table_privileges
-- a JDBC driver's table privileges: owner role and ACL of each relation
SELECT ns.nspname, rel.relname, ro.rolname, rel.relacl
FROM pg_catalog.pg_namespace ns, pg_catalog.pg_class rel, pg_catalog.pg_roles ro
WHERE rel.relnamespace = ns.oid
  AND rel.relowner = ro.oid
  AND rel.relkind IN ('r', 'p', 'v', 'm', 'f')
  AND ns.nspname LIKE 'public'
  AND rel.relname LIKE '%'
ORDER BY ns.nspname, rel.relname;

-- query: orm_hstore_probe
-- an ORM dialect's first-connect probe for an extension type's OIDs
SELECT ty.oid, ty.typarray
FROM pg_type ty
     JOIN pg_namespace ns ON ns.oid = ty.typnamespace
WHERE ty.typname = 'hstore';

-- query: orm_schema_names
-- an ORM inspector's schema names: those not starting with pg_
SELECT ns.nspname FROM pg_namespace ns WHERE ns.nspname NOT LIKE 'pg_%' ORDER BY ns.nspname;

-- query: orm_table_names
-- an ORM inspector's plain and partitioned tables of one schema
SELECT rel.relname
FROM pg_class rel
     JOIN pg_namespace ns ON ns.oid = rel.relnamespace
WHERE ns.nspname = 'public' AND rel.relkind IN ('r', 'p')
ORDER BY 1;

-- query: orm_view_names
-- an ORM inspector's views and materialized views of one schema
SELECT rel.relname
FROM pg_class rel
     JOIN pg_namespace ns ON ns.oid = rel.relnamespace
WHERE ns.nspname = 'public' AND rel.relkind IN ('v', 'm')
ORDER BY 1;

-- query: orm_table_oid
-- an ORM inspector finding a visible relation's OID by name before reflecting it
SELECT rel.oid
FROM pg_catalog.pg_class rel
     LEFT JOIN pg_catalog.pg_namespace ns ON ns.oid = rel.relnamespace
WHERE pg_catalog.pg_table_is_visible(rel.oid)
  AND rel.relname = 'orders'
  AND rel.relkind IN ('r', 'v', 'm', 'f', 'p');

-- query: orm_columns
-- an ORM inspector's columns: printed type, default through a correlated
-- pg_get_expr, comment, generated and identity options from pg_sequence
-- matched through pg_get_serial_sequence and regclass casts
SELECT att.attname,
       pg_catalog.format_type(att.atttypid, att.atttypmod) AS printed_type,
       (SELECT pg_catalog.pg_get_expr(df.adbin, df.adrelid)
        FROM pg_catalog.pg_attrdef df
        WHERE df.adrelid = att.attrelid AND df.adnum = att.attnum AND att.atthasdef) AS default_expr,
       att.attnotnull,
       att.attrelid::regclass AS owner_rel,
       descr.description AS remarks,
       att.attgenerated AS generated_kind,
       (SELECT json_build_object('always', att.attidentity = 'a', 'start', sq.seqstart,
                                 'increment', sq.seqincrement, 'cycle', sq.seqcycle)
        FROM pg_catalog.pg_sequence sq
             JOIN pg_catalog.pg_class sc ON sc.oid = sq.seqrelid
        WHERE sc.relkind = 'S'
          AND att.attidentity != ''
          AND sq.seqrelid = pg_catalog.pg_get_serial_sequence(att.attrelid::regclass::text, att.attname)::regclass::oid
       ) AS identity_options
FROM pg_catalog.pg_attribute att
     LEFT JOIN pg_catalog.pg_description descr ON descr.objoid = att.attrelid AND descr.objsubid = att.attnum
WHERE att.attrelid = 'public.orders'::regclass
  AND att.attnum > 0 AND NOT att.attisdropped
ORDER BY att.attnum;

-- query: orm_enums
-- an ORM inspector's enum types with their labels and visibility
SELECT ty.typname AS enum_name, pg_catalog.pg_type_is_visible(ty.oid) AS visible,
       ns.nspname AS enum_schema, en.enumlabel AS label
FROM pg_catalog.pg_type ty
     LEFT JOIN pg_catalog.pg_namespace ns ON ns.oid = ty.typnamespace
     LEFT JOIN pg_catalog.pg_enum en ON en.enumtypid = ty.oid
WHERE ty.typtype = 'e'
ORDER BY enum_schema, enum_name, en.enumsortorder;

-- query: orm_pk_columns
-- an ORM inspector's primary-key columns in key order, from unnest and
-- generate_subscripts over indkey side by side
SELECT att.attname
FROM pg_attribute att
     JOIN (SELECT unnest(ix.indkey) AS colnum, generate_subscripts(ix.indkey, 1) AS pos
           FROM pg_index ix
           WHERE ix.indrelid = 'orders'::regclass AND ix.indisprimary) keys
       ON keys.colnum = att.attnum
WHERE att.attrelid = 'orders'::regclass
ORDER BY keys.pos;

-- query: orm_pk_name
-- an ORM inspector's primary-key constraint name
SELECT con.conname
FROM pg_catalog.pg_constraint con
WHERE con.conrelid = 'orders'::regclass AND con.contype = 'p'
ORDER BY 1;

-- query: orm_foreign_keys
-- an ORM inspector's foreign keys with their definition and referenced schema
SELECT con.conname, pg_catalog.pg_get_constraintdef(con.oid, true) AS condef, ns.nspname AS conschema
FROM pg_catalog.pg_constraint con, pg_namespace ns, pg_class ref
WHERE con.conrelid = 'orders'::regclass
  AND con.contype = 'f'
  AND ref.oid = con.confrelid
  AND ns.oid = ref.relnamespace
ORDER BY 1;

-- query: orm_indexes
-- an ORM inspector's non-primary indexes: key columns matched with
-- = ANY(indkey), the owning constraint, indkey and indoption as text,
-- the access method and the predicate
SELECT idx.relname AS index_name, ix.indisunique, ix.indexprs, att.attname, att.attnum,
       con.conrelid::regclass AS constraint_rel, ix.indkey::varchar AS key_text,
       ix.indoption::varchar AS option_text, idx.reloptions, am.amname,
       pg_get_expr(ix.indpred, ix.indrelid) AS predicate, ix.indnkeyatts
FROM pg_class tbl
     JOIN pg_index ix ON ix.indrelid = tbl.oid
     JOIN pg_class idx ON idx.oid = ix.indexrelid
     LEFT JOIN pg_attribute att ON att.attrelid = tbl.oid AND att.attnum = ANY (ix.indkey)
     LEFT JOIN pg_constraint con
            ON con.conrelid = ix.indrelid AND con.conindid = ix.indexrelid
           AND con.contype IN ('p', 'u', 'x')
     LEFT JOIN pg_am am ON am.oid = idx.relam
WHERE tbl.relkind IN ('r', 'v', 'f', 'm', 'p')
  AND tbl.oid = 'orders'::regclass
  AND ix.indisprimary = 'f'
ORDER BY tbl.relname, idx.relname, att.attnum;

-- query: orm_unique_constraints
-- an ORM inspector's unique constraints with their key columns through = ANY(conkey)
SELECT con.conname, con.conkey, att.attnum, att.attname
FROM pg_catalog.pg_constraint con
     JOIN pg_attribute att ON att.attrelid = con.conrelid AND att.attnum = ANY (con.conkey)
WHERE con.conrelid = 'orders'::regclass AND con.contype = 'u'
ORDER BY con.conname, att.attnum;

-- query: orm_table_comment
-- an ORM inspector's table comment from pg_description
SELECT descr.description
FROM pg_catalog.pg_description descr
WHERE descr.objsubid = 0 AND descr.objoid = 'orders'::regclass;

-- query: orm_has_table
-- a dataframe library asking whether a visible relation of a name exists
select rel.relname
from pg_class rel join pg_namespace ns on ns.oid = rel.relnamespace
where pg_catalog.pg_table_is_visible(rel.oid) and rel.relname = 'orders';

-- query: orm_check_constraints
-- an ORM inspector's check constraints with their definition
SELECT con.conname, pg_get_constraintdef(con.oid) AS src
FROM pg_catalog.pg_constraint con
WHERE con.conrelid = 'customers'::regclass AND con.contype = 'c'
ORDER BY 1;

-- query: show_float_digits
-- a driver probing the float output precision
SHOW extra_float_digits;

-- query: show_statement_timeout
-- a session probe of the statement timeout
SHOW statement_timeout;
