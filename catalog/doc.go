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
//
// # Imports
//
// repr, expr (column types), sqlerr and the standard library.
package catalog
