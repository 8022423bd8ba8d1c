package sqlerr

import "testing"

// TestCodes checks that every code constant is a well-formed SQLSTATE of
// the class its name says, and that no two names share a code.
func TestCodes(t *testing.T) {
	codes := []struct{ name, code, class string }{
		{"SuccessfulCompletion", SuccessfulCompletion, "00"},
		{"ConnectionFailure", ConnectionFailure, "08"},
		{"ProtocolViolation", ProtocolViolation, "08"},
		{"ConnectionDoesNotExist", ConnectionDoesNotExist, "08"},
		{"FeatureNotSupported", FeatureNotSupported, "0A"},
		{"CardinalityViolation", CardinalityViolation, "21"},
		{"StringDataRightTruncation", StringDataRightTruncation, "22"},
		{"NumericValueOutOfRange", NumericValueOutOfRange, "22"},
		{"NullValueNotAllowed", NullValueNotAllowed, "22"},
		{"InvalidDatetimeFormat", InvalidDatetimeFormat, "22"},
		{"DatetimeFieldOverflow", DatetimeFieldOverflow, "22"},
		{"InvalidTimeZoneDisplacement", InvalidTimeZoneDisplacement, "22"},
		{"DivisionByZero", DivisionByZero, "22"},
		{"IntervalFieldOverflow", IntervalFieldOverflow, "22"},
		{"CharacterNotInRepertoire", CharacterNotInRepertoire, "22"},
		{"InvalidParameterValue", InvalidParameterValue, "22"},
		{"InvalidTextRepresentation", InvalidTextRepresentation, "22"},
		{"BadCopyFileFormat", BadCopyFileFormat, "22"},
		{"NotNullViolation", NotNullViolation, "23"},
		{"ProgramLimitExceeded", ProgramLimitExceeded, "54"},
		{"StatementTooComplex", StatementTooComplex, "54"},
		{"IOError", IOError, "58"},
		{"LockFileExists", LockFileExists, "F0"},
		{"DataCorrupted", DataCorrupted, "XX"},
		{"UniqueViolation", UniqueViolation, "23"},
		{"ActiveSQLTransaction", ActiveSQLTransaction, "25"},
		{"CantChangeRuntimeParam", CantChangeRuntimeParam, "55"},
		{"NoActiveSQLTransaction", NoActiveSQLTransaction, "25"},
		{"ReadOnlySQLTransaction", ReadOnlySQLTransaction, "25"},
		{"InFailedSQLTransaction", InFailedSQLTransaction, "25"},
		{"IdleInTransactionSessionTimeout", IdleInTransactionSessionTimeout, "25"},
		{"InvalidSQLStatementName", InvalidSQLStatementName, "26"},
		{"InvalidAuthorizationSpecification", InvalidAuthorizationSpecification, "28"},
		{"InvalidPassword", InvalidPassword, "28"},
		{"DependentObjectsStillExist", DependentObjectsStillExist, "2B"},
		{"InvalidCursorName", InvalidCursorName, "34"},
		{"InvalidCatalogName", InvalidCatalogName, "3D"},
		{"InvalidSchemaName", InvalidSchemaName, "3F"},
		{"InsufficientPrivilege", InsufficientPrivilege, "42"},
		{"SyntaxError", SyntaxError, "42"},
		{"DuplicateColumn", DuplicateColumn, "42"},
		{"AmbiguousColumn", AmbiguousColumn, "42"},
		{"UndefinedColumn", UndefinedColumn, "42"},
		{"UndefinedObject", UndefinedObject, "42"},
		{"DuplicateObject", DuplicateObject, "42"},
		{"AmbiguousFunction", AmbiguousFunction, "42"},
		{"GroupingError", GroupingError, "42"},
		{"DatatypeMismatch", DatatypeMismatch, "42"},
		{"WrongObjectType", WrongObjectType, "42"},
		{"CannotCoerce", CannotCoerce, "42"},
		{"UndefinedFunction", UndefinedFunction, "42"},
		{"UndefinedTable", UndefinedTable, "42"},
		{"UndefinedParameter", UndefinedParameter, "42"},
		{"DuplicateDatabase", DuplicateDatabase, "42"},
		{"DuplicateSchema", DuplicateSchema, "42"},
		{"DuplicateTable", DuplicateTable, "42"},
		{"InvalidColumnReference", InvalidColumnReference, "42"},
		{"IndeterminateDatatype", IndeterminateDatatype, "42"},
		{"OutOfMemory", OutOfMemory, "53"},
		{"TooManyConnections", TooManyConnections, "53"},
		{"ObjectNotInPrerequisiteState", ObjectNotInPrerequisiteState, "55"},
		{"ObjectInUse", ObjectInUse, "55"},
		{"QueryCanceled", QueryCanceled, "57"},
		{"AdminShutdown", AdminShutdown, "57"},
		{"CrashShutdown", CrashShutdown, "57"},
		{"CannotConnectNow", CannotConnectNow, "57"},
		{"InternalError", InternalError, "XX"},
	}
	seen := map[string]string{}
	for _, c := range codes {
		if len(c.code) != 5 {
			t.Errorf("%s = %q: not five characters", c.name, c.code)
		}
		for _, r := range c.code {
			if !(r >= '0' && r <= '9' || r >= 'A' && r <= 'Z') {
				t.Errorf("%s = %q: character %q outside [0-9A-Z]", c.name, c.code, r)
			}
		}
		if c.code[:2] != c.class {
			t.Errorf("%s = %q: want class %s", c.name, c.code, c.class)
		}
		if other, dup := seen[c.code]; dup {
			t.Errorf("%s and %s share code %s", c.name, other, c.code)
		}
		seen[c.code] = c.name
	}
}
