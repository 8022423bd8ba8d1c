// Package chaos checks the engine's DDL, writes, failures and restarts
// together at the SQL level: several sessions issue random statements
// over a random graph of tables, views, materialized views and indexes,
// with injected operator failures, and between rounds the test stops
// them, checks the invariants below and sometimes restarts the engine,
// cleanly or as after kill -9.
//
// The test talks to coord sessions in-process, as the server's pgwire
// layer does after it decodes a message, rather than through pgx on
// loopback: every error is then seen as the sqlerr.Error the engine
// returned (a Go error without a SQLSTATE is caught, which the wire
// would hide by sending XX000), and a kill -9 is a crash clone of the
// in-memory filesystem, with no sockets left to tear down.
//
// # Invariants
//
//   - Every statement ends within a deadline, with success or an error
//     carrying a SQLSTATE; XX000 only once a fault was injected.
//   - Reads of a failed object give XX000 or 55000, and DROP of failed
//     objects succeeds.
//   - At each checkpoint every view and materialized view equals its
//     defining query run as a plain SELECT (multiset compare), and every
//     table equals the test's model of its acknowledged writes, after
//     a crash too.
//   - Engine.Audit reports that catalog and dataflows agree.
//   - Every restart opens; goroutines do not grow; after everything is
//     dropped the heap returns near its baseline.
//
// Choices are deterministic given the seed: each session draws from its
// own generator, so a replay issues the same statements in each session,
// though their interleaving, and so which of them fail, may differ.
//
//	go test ./tests/chaos/ -run TestChaos -v -chaos.seed=N -chaos.steps=20000
package chaos
