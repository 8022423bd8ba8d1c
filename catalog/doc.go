// Package catalog is the SQL server's catalog: databases, schemas,
// tables, views, materialized views and indexes, their ids, names and
// dependencies.
//
// The catalog is a pure in-memory state machine. It validates a change
// and applies it; the coordinator makes the change durable (storage) and
// builds or drops dataflows (compute), in that order. Objects encode to
// bytes for storage with Encode and come back with Decode.
//
// # Invariants
//
//   - Ids increase and are never reused.
//   - Names are unique per (database, schema) across relations and
//     indexes, as in PostgreSQL, where indexes share the relation
//     namespace.
//   - An object's DependsOn names only objects that exist; DropPlan
//     orders every drop dependents-first, so no object outlives what it
//     reads.
//   - A table's unique keys (UniqueKeys) are its own PRIMARY KEY and
//     UNIQUE constraints plus one per unique index on it; a unique index
//     is only ever on a table, so dropping it (or the table) is what
//     removes its key. Key columns are positions in the table's columns.
//
// # Imports
//
// repr, expr (column types), sqlerr and the standard library.
package catalog
