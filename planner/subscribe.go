package planner

import (
	"strconv"
	"strings"
	"time"
	"unicode"

	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/repr"
	"freshet/sqlerr"
)

// Subscribe is SUBSCRIBE [TO] name | (query) [WITH (SNAPSHOT [= bool],
// PROGRESS [= bool])] [AS OF n] [UP TO n], run bare or as COPY
// (SUBSCRIBE …) TO STDOUT (both stream through COPY TO STDOUT), or
// DECLARE name CURSOR FOR SUBSCRIBE … (Cursor). PostgreSQL's grammar has
// no SUBSCRIBE: Parse reads these forms itself and gives the query (or
// SELECT * FROM name) to PostgreSQL's parser.
type Subscribe struct {
	Query    *Select
	Snapshot bool
	Progress bool
	AsOf     *uint64
	UpTo     *uint64
	// Cursor is DECLARE's cursor name, empty for the COPY forms.
	Cursor string
}

// subscribeSyntax is a SUBSCRIBE that Parse read: the query's tree and
// the options, to be planned by PlanOne.
type subscribeSyntax struct {
	query *pg.SelectStmt
	stmt  Subscribe
}

// token is a word, a number, a string literal or a punctuation mark of
// the SUBSCRIBE forms.
type token struct {
	kind byte // 'w' word, 'q' quoted identifier, 'n' number, 's' string, or the mark itself
	text string
	pos  int // byte offset in the statement
	end  int
}

// lexSubscribe splits sql into tokens, skipping white space and comments.
// It reports false for text it cannot split (an unclosed quote), which
// Parse then leaves to PostgreSQL's parser.
func lexSubscribe(sql string) ([]token, bool) {
	var out []token
	i := 0
	for i < len(sql) {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case strings.HasPrefix(sql[i:], "--"):
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
		case strings.HasPrefix(sql[i:], "/*"):
			j := strings.Index(sql[i+2:], "*/")
			if j < 0 {
				return nil, false
			}
			i += j + 4
		case c == '\'' || c == '"':
			j := i + 1
			var b strings.Builder
			for {
				if j >= len(sql) {
					return nil, false
				}
				if sql[j] == c {
					if j+1 < len(sql) && sql[j+1] == c {
						b.WriteByte(c)
						j += 2
						continue
					}
					break
				}
				b.WriteByte(sql[j])
				j++
			}
			kind := byte('s')
			if c == '"' {
				kind = 'q'
			}
			out = append(out, token{kind: kind, text: b.String(), pos: i, end: j + 1})
			i = j + 1
		case c >= '0' && c <= '9':
			j := i
			for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
				j++
			}
			out = append(out, token{kind: 'n', text: sql[i:j], pos: i, end: j})
			i = j
		case c == '_' || c >= 0x80 || unicode.IsLetter(rune(c)):
			j := i
			for j < len(sql) && (sql[j] == '_' || sql[j] == '$' || sql[j] >= 0x80 || unicode.IsLetter(rune(sql[j])) || unicode.IsDigit(rune(sql[j]))) {
				j++
			}
			out = append(out, token{kind: 'w', text: strings.ToLower(sql[i:j]), pos: i, end: j})
			i = j
		default:
			out = append(out, token{kind: c, text: sql[i : i+1], pos: i, end: i + 1})
			i++
		}
	}
	return out, true
}

// isWord reports whether t is the unquoted keyword w.
func (t token) isWord(w string) bool { return t.kind == 'w' && t.text == w }

// parseSpecial reads the statements PostgreSQL's grammar lacks: the
// SUBSCRIBE forms, and FETCH … WITH (timeout = …). ok is false for any
// other text.
func parseSpecial(sql string) (Parsed, bool, error) {
	toks, lexed := lexSubscribe(sql)
	if !lexed || len(toks) == 0 {
		return Parsed{}, false, nil
	}
	if toks[len(toks)-1].kind == ';' {
		toks = toks[:len(toks)-1]
	}
	if len(toks) == 0 {
		return Parsed{}, false, nil
	}
	text := strings.TrimSpace(sql)
	switch {
	case toks[0].isWord("subscribe"):
		sub, err := parseSubscribeTokens(sql, toks[1:])
		return Parsed{SQL: sql, Text: text, sub: sub}, true, err
	case toks[0].isWord("copy") && len(toks) > 2 && toks[1].kind == '(' && toks[2].isWord("subscribe"):
		close := matchParen(toks, 1)
		if close < 0 {
			return Parsed{}, true, syntaxError(sql, len(sql), "syntax error at end of input")
		}
		rest := toks[close+1:]
		if len(rest) < 2 || !rest[0].isWord("to") || !rest[1].isWord("stdout") {
			return Parsed{}, true, sqlerr.New(sqlerr.FeatureNotSupported, "COPY (SUBSCRIBE …) is supported only TO STDOUT")
		}
		if err := subscribeCopyOptions(sql, rest[2:]); err != nil {
			return Parsed{}, true, err
		}
		sub, err := parseSubscribeTokens(sql, toks[3:close])
		return Parsed{SQL: sql, Text: text, sub: sub}, true, err
	case toks[0].isWord("declare"):
		// DECLARE name [NO SCROLL] CURSOR [WITHOUT HOLD] FOR SUBSCRIBE …
		i := 2
		for i < len(toks) && !toks[i].isWord("for") {
			i++
		}
		if len(toks) < 2 || i+1 >= len(toks) || !toks[i+1].isWord("subscribe") {
			return Parsed{}, false, nil
		}
		for _, t := range toks[2:i] {
			if t.isWord("with") {
				return Parsed{}, true, sqlerr.New(sqlerr.FeatureNotSupported, "DECLARE … CURSOR WITH HOLD FOR SUBSCRIBE is not supported")
			}
		}
		sub, err := parseSubscribeTokens(sql, toks[i+2:])
		if sub != nil {
			sub.stmt.Cursor = toks[1].text // folded to lower case unless quoted
		}
		return Parsed{SQL: sql, Text: text, sub: sub}, true, err
	case toks[0].isWord("show") && len(toks) > 1:
		q, ok, err := showQuery(sql, toks[1:])
		if !ok || err != nil {
			return Parsed{}, ok, err
		}
		tree, err := pg.Parse(q)
		if err != nil || len(tree.Stmts) != 1 {
			return Parsed{}, true, sqlerr.AssertionFailedf("the query for %s does not parse: %v", text, err)
		}
		return Parsed{SQL: q, Text: text, node: tree.Stmts[0].Stmt}, true, nil
	case len(toks) > 3 && toks[0].isWord("explain") && toks[1].isWord("materialized") && toks[2].isWord("view"):
		// EXPLAIN MATERIALIZED VIEW name: the plan of an existing view,
		// with what its dataflow imports and exports.
		rest := toks[3:]
		tree, err := pg.Parse("SELECT * FROM " + sql[rest[0].pos:rest[len(rest)-1].end])
		if err != nil || len(tree.Stmts) != 1 {
			return Parsed{}, true, syntaxError(sql, rest[0].pos, "syntax error at or near %q", rest[0].text)
		}
		from := tree.Stmts[0].Stmt.GetSelectStmt().GetFromClause()
		if len(from) != 1 || from[0].GetRangeVar() == nil {
			return Parsed{}, true, syntaxError(sql, rest[0].pos, "syntax error at or near %q", rest[0].text)
		}
		rv := from[0].GetRangeVar()
		return Parsed{SQL: sql, Text: text, explainView: &QualifiedName{Database: rv.Catalogname, Schema: rv.Schemaname, Name: rv.Relname}}, true, nil
	case toks[0].isWord("fetch") && len(toks) > 3:
		// FETCH … WITH (TIMEOUT [=] 'interval'): PostgreSQL's FETCH with
		// Materialize's option.
		w := len(toks) - 1
		for w > 0 && !toks[w].isWord("with") {
			w--
		}
		if w == 0 || w+1 >= len(toks) || toks[w+1].kind != '(' {
			return Parsed{}, false, nil
		}
		opts, err := parseOptionList(sql, toks[w+1:])
		if err != nil {
			return Parsed{}, true, err
		}
		var timeout *time.Duration
		for _, o := range opts {
			if o.name != "timeout" || o.value == nil {
				return Parsed{}, true, sqlerr.New(sqlerr.SyntaxError, "unrecognized FETCH option %q", strings.ToUpper(o.name))
			}
			d, err := parseFetchTimeout(o.value.text)
			if err != nil {
				return Parsed{}, true, err
			}
			timeout = &d
		}
		head := sql[:toks[w].pos]
		tree, err := pg.Parse(head)
		if err != nil || len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetFetchStmt() == nil {
			return Parsed{}, false, nil
		}
		return Parsed{SQL: sql, Text: text, node: tree.Stmts[0].Stmt, fetchTimeout: timeout}, true, nil
	}
	return Parsed{}, false, nil
}

// matchParen returns the index of the ')' that closes the '(' at open,
// or -1.
func matchParen(toks []token, open int) int {
	depth := 0
	for i := open; i < len(toks); i++ {
		switch toks[i].kind {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// option is one NAME [= value] of an option list.
type option struct {
	name  string
	value *token
}

// parseOptionList reads ( name [=] [value] [, …] ) at toks[0], which must
// be the whole rest of the statement.
func parseOptionList(sql string, toks []token) ([]option, error) {
	close := matchParen(toks, 0)
	if close != len(toks)-1 {
		return nil, syntaxError(sql, toks[len(toks)-1].pos, "syntax error at or near %q", toks[len(toks)-1].text)
	}
	var out []option
	for i := 1; i < close; {
		t := toks[i]
		if t.kind != 'w' {
			return nil, syntaxError(sql, t.pos, "syntax error at or near %q", t.text)
		}
		o := option{name: t.text}
		i++
		if i < close && toks[i].kind == '=' {
			i++
		}
		if i < close && toks[i].kind != ',' {
			v := toks[i]
			o.value = &v
			i++
		}
		out = append(out, o)
		if i < close {
			if toks[i].kind != ',' {
				return nil, syntaxError(sql, toks[i].pos, "syntax error at or near %q", toks[i].text)
			}
			i++
		}
	}
	return out, nil
}

// parseSubscribeTokens reads what follows SUBSCRIBE.
func parseSubscribeTokens(sql string, toks []token) (*subscribeSyntax, error) {
	sub := &subscribeSyntax{stmt: Subscribe{Snapshot: true}}
	if len(toks) > 0 && toks[0].isWord("to") {
		toks = toks[1:]
	}
	if len(toks) == 0 {
		return nil, syntaxError(sql, len(sql), "syntax error at end of input")
	}
	var query string
	if toks[0].kind == '(' {
		close := matchParen(toks, 0)
		if close < 0 {
			return nil, syntaxError(sql, len(sql), "syntax error at end of input")
		}
		query = sql[toks[0].end:toks[close].pos]
		toks = toks[close+1:]
	} else {
		// A name, qualified or not, as PostgreSQL's parser reads it.
		i := 0
		for i < len(toks) && (toks[i].kind == 'w' || toks[i].kind == 'q') {
			if i+1 < len(toks) && toks[i+1].kind == '.' {
				i += 2
				continue
			}
			i++
			break
		}
		if i == 0 {
			return nil, syntaxError(sql, toks[0].pos, "syntax error at or near %q", toks[0].text)
		}
		query = "SELECT * FROM " + sql[toks[0].pos:toks[i-1].end]
		toks = toks[i:]
	}
	for len(toks) > 0 {
		switch {
		case toks[0].isWord("with") && len(toks) > 1 && toks[1].kind == '(':
			close := matchParen(toks, 1)
			if close < 0 {
				return nil, syntaxError(sql, len(sql), "syntax error at end of input")
			}
			opts, err := parseOptionList(sql, toks[1:close+1])
			if err != nil {
				return nil, err
			}
			for _, o := range opts {
				on := true
				if o.value != nil {
					switch strings.ToLower(o.value.text) {
					case "true", "on", "1":
					case "false", "off", "0":
						on = false
					default:
						return nil, sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for SUBSCRIBE option %s: %q", strings.ToUpper(o.name), o.value.text)
					}
				}
				switch o.name {
				case "snapshot":
					sub.stmt.Snapshot = on
				case "progress":
					sub.stmt.Progress = on
				default:
					return nil, sqlerr.New(sqlerr.SyntaxError, "unrecognized SUBSCRIBE option %q", strings.ToUpper(o.name))
				}
			}
			toks = toks[close+1:]
		case toks[0].isWord("as") && len(toks) > 2 && toks[1].isWord("of"):
			rest := toks[2:]
			if len(rest) > 2 && rest[0].isWord("at") && rest[1].isWord("least") {
				rest = rest[2:]
			}
			n, err := subscribeTime(sql, rest)
			if err != nil {
				return nil, err
			}
			sub.stmt.AsOf = &n
			toks = rest[1:]
		case toks[0].isWord("up") && len(toks) > 2 && toks[1].isWord("to"):
			n, err := subscribeTime(sql, toks[2:])
			if err != nil {
				return nil, err
			}
			sub.stmt.UpTo = &n
			toks = toks[3:]
		default:
			return nil, syntaxError(sql, toks[0].pos, "syntax error at or near %q", toks[0].text)
		}
	}
	tree, err := pg.Parse(query)
	if err != nil {
		return nil, sqlerr.New(sqlerr.SyntaxError, "syntax error in SUBSCRIBE's query: %s", err.Error())
	}
	if len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetSelectStmt() == nil {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "SUBSCRIBE is supported for a relation or a query")
	}
	sub.query = tree.Stmts[0].Stmt.GetSelectStmt()
	return sub, nil
}

// subscribeTime reads the timestamp of AS OF or UP TO: milliseconds since
// the Unix epoch, as mz_timestamp shows them.
func subscribeTime(sql string, toks []token) (uint64, error) {
	if len(toks) == 0 {
		return 0, syntaxError(sql, len(sql), "syntax error at end of input")
	}
	n, err := strconv.ParseUint(toks[0].text, 10, 64)
	if toks[0].kind != 'n' || err != nil {
		return 0, sqlerr.New(sqlerr.InvalidParameterValue, "SUBSCRIBE's AS OF and UP TO take a timestamp in milliseconds since the Unix epoch, not %q", toks[0].text)
	}
	return n, nil
}

// subscribeCopyOptions checks COPY (SUBSCRIBE …) TO STDOUT's options:
// only the text format is produced.
func subscribeCopyOptions(sql string, toks []token) error {
	if len(toks) == 0 {
		return nil
	}
	if toks[0].isWord("with") {
		toks = toks[1:]
	}
	if len(toks) == 0 {
		return syntaxError(sql, len(sql), "syntax error at end of input")
	}
	if toks[0].kind != '(' {
		return syntaxError(sql, toks[0].pos, "syntax error at or near %q", toks[0].text)
	}
	opts, err := parseOptionList(sql, toks)
	if err != nil {
		return err
	}
	for _, o := range opts {
		if o.name != "format" || o.value == nil || strings.ToLower(o.value.text) != "text" {
			return sqlerr.New(sqlerr.FeatureNotSupported, "COPY (SUBSCRIBE …) TO STDOUT supports only FORMAT text")
		}
	}
	return nil
}

// parseFetchTimeout reads FETCH's timeout, an interval such as '1s'.
func parseFetchTimeout(s string) (time.Duration, error) {
	d, err := repr.ParseText(repr.Interval, s)
	if err != nil {
		return 0, err
	}
	iv := d.Interval()
	if iv.Months != 0 || iv.Micros < 0 || iv.Days < 0 {
		return 0, sqlerr.New(sqlerr.InvalidParameterValue, "invalid FETCH timeout %q", s)
	}
	return time.Duration(iv.Micros)*time.Microsecond + time.Duration(iv.Days)*24*time.Hour, nil
}

// syntaxError is 42601 at byte offset pos of sql.
func syntaxError(sql string, pos int, format string, args ...any) error {
	return sqlerr.New(sqlerr.SyntaxError, format, args...).WithPosition(len([]rune(sql[:min(pos, len(sql))])) + 1)
}

// Tag implements Statement: SUBSCRIBE streams through COPY TO STDOUT, and
// DECLARE's tag is its own.
func (s *Subscribe) Tag() string {
	if s.Cursor != "" {
		return "DECLARE CURSOR"
	}
	return "SUBSCRIBE"
}

// subscribe plans a SUBSCRIBE that Parse read.
func (p *planner) subscribe(s *subscribeSyntax) (Statement, error) {
	q, err := p.selectStmt(s.query)
	if err != nil {
		return nil, err
	}
	st := s.stmt
	st.Query = q
	return &st, nil
}

// showQuery turns Materialize's SHOW forms into queries over the catalog
// and freshet_internal: SHOW MATERIALIZED VIEWS, SHOW INDEXES [ON name],
// SHOW CREATE {TABLE | VIEW | MATERIALIZED VIEW | INDEX} name. ok is
// false for any other SHOW, which PostgreSQL's grammar reads.
func showQuery(sql string, toks []token) (string, bool, error) {
	words := func(ws ...string) bool {
		if len(toks) < len(ws) {
			return false
		}
		for i, w := range ws {
			if !toks[i].isWord(w) {
				return false
			}
		}
		return true
	}
	// name reads the object name that is the rest of toks, as a string
	// literal to cast to regclass.
	name := func(rest []token) (string, error) {
		if len(rest) == 0 {
			return "", syntaxError(sql, len(sql), "syntax error at end of input")
		}
		last := rest[len(rest)-1]
		return quoteLiteral(sql[rest[0].pos:last.end]), nil
	}
	switch {
	case words("materialized", "views") && len(toks) == 2:
		return `SELECT o.name, obj_description(o.oid, 'pg_class') AS comment FROM freshet_internal.objects o ` +
			`WHERE o.kind = 'materialized view' AND o.schema = ANY (current_schemas(false)) ORDER BY 1`, true, nil
	case words("indexes") || words("indices"):
		filter := ""
		if len(toks) > 1 {
			if !toks[1].isWord("on") && !toks[1].isWord("from") && !toks[1].isWord("in") {
				return "", true, syntaxError(sql, toks[1].pos, "syntax error at or near %q", toks[1].text)
			}
			n, err := name(toks[2:])
			if err != nil {
				return "", true, err
			}
			filter = " AND i.indexrelid IN (SELECT indexrelid FROM pg_catalog.pg_index WHERE indrelid = " + n + "::regclass)"
		}
		return `SELECT c.relname AS name, t.relname AS on, ` +
			`regexp_replace(pg_get_indexdef(i.indexrelid), '^.*USING btree \((.*)\)$', '\1') AS key ` +
			`FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid ` +
			`JOIN pg_catalog.pg_class t ON t.oid = i.indrelid ` +
			`JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace ` +
			`WHERE n.nspname = ANY (current_schemas(false))` + filter + ` ORDER BY 2, 1`, true, nil
	case words("create", "materialized", "view"), words("create", "view"):
		kind, rest := "VIEW", toks[2:]
		if toks[1].isWord("materialized") {
			kind, rest = "MATERIALIZED VIEW", toks[3:]
		}
		n, err := name(rest)
		if err != nil {
			return "", true, err
		}
		relkind := "v"
		if kind != "VIEW" {
			relkind = "m"
		}
		return `SELECT c.relname::text AS name, 'CREATE ` + kind + ` ' || quote_ident(c.relname) || ' AS ' || pg_get_viewdef(c.oid) AS create_sql ` +
			`FROM pg_catalog.pg_class c WHERE c.oid = ` + n + `::regclass AND c.relkind = '` + relkind + `'`, true, nil
	case words("create", "index"):
		n, err := name(toks[2:])
		if err != nil {
			return "", true, err
		}
		return `SELECT c.relname::text AS name, pg_get_indexdef(c.oid) AS create_sql FROM pg_catalog.pg_class c ` +
			`WHERE c.oid = ` + n + `::regclass AND c.relkind = 'i'`, true, nil
	case words("create", "table"):
		n, err := name(toks[2:])
		if err != nil {
			return "", true, err
		}
		return `SELECT c.relname::text AS name, 'CREATE TABLE ' || quote_ident(c.relname) || ' (' || ` +
			`string_agg(quote_ident(a.attname) || ' ' || format_type(a.atttypid, a.atttypmod) || ` +
			`CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END, ', ' ORDER BY a.attnum) || ')' AS create_sql ` +
			`FROM pg_catalog.pg_class c JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 ` +
			`WHERE c.oid = ` + n + `::regclass AND c.relkind = 'r' GROUP BY c.relname`, true, nil
	}
	return "", false, nil
}

// quoteLiteral quotes s as a SQL string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// ExplainView is EXPLAIN MATERIALIZED VIEW name (Materialize's): the plan
// of an existing materialized view, with the arrangements its dataflow
// imports and the one it exports.
type ExplainView struct {
	Name QualifiedName
}

// Tag implements Statement.
func (*ExplainView) Tag() string { return "EXPLAIN" }
