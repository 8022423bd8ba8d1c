package sqlerr

// The SQLSTATE codes the project produces, named after PostgreSQL's
// condition names (Appendix A of the PostgreSQL manual). Add a code here
// before using it, so that every code in the project has one spelling.
const (
	// Class 00: successful completion. Code(nil) returns it.
	SuccessfulCompletion = "00000"

	// Class 08: connection exception. Pools treat the class as a dead
	// connection.
	ConnectionFailure      = "08006"
	ProtocolViolation      = "08P01"
	ConnectionDoesNotExist = "08003"

	// Class 0A: feature not supported.
	FeatureNotSupported = "0A000"

	// Class 21: cardinality violation.
	CardinalityViolation = "21000"

	// Class 22: data exception.
	StringDataRightTruncation       = "22001"
	NumericValueOutOfRange          = "22003"
	NullValueNotAllowed             = "22004"
	InvalidDatetimeFormat           = "22007"
	DatetimeFieldOverflow           = "22008"
	InvalidTimeZoneDisplacement     = "22009"
	DivisionByZero                  = "22012"
	IntervalFieldOverflow           = "22015"
	InvalidArgumentForNtile         = "22014"
	InvalidArgumentForNthValue      = "22016"
	InvalidPrecedingOrFollowingSize = "22013"
	SequenceGeneratorLimitExceeded  = "2200H"
	CharacterNotInRepertoire        = "22021"
	InvalidParameterValue           = "22023"
	BadCopyFileFormat               = "22P04"
	InvalidTextRepresentation       = "22P02"
	InvalidBinaryRepresentation     = "22P03"
	UntranslatableCharacter         = "22P05"
	InvalidEscapeSequence           = "22025"
	InvalidRegularExpression        = "2201B"
	SubstringError                  = "22011"
	InvalidRowCountInLimit          = "2201W"
	InvalidRowCountInOffset         = "2201X"
	InvalidArgumentForLog           = "2201E"
	InvalidArgumentForPower         = "2201F"

	// Class 23: integrity constraint violation.
	NotNullViolation = "23502"
	UniqueViolation  = "23505"

	// Class 25: invalid transaction state.
	ActiveSQLTransaction   = "25001"
	NoActiveSQLTransaction = "25P01"
	ReadOnlySQLTransaction = "25006"
	InFailedSQLTransaction = "25P02"
	// IdleInTransactionSessionTimeout ends a session left idle in a
	// transaction block past idle_in_transaction_session_timeout.
	IdleInTransactionSessionTimeout = "25P03"

	// Class 40: transaction rollback.
	SerializationFailure = "40001"

	// Class 0L: invalid grantor; 0LP01 is an invalid GRANT.
	InvalidGrantOperation = "0LP01"

	// Class 26: invalid SQL statement name (pgjdbc re-prepares on it).
	InvalidSQLStatementName = "26000"

	// Class 28: invalid authorization specification.
	InvalidAuthorizationSpecification = "28000"
	InvalidPassword                   = "28P01"

	// Class 2B: dependent privilege descriptors still exist.
	DependentObjectsStillExist = "2BP01"

	// Class 3B: savepoint exception.
	InvalidSavepointSpecification = "3B001"

	// Class 34: invalid cursor name.
	InvalidCursorName = "34000"

	// Class 3D and 3F: invalid catalog name, invalid schema name.
	InvalidCatalogName = "3D000"
	InvalidSchemaName  = "3F000"

	// Class 42: syntax error or access rule violation.
	GeneratedAlways            = "428C9"
	InsufficientPrivilege      = "42501"
	ReservedName               = "42939"
	SyntaxError                = "42601"
	DuplicateColumn            = "42701"
	AmbiguousColumn            = "42702"
	UndefinedColumn            = "42703"
	UndefinedObject            = "42704"
	DuplicateObject            = "42710"
	AmbiguousFunction          = "42725"
	DuplicateAlias             = "42712"
	DuplicateCursor            = "42P03"
	DuplicatePreparedStatement = "42P05"
	InvalidTableDefinition     = "42P16"
	InvalidRecursion           = "42P19"
	GroupingError              = "42803"
	DatatypeMismatch           = "42804"
	WrongObjectType            = "42809"
	CannotCoerce               = "42846"
	UndefinedFunction          = "42883"
	UndefinedTable             = "42P01"
	UndefinedParameter         = "42P02"
	DuplicateDatabase          = "42P04"
	DuplicateSchema            = "42P06"
	DuplicateTable             = "42P07"
	InvalidColumnReference     = "42P10"
	InvalidName                = "42602"
	WindowingError             = "42P20"
	IndeterminateDatatype      = "42P18"

	// Class 53: insufficient resources.
	DiskFull           = "53100"
	OutOfMemory        = "53200"
	TooManyConnections = "53300"

	// Class 54: program limit exceeded.
	ProgramLimitExceeded = "54000"
	StatementTooComplex  = "54001"
	TooManyArguments     = "54023"

	// Class 55: object not in prerequisite state.
	ObjectNotInPrerequisiteState = "55000"
	ObjectInUse                  = "55006"
	CantChangeRuntimeParam       = "55P02"
	LockNotAvailable             = "55P03"

	// Class 57: operator intervention. Pools evict and retry on 57P01.
	QueryCanceled    = "57014"
	AdminShutdown    = "57P01"
	CrashShutdown    = "57P02"
	CannotConnectNow = "57P03"

	// Class 58: system error (errors external to the server).
	IOError = "58030"

	// Class F0: configuration file error.
	LockFileExists = "F0001"

	// Class XX: internal error.
	InternalError = "XX000"
	DataCorrupted = "XX001"
)
