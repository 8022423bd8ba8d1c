package expr

// UnaryFunc is a function of one argument.
type UnaryFunc uint8

// The unary functions.
const (
	// Not is logical negation; NOT NULL is NULL.
	Not UnaryFunc = iota + 1
	// Neg is arithmetic negation.
	Neg
	// IsNull is TRUE for NULL, else FALSE; never NULL.
	IsNull
	// IsTrue is TRUE only for TRUE; never NULL (x IS TRUE).
	IsTrue
	// IsFalse is TRUE only for FALSE; never NULL (x IS FALSE).
	IsFalse
	// Abs is the absolute value.
	Abs
	// Lower, Upper and Length act on text (Length counts characters).
	Lower
	Upper
	Length
	// Floor and Ceil round float8 or numeric down and up.
	Floor
	Ceil
	// OctetLength counts a text's bytes; ASCII is the code of its first
	// character (0 for ""); Chr is the character of a code (int4).
	OctetLength
	ASCII
	Chr
)

var unaryNames = map[UnaryFunc]string{Not: "not", Neg: "-", IsNull: "isnull", IsTrue: "istrue", IsFalse: "isfalse", Abs: "abs",
	Lower: "lower", Upper: "upper", Length: "length", Floor: "floor", Ceil: "ceil",
	OctetLength: "octet_length", ASCII: "ascii", Chr: "chr"}

func (f UnaryFunc) String() string { return unaryNames[f] }

// propagatesNull reports whether f of NULL is NULL.
func (f UnaryFunc) propagatesNull() bool {
	switch f {
	case IsNull, IsTrue, IsFalse:
		return false
	}
	return true
}

// BinaryFunc is a function of two arguments.
type BinaryFunc uint8

// The binary functions. Comparisons take operands of one type (the
// planner casts them) and are NULL when either operand is NULL.
const (
	Add BinaryFunc = iota + 1
	Sub
	Mul
	Div
	Mod
	Eq
	NotEq
	Lt
	Lte
	Gt
	Gte
	// And and Or use SQL's three-valued logic: FALSE AND NULL is FALSE,
	// TRUE OR NULL is TRUE.
	And
	Or
	// Concat is text || text.
	Concat
	// IsDistinctFrom is like NotEq but NULL-safe: never NULL.
	IsDistinctFrom
	// IsNotDistinctFrom is like Eq but NULL-safe: never NULL.
	IsNotDistinctFrom
	// Like is text LIKE pattern: % matches any run, _ any one character,
	// backslash escapes the next character. ILike ignores case.
	Like
	ILike
	// Regex is text ~ pattern: whether a PostgreSQL regular expression
	// matches anywhere in the text. RegexI (~*) ignores case.
	Regex
	RegexI
	// The bitwise operators of the integer types (bits.go): & | # of
	// operands of one type, and << >> of an integer by an int4 count.
	BitAnd
	BitOr
	BitXor
	ShiftLeft
	ShiftRight
)

var binaryNames = map[BinaryFunc]string{
	Add: "+", Sub: "-", Mul: "*", Div: "/", Mod: "%", Eq: "=", NotEq: "<>",
	Lt: "<", Lte: "<=", Gt: ">", Gte: ">=", And: "AND", Or: "OR", Concat: "||",
	IsDistinctFrom: "IS DISTINCT FROM", IsNotDistinctFrom: "IS NOT DISTINCT FROM",
	Like: "LIKE", ILike: "ILIKE", Regex: "~", RegexI: "~*",
	BitAnd: "&", BitOr: "|", BitXor: "#", ShiftLeft: "<<", ShiftRight: ">>",
}

func (f BinaryFunc) String() string { return binaryNames[f] }

// IsComparison reports whether f compares its operands to a boolean.
func (f BinaryFunc) IsComparison() bool {
	switch f {
	case Eq, NotEq, Lt, Lte, Gt, Gte, IsDistinctFrom, IsNotDistinctFrom, Like, ILike, Regex, RegexI:
		return true
	}
	return false
}

// VariadicFunc is a function of any number of arguments.
type VariadicFunc uint8

// The variadic functions.
const (
	// Coalesce returns its first non-NULL argument, evaluating no further.
	Coalesce VariadicFunc = iota + 1
	// Greatest and Least ignore NULLs; NULL only if every argument is.
	Greatest
	Least
	// Round(x) and Round(x, n) round half away from zero (numeric) or
	// half to even (float8), as PostgreSQL; NULL in, NULL out.
	Round
	// Substr(s, from) and Substr(s, from, count): characters from the
	// 1-based position from; a negative count is an error (22011).
	Substr
	// BTrim, LTrim and RTrim(s[, chars]) strip characters (spaces by
	// default) from both ends, the start or the end.
	BTrim
	LTrim
	RTrim
	// Replace(s, from, to) replaces every occurrence of from.
	Replace
	// StrPos(s, sub) is sub's 1-based character position in s, or 0.
	StrPos
	// RegexpReplace(s, pattern, replacement[, flags]) replaces the first
	// match of a regular expression (every match with flag g).
	RegexpReplace
	// Concat joins its arguments' text, skipping NULLs; never NULL.
	Concat2
	// Now is the statement's read time as timestamptz (now(),
	// current_timestamp). It has no value of its own: the coordinator
	// replaces it with the read time before evaluation (ReplaceNow).
	Now
	// DatePart(field, ts) is date_part (float8); Extract(field, ts) is
	// EXTRACT (numeric); DateTrunc(field, ts) truncates ts to the field.
	DatePart
	Extract
	DateTrunc
	// The session functions' values come from the session that runs the
	// statement, which replaces every call with a literal before
	// evaluation (IsSession); a view, which no one session runs, refuses
	// them. CurrentSetting(name[, missing_ok]) is current_setting;
	// SetConfig(name, value, is_local) is set_config.
	CurrentUser
	SessionUser
	CurrentDatabase
	CurrentSchema
	CurrentSetting
	SetConfig
	BackendPID
	PostmasterStartTime
	// EncodingToChar(int) is pg_encoding_to_char: the name of a
	// PostgreSQL encoding number, empty for an unknown one.
	EncodingToChar
	// QuoteIdent(text) double-quotes an identifier when it needs quotes
	// to be read back as itself: anything but lower-case ASCII letters,
	// digits and underscores not led by a digit, or a keyword that is
	// not unreserved.
	QuoteIdent
	// CancelBackend(pid) and TerminateBackend(pid) are pg_cancel_backend
	// and pg_terminate_backend: session functions that cancel another
	// session's running statement, or end that session, and report
	// whether there was such a session.
	CancelBackend
	TerminateBackend
	// FormatType(oid, typmod) is format_type: a type's SQL name with its
	// modifier (none for a NULL typmod), NULL for a NULL oid.
	FormatType
	// The array functions (array_funcs.go).
	ArrayConstruct
	ArraySubscript
	ArrayAny
	ArrayAll
	ArrayToString
	ArrayLength
	ArrayLower
	ArrayUpper
	Cardinality
	StringToArray
	ArrayCat
	ArrayAppend
	ArrayPrepend
	// The string functions (string_funcs.go).
	Format
	ParseIdent
	ConcatWS
	SplitPart
	LPad
	RPad
	Left
	Right
	Repeat
	Reverse
	StartsWith
	QuoteLiteral
	QuoteNullable
	MD5
	// The json functions (json_funcs.go).
	JSONBuildObject
	JSONBuildArray
	ToJSON
	JSONAgg
	// The time zone functions (zone_funcs.go).
	Timezone
	DateAdd
	DateSubtract
	TimestampTZJSON
	// The template functions (format_funcs.go).
	ToChar
	ToTimestamp
	ToDate
	EpochToTimestamp
	// The double precision math functions (math_funcs.go).
	Sqrt
	Cbrt
	Exp
	Ln
	Log10
	Power
	Sign
	Trunc
	Pi
	Degrees
	Radians
	// The sequence functions, whose values the running session supplies
	// (IsSession): nextval(seq), currval(seq), setval(seq, v [, called])
	// and lastval().
	NextVal
	CurrVal
	SetVal
	LastVal
	// The bytea and uuid functions (bytea_funcs.go).
	ByteaSubstr
	Encode
	Decode
	ConvertTo
	ConvertFrom
	GenRandomUUID
	// The statistics of a group from its count, sum and sum of squares
	// (stats_funcs.go): var_samp, var_pop, stddev_samp, stddev_pop.
	VarSamp
	VarPop
	StddevSamp
	StddevPop
	// The size functions (size_funcs.go): pg_relation_size(rel),
	// pg_table_size(rel), pg_indexes_size(rel),
	// pg_total_relation_size(rel) and pg_database_size(name), whose
	// values the running engine supplies (IsSession), and
	// pg_size_pretty(bytes).
	RelationSize
	TableSize
	IndexesSize
	TotalRelationSize
	DatabaseSize
	SizePretty
	// Random(key) is random(): a double precision in [0, 1) drawn, like
	// gen_random_uuid's value, from the statement's key and the row.
	Random
	// The jsonb operators and functions (jsonb_funcs.go).
	JSONBGet
	JSONBGetText
	JSONBPath
	JSONBPathText
	JSONBContains
	JSONBContained
	JSONBExists
	JSONBExistsAny
	JSONBExistsAll
	JSONBConcat
	JSONBDelete
	JSONBBuildObject
	JSONBBuildArray
	ToJSONB
	JSONBTypeof
	JSONBArrayLength
	JSONBStripNulls
	JSONBPretty
	JSONBSet
	// The json operators and functions that read a json value's text
	// (json_ops.go).
	JSONGet
	JSONGetText
	JSONPath
	JSONPathText
	JSONTypeof
	JSONArrayLength
	// MakeTime(hour, min, sec) is make_time: a time from int4 fields and
	// double precision seconds (repr.MakeTime).
	MakeTime
)

var variadicNames = map[VariadicFunc]string{Coalesce: "coalesce", Greatest: "greatest", Least: "least",
	Round: "round", Substr: "substr", BTrim: "btrim", LTrim: "ltrim", RTrim: "rtrim",
	Replace: "replace", StrPos: "strpos", RegexpReplace: "regexp_replace", Concat2: "concat", Now: "now",
	DatePart: "date_part", Extract: "extract", DateTrunc: "date_trunc",
	CurrentUser: "current_user", SessionUser: "session_user", CurrentDatabase: "current_database",
	CurrentSchema: "current_schema", CurrentSetting: "current_setting", SetConfig: "set_config",
	BackendPID: "pg_backend_pid", PostmasterStartTime: "pg_postmaster_start_time",
	EncodingToChar: "pg_encoding_to_char", QuoteIdent: "quote_ident",
	CancelBackend: "pg_cancel_backend", TerminateBackend: "pg_terminate_backend", FormatType: "format_type",
	ArrayConstruct: "array", ArraySubscript: "subscript", ArrayAny: "any", ArrayAll: "all",
	ArrayToString: "array_to_string", ArrayLength: "array_length", ArrayLower: "array_lower",
	ArrayUpper: "array_upper", Cardinality: "cardinality", StringToArray: "string_to_array",
	ArrayCat: "array_cat", ArrayAppend: "array_append", ArrayPrepend: "array_prepend",
	Format: "format", ParseIdent: "parse_ident", ConcatWS: "concat_ws", SplitPart: "split_part", LPad: "lpad",
	RPad: "rpad", Left: "left", Right: "right", Repeat: "repeat", Reverse: "reverse", StartsWith: "starts_with",
	QuoteLiteral: "quote_literal", QuoteNullable: "quote_nullable", MD5: "md5",
	JSONBuildObject: "json_build_object", JSONBuildArray: "json_build_array", ToJSON: "to_json", JSONAgg: "json_agg",
	Timezone: "timezone", DateAdd: "date_add", DateSubtract: "date_subtract", TimestampTZJSON: "timestamptz_to_json",
	ToChar: "to_char", ToTimestamp: "to_timestamp", ToDate: "to_date", EpochToTimestamp: "to_timestamp",
	Sqrt: "sqrt", Cbrt: "cbrt", Exp: "exp", Ln: "ln", Log10: "log", Power: "power", Sign: "sign", Trunc: "trunc",
	Pi: "pi", Degrees: "degrees", Radians: "radians",
	NextVal: "nextval", CurrVal: "currval", SetVal: "setval", LastVal: "lastval",
	ByteaSubstr: "substr", Encode: "encode", Decode: "decode", ConvertTo: "convert_to", ConvertFrom: "convert_from",
	GenRandomUUID: "gen_random_uuid", VarSamp: "var_samp", VarPop: "var_pop", StddevSamp: "stddev_samp", StddevPop: "stddev_pop",
	RelationSize: "pg_relation_size", TableSize: "pg_table_size", IndexesSize: "pg_indexes_size",
	TotalRelationSize: "pg_total_relation_size", DatabaseSize: "pg_database_size", SizePretty: "pg_size_pretty",
	Random:   "random",
	JSONBGet: "->", JSONBGetText: "->>", JSONBPath: "#>", JSONBPathText: "#>>", JSONBContains: "@>",
	JSONBContained: "<@", JSONBExists: "?", JSONBExistsAny: "?|", JSONBExistsAll: "?&", JSONBConcat: "||",
	JSONBDelete: "-", JSONBBuildObject: "jsonb_build_object", JSONBBuildArray: "jsonb_build_array",
	ToJSONB: "to_jsonb", JSONBTypeof: "jsonb_typeof", JSONBArrayLength: "jsonb_array_length",
	JSONBStripNulls: "jsonb_strip_nulls", JSONBPretty: "jsonb_pretty", JSONBSet: "jsonb_set",
	JSONGet: "->", JSONGetText: "->>", JSONPath: "#>", JSONPathText: "#>>", JSONTypeof: "json_typeof",
	JSONArrayLength: "json_array_length", MakeTime: "make_time"}

func (f VariadicFunc) String() string { return variadicNames[f] }
