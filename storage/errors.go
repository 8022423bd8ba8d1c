package storage

import "freshet/sqlerr"

// errClosed is returned by every method of a closed Store but Close.
var errClosed = sqlerr.New(sqlerr.AdminShutdown, "storage is closed")

// corruptf returns an XX001 data_corrupted error for a stored key or value
// that does not decode.
func corruptf(format string, args ...any) *sqlerr.Error {
	return sqlerr.New(sqlerr.DataCorrupted, format, args...)
}

// invalidf returns a 22023 invalid_parameter_value error for a request
// that breaks the API's contract; the store is unchanged.
func invalidf(format string, args ...any) *sqlerr.Error {
	return sqlerr.New(sqlerr.InvalidParameterValue, format, args...)
}

// ioError returns a 58030 io_error that wraps err, for an I/O failure.
func ioError(err error, format string, args ...any) *sqlerr.Error {
	return sqlerr.Wrapf(err, sqlerr.IOError, format, args...)
}
