package storage

import "freshet/sqlerr"

// The SQLSTATEs storage produces beyond the common ones, named after
// PostgreSQL's condition names.
const (
	// codeIOError: a read, write or sync failed.
	codeIOError = sqlerr.IOError
	// codeLockFileExists: another server holds the data directory.
	codeLockFileExists = sqlerr.LockFileExists
	// codeAdminShutdown: the store was closed because the server is
	// shutting down.
	codeAdminShutdown = sqlerr.AdminShutdown
	// codeDataCorrupted: a stored key or value does not decode.
	codeDataCorrupted = sqlerr.DataCorrupted
)

// errClosed is returned by every method of a closed Store but Close.
var errClosed = sqlerr.New(codeAdminShutdown, "storage is closed")

// corruptf returns an XX001 data_corrupted error for a stored key or value
// that does not decode.
func corruptf(format string, args ...any) *sqlerr.Error {
	return sqlerr.New(codeDataCorrupted, format, args...)
}

// invalidf returns a 22023 invalid_parameter_value error for a request
// that breaks the API's contract; the store is unchanged.
func invalidf(format string, args ...any) *sqlerr.Error {
	return sqlerr.New(sqlerr.InvalidParameterValue, format, args...)
}

// ioError returns a 58030 io_error that wraps err, for an I/O failure.
func ioError(err error, format string, args ...any) *sqlerr.Error {
	return sqlerr.Wrapf(err, codeIOError, format, args...)
}
