package repr

// CastContext says where PostgreSQL applies a cast by itself, after
// pg_cast.castcontext. The contexts are ordered: a cast allowed in a
// context is allowed in every stricter one, so callers compare with >=.
type CastContext uint8

const (
	// CastNone: no cast exists (42846).
	CastNone CastContext = iota
	// CastExplicit: only with CAST or ::.
	CastExplicit
	// CastAssignment: also when storing into a column (INSERT, UPDATE).
	CastAssignment
	// CastImplicit: also in expressions, to make operators match.
	CastImplicit
)

// String returns the context's name, as pg_cast spells its letter.
func (c CastContext) String() string {
	return [...]string{"none", "explicit", "assignment", "implicit"}[c]
}

// castContexts is pg_cast restricted to the kinds repr supports. Pairs
// not listed fall to the rules of CastContextOf.
var castContexts = map[[2]Kind]CastContext{
	{KindInt2, KindInt4}:             CastImplicit,
	{KindInt2, KindInt8}:             CastImplicit,
	{KindInt2, KindFloat4}:           CastImplicit,
	{KindInt2, KindFloat8}:           CastImplicit,
	{KindInt2, KindNumeric}:          CastImplicit,
	{KindInt4, KindInt2}:             CastAssignment,
	{KindInt4, KindInt8}:             CastImplicit,
	{KindInt4, KindFloat4}:           CastImplicit,
	{KindInt4, KindFloat8}:           CastImplicit,
	{KindInt4, KindNumeric}:          CastImplicit,
	{KindInt4, KindBool}:             CastExplicit,
	{KindInt8, KindInt2}:             CastAssignment,
	{KindInt8, KindInt4}:             CastAssignment,
	{KindInt8, KindFloat4}:           CastImplicit,
	{KindInt8, KindFloat8}:           CastImplicit,
	{KindInt8, KindNumeric}:          CastImplicit,
	{KindFloat4, KindInt2}:           CastAssignment,
	{KindFloat4, KindInt4}:           CastAssignment,
	{KindFloat4, KindInt8}:           CastAssignment,
	{KindFloat4, KindFloat8}:         CastImplicit,
	{KindFloat4, KindNumeric}:        CastAssignment,
	{KindFloat8, KindInt2}:           CastAssignment,
	{KindFloat8, KindInt4}:           CastAssignment,
	{KindFloat8, KindInt8}:           CastAssignment,
	{KindFloat8, KindFloat4}:         CastAssignment,
	{KindFloat8, KindNumeric}:        CastAssignment,
	{KindNumeric, KindInt2}:          CastAssignment,
	{KindNumeric, KindInt4}:          CastAssignment,
	{KindNumeric, KindInt8}:          CastAssignment,
	{KindNumeric, KindFloat4}:        CastImplicit,
	{KindNumeric, KindFloat8}:        CastImplicit,
	{KindBool, KindInt4}:             CastExplicit,
	{KindText, KindVarchar}:          CastImplicit,
	{KindText, KindBpchar}:           CastImplicit,
	{KindVarchar, KindText}:          CastImplicit,
	{KindVarchar, KindBpchar}:        CastImplicit,
	{KindBpchar, KindText}:           CastImplicit,
	{KindBpchar, KindVarchar}:        CastImplicit,
	{KindText, KindName}:             CastImplicit,
	{KindVarchar, KindName}:          CastImplicit,
	{KindBpchar, KindName}:           CastImplicit,
	{KindName, KindText}:             CastImplicit,
	{KindChar, KindText}:             CastImplicit,
	{KindChar, KindInt4}:             CastExplicit,
	{KindInt4, KindChar}:             CastExplicit,
	{KindDate, KindTimestamp}:        CastImplicit,
	{KindDate, KindTimestampTZ}:      CastImplicit,
	{KindTimestamp, KindDate}:        CastAssignment,
	{KindTimestamp, KindTimestampTZ}: CastImplicit,
	{KindTimestampTZ, KindDate}:      CastAssignment,
	{KindTimestampTZ, KindTimestamp}: CastAssignment,
	{KindTimestamp, KindTime}:        CastAssignment,
	{KindTimestampTZ, KindTime}:      CastAssignment,
	{KindInterval, KindTime}:         CastAssignment,
	{KindTime, KindInterval}:         CastImplicit,
	{KindJSON, KindJSONB}:            CastAssignment,
	{KindJSONB, KindJSON}:            CastAssignment,
	{KindJSONB, KindBool}:            CastExplicit,
	{KindJSONB, KindNumeric}:         CastExplicit,
	{KindJSONB, KindInt2}:            CastExplicit,
	{KindJSONB, KindInt4}:            CastExplicit,
	{KindJSONB, KindInt8}:            CastExplicit,
	{KindJSONB, KindFloat4}:          CastExplicit,
	{KindJSONB, KindFloat8}:          CastExplicit,
}

// CastContextOf returns where a cast from kind from to kind to may be
// applied. A kind casts to itself implicitly (a length or precision
// coercion); an untyped literal (unknown) takes any type implicitly.
// Otherwise pg_cast decides, and for pairs it lacks, PostgreSQL's I/O
// conversion casts apply: to a string type in assignment, from a string
// type explicitly only.
func CastContextOf(from, to Kind) CastContext {
	if from == to || from == KindUnknown {
		return CastImplicit
	}
	if c, ok := castContexts[[2]Kind{from, to}]; ok {
		return c
	}
	switch {
	case to.IsString():
		return CastAssignment
	case from.IsString():
		return CastExplicit
	}
	return CastNone
}
