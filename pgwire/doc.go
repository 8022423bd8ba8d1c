// Package pgwire is the server side of the PostgreSQL frontend/backend
// protocol, version 3.0: what psql, JDBC, pgx, psycopg and the BI tools
// speak to the server.
//
// A Server accepts connections; for each, after the startup, it asks its
// Backend for a Session and then turns the client's messages into calls
// on that Session, and the Session's results into messages. session.go
// holds that interface: pgwire declares it, coord implements it, and
// pgwire never imports coord.
//
// # Glossary
//
//   - Frame: one message as read off the wire, a type byte and a body in
//     a buffer of its own (frame.go).
//   - Simple protocol: a Query message with zero or more statements;
//     results in text format; one ReadyForQuery at the end.
//   - Extended protocol: Parse (a prepared statement), Bind (a portal:
//     the statement with parameter values and result formats), Describe,
//     Execute (with a row limit), Close, and Sync, which ends a batch and
//     its implicit transaction.
//   - Batch: the messages up to a ReadyForQuery: one Query, or the
//     extended messages up to and including Sync.
//   - Text and binary format: the two encodings of a value on the wire.
//     Values cross the Session interface in text format only; pgwire
//     converts to and from binary with pgx's pgtype (format.go).
//   - Binary COPY: PostgreSQL's binary COPY format; BinaryCopy
//     (copy_binary.go) frames its tuples and converts their values with
//     format.go's conversions, for the session that runs the COPY.
//
// # Invariants
//
//   - Each connection has one goroutine that reads the client's messages
//     and calls its Session, one call at a time. While a message runs
//     past watchAfter, a watcher reads the socket ahead, bounded in bytes
//     (watch.go), so that a client that goes away cancels the context of
//     the running query; the goroutine stops it before it reads again.
//   - Output is buffered and written at the end of a batch
//     (ReadyForQuery), at Flush, before waiting for COPY data, on
//     Writer.Flush, and whenever the buffer passes flushThreshold; never
//     once per row.
//   - Every error reaches the client through errorResponse, which reads
//     the SQLSTATE from sqlerr.From and never guesses one.
//   - Malformed or unknown messages end the connection with a FATAL
//     08P01; a panic in a Session is recovered and reported as XX000, and
//     the connection stays usable. Neither stops the server or other
//     connections.
//   - After an error in the extended protocol, messages are discarded up
//     to Sync; portals are closed when their transaction ends.
//
// # Imports
//
// pgwire may import the standard library, github.com/jackc/pgx/v5
// (pgproto3 and pgtype), freshet/sqlerr and freshet/repr; never coord or
// anything above it. It uses no repr type today: values cross the
// Session interface as PostgreSQL text and types as OIDs, so that pgwire
// does not follow repr's changes.
package pgwire
