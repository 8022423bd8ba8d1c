package pgwire

import (
	"context"
	"io"
	"net"

	"freshet/sqlerr"
)

// This file is the contract between pgwire and the layer that runs SQL
// (coord). pgwire speaks the protocol: it frames and decodes messages,
// owns the names of prepared statements and portals and their lifetimes,
// converts parameters and results between the text and binary formats,
// and decides what goes on the wire and when. The Backend and its
// Sessions plan and run statements, keep the transaction state and the
// session's settings, and produce values in PostgreSQL's text format.
//
// Calling discipline: pgwire calls the methods of one Session, and of
// the Statements and Portals it returned, from one goroutine, one at a
// time. Backend methods may be called concurrently, for different
// connections. A Writer or QueryWriter is valid only during the call it
// was passed to.
//
// Contexts: the ctx passed to Parse, Bind, Execute, Query and Sync is the
// connection's. It is canceled when the client goes away (a vanished
// client is noticed while a statement runs) and when the server shuts
// down, in which case context.Cause(ctx) is a FATAL 57P01 *sqlerr.Error
// `terminating connection due to administrator command` that the session
// may return as it is. It is not canceled per statement: a CancelRequest
// reaches the session through Backend.Cancel, and the session cancels
// its running statement itself.
//
// Errors: every error a Session returns reaches the client through
// sqlerr.From, so it should carry a SQLSTATE (sqlerr.New where it is
// born). An error whose Severity is FATAL is sent and then ends the
// connection. A panic in any of these methods is recovered by pgwire and
// reported as XX000; the connection stays open.

// Backend creates the sessions of new connections and cancels their
// running queries. coord implements it.
type Backend interface {
	// NewSession creates the session for a connection whose client sent
	// the startup parameters s, after authentication. It may refuse with
	// an error, which the client receives as a FATAL ErrorResponse in
	// PostgreSQL's wording (for example 3D000 `database "x" does not
	// exist`) before the connection is closed.
	//
	// ctx is canceled when the connection ends, however it ends (the
	// client terminates or vanishes, or the server shuts down); a session
	// may tie goroutines or subscriptions to it.
	NewSession(ctx context.Context, s Startup) (Session, error)

	// Cancel asks the session whose cancel key is key to cancel the query
	// it is running, if any. It is called for a CancelRequest, which
	// arrives on a new connection and gets no reply, so Cancel returns
	// nothing: a key that matches no session, or a session that is idle,
	// is ignored. The canceled query should fail with 57014 `canceling
	// statement due to user request`.
	Cancel(key CancelKey)
}

// Startup is what a client said about itself in its StartupMessage.
type Startup struct {
	// User is the user name; never empty (pgwire refuses a startup
	// without one, as PostgreSQL does).
	User string
	// Database is the database name. It is User when the client sent
	// none, as in PostgreSQL.
	Database string
	// ApplicationName is the application_name parameter, or empty.
	ApplicationName string
	// Options is the raw options parameter, such as "-c search_path=x",
	// or empty. Parsing it is the session's business.
	Options string
	// Params holds every parameter the client sent, including the ones
	// above. Clients send settings here (client_encoding, DateStyle,
	// TimeZone, extra_float_digits, search_path, ...) that PostgreSQL
	// applies as if by SET. pgwire does not interpret them.
	Params map[string]string
	// RemoteAddr is the client's address.
	RemoteAddr net.Addr
}

// CancelKey identifies a session to CancelRequests: the process id and
// secret key of BackendKeyData. In protocol 3.0 both are 32 bits.
type CancelKey struct {
	ProcessID uint32
	Secret    uint32
}

// TxStatus is the transaction status that ReadyForQuery reports.
type TxStatus byte

// The transaction statuses, with the bytes the protocol uses.
const (
	// TxIdle: not in a transaction block.
	TxIdle TxStatus = 'I'
	// TxInBlock: in a transaction block (after BEGIN).
	TxInBlock TxStatus = 'T'
	// TxFailed: in a failed transaction block; statements are refused
	// until ROLLBACK.
	TxFailed TxStatus = 'E'
)

// Session is the server side of one client connection: it parses, plans
// and runs statements, and keeps the transaction state and the settings.
// coord implements it.
//
// Transactions. Every statement that runs outside a transaction block
// runs in an implicit transaction. For the simple protocol, the implicit
// transaction is one Query message (all its statements, unless they
// contain BEGIN, COMMIT or ROLLBACK) and is the session's business
// inside Query. For the extended protocol it spans every message up to
// and including the next Sync, at which pgwire calls Sync.
type Session interface {
	// CancelKey returns the key that CancelRequests for this session
	// carry; pgwire sends it as BackendKeyData. It must not change.
	CancelKey() CancelKey

	// Parameters returns the current values of the settings the client
	// must hear about (ParameterStatus): server_version, client_encoding,
	// DateStyle, TimeZone, application_name, and so on. pgwire sends them
	// all at startup, filling in DefaultParameters for any name the map
	// lacks, and after each statement batch it sends those whose value
	// changed, before ReadyForQuery (as PostgreSQL 15 does), so a SET
	// needs no other signal. The map is not modified by pgwire.
	Parameters() map[string]string

	// TxStatus returns the transaction status for ReadyForQuery. pgwire
	// also uses it for the lifetime of portals: when the status becomes
	// TxIdle, the transaction has ended and every portal is closed.
	TxStatus() TxStatus

	// Parse parses and analyzes one statement for the extended protocol.
	// sql holds at most one statement (an empty or comment-only string is
	// the empty statement, whose Execute completes with an empty Tag);
	// several statements are an error (42601 `cannot insert multiple
	// commands into a prepared statement`). paramOIDs are the parameter
	// types the client specified, possibly fewer than the statement has;
	// 0 means unspecified. The Statement must report a concrete type for
	// every parameter.
	Parse(ctx context.Context, sql string, paramOIDs []uint32) (Statement, error)

	// Query runs a simple Query message: sql may hold zero or more
	// statements separated by semicolons. Each statement that runs reports
	// its result through w (Describe, rows, Complete), in order; the first
	// error ends the message and is returned. Results are in text format.
	// If Query returns nil without completing any statement, pgwire
	// answers EmptyQueryResponse.
	Query(ctx context.Context, sql string, w QueryWriter) error

	// Sync ends the extended protocol's implicit transaction, if one is
	// open: it commits it, or rolls it back if failed. failed reports
	// whether an error (the session's or pgwire's) was sent since the
	// previous Sync; in a transaction block such an error makes the block
	// failed. An error returned by Sync is sent before ReadyForQuery.
	Sync(ctx context.Context, failed bool) error

	// LookupType describes the catalog type with OID oid (TypeLookup).
	// pgwire asks, at Bind, for a parameter or result that the client
	// sends or wants in the binary format and whose OID is not one of
	// PostgreSQL's built-in types; it keeps the answer for the rest of
	// the connection, so an OID must never denote another type later.
	LookupType(oid uint32) (CatalogType, bool)

	// Close releases the session. pgwire calls it once, when the
	// connection ends, after closing every portal and statement.
	Close()
}

// Statement is a parsed statement: a protocol-level prepared statement,
// named or unnamed. pgwire owns its name and lifetime.
type Statement interface {
	// ParamOIDs returns the type OID of each parameter ($1, $2, ...), all
	// concrete: ParameterDescription sends them, and Bind converts binary
	// parameters by them.
	ParamOIDs() []uint32

	// Columns returns the result columns, or nil for a statement that
	// returns no rows (pgwire then answers Describe with NoData).
	Columns() []Column

	// Bind creates a portal: the statement with its parameter values.
	// params has one value per ParamOIDs entry, in text format (binary
	// parameters have been converted), nil for NULL. pgwire does not keep
	// params after Bind returns, nor does it modify them.
	Bind(ctx context.Context, params [][]byte) (Portal, error)

	// Close releases the statement. Portals bound from it stay valid
	// until they are closed themselves.
	Close()
}

// Portal is a statement ready to run, with its parameters: a
// protocol-level portal, named or unnamed. pgwire owns its name and
// lifetime: the unnamed portal is replaced by the next Bind to it, and
// every portal is closed when the transaction ends.
type Portal interface {
	// Execute runs the portal, or resumes it, sending its rows to w. If
	// maxRows is positive and more than maxRows rows remain, Execute sends
	// exactly maxRows and returns a Completion with Suspended set; a later
	// Execute resumes after the last row sent. Otherwise it runs to the
	// end and returns the command tag. Executing a portal that has
	// completed again returns the same kind of tag with no rows
	// ("SELECT 0").
	Execute(ctx context.Context, maxRows int, w Writer) (Completion, error)

	// Close releases the portal, whether or not it ran to completion.
	Close()
}

// Completion says how a portal's Execute ended.
type Completion struct {
	// Tag is the command tag of a completed statement, such as
	// "SELECT 3", "INSERT 0 1", "CREATE TABLE", "COPY 5". An empty Tag
	// with Suspended unset means the statement was empty, which pgwire
	// answers with EmptyQueryResponse.
	Tag string
	// Suspended reports that Execute stopped at its row limit with rows
	// left; pgwire answers PortalSuspended and Tag is ignored.
	Suspended bool
}

// Column describes one result column, as RowDescription sends it.
type Column struct {
	// Name is the column's name, "?column?" for an unnamed expression.
	Name string
	// TableOID and ColumnNumber identify the table column the result
	// column comes straight from (pg_class.oid, pg_attribute.attnum), or
	// are zero. Some clients look up column metadata with them.
	TableOID     uint32
	ColumnNumber int16
	// TypeOID is the PostgreSQL type OID (pg_type.oid): 23 for int4, 25
	// for text, 1184 for timestamptz, and so on.
	TypeOID uint32
	// TypeSize is pg_type.typlen: the fixed size of the type in bytes, or
	// -1 for variable-length types. 0 means "look it up": pgwire fills in
	// the size of the built-in types it knows and -1 for others.
	TypeSize int16
	// TypeModifier is pg_attribute.atttypmod, -1 when the type has none
	// (most columns). It is never 0 by default: timestamp(0) has typmod 0.
	TypeModifier int32
}

// CatalogType describes a type whose OID the catalog gave out (an enum
// type, the array type over one), which pgwire cannot know by its OID as
// it knows PostgreSQL's built-in types. The zero value describes no type.
type CatalogType struct {
	// Name is the type's name (pg_type.typname), for error messages.
	Name string
	// TextIsBinary reports a type whose binary format is its text, as an
	// enum's is (its label's bytes).
	TextIsBinary bool
	// Elem is the OID of an array type's element type, 0 for a type that
	// is not an array. The array's binary format is PostgreSQL's
	// array_send layout, whose elements are in their type's binary
	// format.
	Elem uint32
}

// TypeLookup returns the description of the catalog type with OID oid,
// and false if the catalog defines no type with that OID.
type TypeLookup func(oid uint32) (CatalogType, bool)

// Writer receives what a running statement sends to the client: rows,
// notices, and the data of COPY. It encodes and buffers them; pgwire
// flushes the buffer when it fills, when the statement batch ends, or on
// Flush. Its methods return an error when the connection has failed, in
// which case the statement should stop.
type Writer interface {
	// Row sends one row of the current result. values has one entry per
	// result column, in PostgreSQL's text output format, nil for NULL (an
	// empty, non-nil slice is the empty string). pgwire converts a value
	// to binary when the client asked for binary results. Row does not
	// keep values after it returns.
	Row(values [][]byte) error

	// Notice sends a NoticeResponse with n's Severity, Code, Message,
	// Detail and Hint. A severity of WARNING, NOTICE, INFO, LOG or DEBUG
	// is sent as it is; any other, such as the ERROR that sqlerr.New
	// sets, is sent as NOTICE.
	Notice(n *sqlerr.Error) error

	// Flush sends everything buffered so far. Statements that stream
	// without end (SUBSCRIBE through COPY TO STDOUT) call it after each
	// batch of changes so that the client sees them at once.
	Flush() error

	// CopyIn starts COPY FROM STDIN: pgwire sends CopyInResponse and
	// flushes, and the returned reader yields the bytes of the client's
	// CopyData messages, io.EOF at CopyDone, and an error with SQLSTATE
	// 57014 at CopyFail (`COPY from stdin failed: ...`). If the statement
	// returns successfully before io.EOF, pgwire discards the rest of the
	// data up to CopyDone. The reader is valid during the statement only.
	CopyIn(f CopyFormat) (io.Reader, error)

	// CopyOut starts COPY TO STDOUT: pgwire sends CopyOutResponse, and
	// each Write to the returned writer sends one CopyData message with
	// the bytes written (COPY's own row format is the session's). pgwire
	// sends CopyDone when the statement completes successfully.
	CopyOut(f CopyFormat) (io.Writer, error)
}

// CopyFormat is the format of a COPY's data, as CopyInResponse and
// CopyOutResponse announce it.
type CopyFormat struct {
	// Binary reports binary COPY format; otherwise text (or CSV).
	Binary bool
	// Columns is the number of columns of the copied rows.
	Columns int
}

// QueryWriter is the Writer of a simple Query message, which may run
// several statements: each statement's result starts with Describe (if
// it returns rows) and ends with Complete.
type QueryWriter interface {
	Writer

	// Describe starts the result of a statement that returns rows
	// (RowDescription, text format). A statement that returns no rows
	// (INSERT, CREATE, SET) does not call it.
	Describe(columns []Column) error

	// Complete ends the current statement's result with its command tag
	// (CommandComplete), after CopyDone if the statement was a COPY TO
	// STDOUT.
	Complete(tag string) error
}
