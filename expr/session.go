package expr

import "strings"

// IsSession reports whether f is a session function: one whose value
// the running session supplies (see CurrentUser).
func (f VariadicFunc) IsSession() bool {
	switch f {
	case CurrentUser, SessionUser, CurrentDatabase, CurrentSchema, CurrentSetting, SetConfig, BackendPID, PostmasterStartTime,
		CancelBackend, TerminateBackend, NextVal, CurrVal, SetVal, LastVal,
		RelationSize, TableSize, IndexesSize, TotalRelationSize, DatabaseSize:
		return true
	}
	return false
}

// IsKeyword reports whether f is called as an SQL keyword, without
// parentheses (current_user): its String must read back as the call,
// since column defaults are stored as text.
func (f VariadicFunc) IsKeyword() bool { return f == CurrentUser || f == SessionUser }

// CallName names a call of f as SQL writes it, for messages:
// "current_user", "current_setting()".
func (f VariadicFunc) CallName() string {
	if f.IsKeyword() {
		return f.String()
	}
	return f.String() + "()"
}

// SessionCalls returns the session functions r calls, in the order met.
func SessionCalls(r Relation) []VariadicFunc {
	var out []VariadicFunc
	MapCalls(r, func(c CallVariadic) Scalar {
		if c.Func.IsSession() {
			out = append(out, c.Func)
		}
		return c
	})
	return out
}

// encodings are PostgreSQL's encoding names, indexed by their numbers
// (pg_encoding_to_char).
var encodings = []string{
	"SQL_ASCII", "EUC_JP", "EUC_CN", "EUC_KR", "EUC_TW", "EUC_JIS_2004", "UTF8", "MULE_INTERNAL",
	"LATIN1", "LATIN2", "LATIN3", "LATIN4", "LATIN5", "LATIN6", "LATIN7", "LATIN8", "LATIN9", "LATIN10",
	"WIN1256", "WIN1258", "WIN866", "WIN874", "KOI8R", "WIN1251", "WIN1252", "ISO_8859_5", "ISO_8859_6",
	"ISO_8859_7", "ISO_8859_8", "WIN1250", "WIN1253", "WIN1254", "WIN1255", "WIN1257", "KOI8U", "SJIS",
	"BIG5", "GBK", "UHC", "GB18030", "JOHAB", "SHIFT_JIS_2004",
}

func encodingName(n int64) string {
	if n < 0 || n >= int64(len(encodings)) {
		return ""
	}
	return encodings[n]
}

// quotedKeywords are PostgreSQL 15's keywords that are not unreserved
// (reserved, column-name and type-or-function-name keywords): an
// identifier spelled like one must be quoted. The planner's tests check
// the list against the parser.
var quotedKeywords = map[string]bool{}

// QuotedKeywords returns the keywords quote_ident quotes, for tests.
func QuotedKeywords() []string {
	out := make([]string, 0, len(quotedKeywords))
	for k := range quotedKeywords {
		out = append(out, k)
	}
	return out
}

func init() {
	for _, w := range strings.Fields(`all analyse analyze and any array as asc asymmetric authorization between
		bigint binary bit boolean both case cast char character check coalesce collate collation column
		concurrently constraint create cross current_catalog current_date current_role current_schema
		current_time current_timestamp current_user dec decimal default deferrable desc distinct do else end
		except exists extract false fetch float for foreign freeze from full grant greatest group grouping
		having ilike in initially inner inout int integer intersect interval into is isnull join lateral
		leading least left like limit localtime localtimestamp national natural nchar none normalize not
		notnull null nullif numeric offset on only or order out outer overlaps overlay placing position
		precision primary real references returning right row select session_user setof similar smallint
		some substring symmetric table tablesample then time timestamp to trailing treat trim true union
		unique user using values varchar variadic verbose when where window with xmlattributes xmlconcat
		xmlelement xmlexists xmlforest xmlnamespaces xmlparse xmlpi xmlroot xmlserialize xmltable`) {
		quotedKeywords[w] = true
	}
}

func quoteIdent(s string) string {
	plain := s != "" && !(s[0] >= '0' && s[0] <= '9') && !quotedKeywords[s]
	for i := 0; plain && i < len(s); i++ {
		c := s[i]
		plain = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
	}
	if plain {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
