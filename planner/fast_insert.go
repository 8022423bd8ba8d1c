package planner

import (
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/expr"
)

// parseFastInsert reads the INSERT that applications send most, the
// multi-row INSERT of constants:
//
//	INSERT INTO [schema.]table [(column, …)] VALUES (constant, …), … [;]
//
// where a constant is a number (signed or not), a string in single
// quotes, NULL, TRUE or FALSE, names are plain lower-case words that
// are not keywords, and every row is as wide as the first. It keeps the
// constants as literals, one after another, with no tree: for a
// 1,000-row statement most of the parser's time is spent producing and
// decoding its tree, not checking the grammar, and a tree of the
// parser's nodes costs several hundred bytes a row where the literals
// cost 32 bytes a value. Anything else (a comment, a quoted name, an
// expression, another clause) is not read here, ok is false, and the
// statement goes to the parser, which also reports every error.
// fastInsert.tree builds the parser's tree from what was read, for the
// plans the literals do not make; TestFastInsertMatchesParser checks it
// is the tree the parser builds.
func parseFastInsert(sql string) (Parsed, bool) {
	r := fastReader{s: sql}
	r.space()
	start := r.i
	if !r.word("insert") || !r.word("into") {
		return Parsed{}, false
	}
	// Text that is not UTF-8, or holds a NUL, has the parser's own
	// answers.
	if !utf8.ValidString(sql) || strings.IndexByte(sql, 0) >= 0 {
		return Parsed{}, false
	}
	rv := &pg.RangeVar{Inh: true, Relpersistence: "p", Location: int32(r.i)}
	name, ok := r.ident()
	if !ok {
		return Parsed{}, false
	}
	rv.Relname = name
	if r.punct('.') {
		if rv.Relname, ok = r.ident(); !ok {
			return Parsed{}, false
		}
		rv.Schemaname = name
	}
	f := &fastInsert{stmt: &pg.InsertStmt{Relation: rv, Override: pg.OverridingKind_OVERRIDING_NOT_SET}}
	if r.punct('(') {
		for {
			loc := r.i
			col, ok := r.ident()
			if !ok {
				return Parsed{}, false
			}
			f.stmt.Cols = append(f.stmt.Cols, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Name: col, Location: int32(loc)}}})
			if r.punct(')') {
				break
			}
			if !r.punct(',') {
				return Parsed{}, false
			}
		}
	}
	if !r.word("values") {
		return Parsed{}, false
	}
	// Commas bound the values: one more than there are commas, fewer
	// where a string holds one.
	f.lits = make([]literal, 0, strings.Count(sql[r.i:], ",")+1)
	for {
		if !r.punct('(') {
			return Parsed{}, false
		}
		row := len(f.lits)
		for {
			l, ok := r.constant()
			if !ok {
				return Parsed{}, false
			}
			f.lits = append(f.lits, l)
			if r.punct(')') {
				break
			}
			if !r.punct(',') {
				return Parsed{}, false
			}
		}
		// Rows of other widths are the parser's, and its error's.
		if w := len(f.lits) - row; row == 0 {
			f.width = w
		} else if w != f.width {
			return Parsed{}, false
		}
		if !r.punct(',') {
			break
		}
	}
	end := r.i
	r.punct(';')
	if r.i != len(sql) {
		return Parsed{}, false
	}
	return Parsed{SQL: sql, Text: strings.TrimSpace(sql[start:end]), fast: f}, true
}

// fastInsert is an INSERT parseFastInsert read: its target and columns
// as the parser's nodes, with no SelectStmt, and its values as literals,
// row after row, width to a row.
type fastInsert struct {
	stmt  *pg.InsertStmt
	lits  []literal
	width int
}

// rows is the number of rows of values.
func (f *fastInsert) rows() int { return len(f.lits) / f.width }

// at is the literal in row ri and place j.
func (f *fastInsert) at(ri, j int) (literal, bool) { return f.lits[ri*f.width+j], true }

// literalKind is what a literal is.
type literalKind uint8

const (
	litNull literalKind = iota
	litTrue
	litFalse
	// litInt is an integer that fits in 32 bits, in ival.
	litInt
	// litNumber is any other number, its text (sign included) in text.
	litNumber
	// litString is a string in quotes, its value in text.
	litString
)

// literal is one constant among an INSERT's values, as the grammar reads
// it; loc is its place in the statement's text (a negative number's is
// its sign's).
type literal struct {
	text string
	loc  int32
	ival int32
	kind literalKind
}

// literalOf is the literal the parser's constant ac is; ok is false for
// a constant no literal is (a bit string).
func literalOf(ac *pg.A_Const) (literal, bool) {
	l := literal{loc: ac.Location}
	if ac.Isnull {
		return l, true // litNull
	}
	switch v := ac.Val.(type) {
	case *pg.A_Const_Ival:
		l.kind, l.ival = litInt, v.Ival.Ival
	case *pg.A_Const_Fval:
		l.kind, l.text = litNumber, v.Fval.Fval
	case *pg.A_Const_Sval:
		l.kind, l.text = litString, v.Sval.Sval
	case *pg.A_Const_Boolval:
		l.kind = litFalse
		if v.Boolval.Boolval {
			l.kind = litTrue
		}
	default:
		return literal{}, false
	}
	return l, true
}

// node is the parser's constant for l.
func (l literal) node() *pg.A_Const {
	c := &pg.A_Const{Location: l.loc}
	switch l.kind {
	case litNull:
		c.Isnull = true
	case litTrue, litFalse:
		c.Val = &pg.A_Const_Boolval{Boolval: &pg.Boolean{Boolval: l.kind == litTrue}}
	case litInt:
		c.Val = &pg.A_Const_Ival{Ival: &pg.Integer{Ival: l.ival}}
	case litNumber:
		c.Val = &pg.A_Const_Fval{Fval: &pg.Float{Fval: l.text}}
	case litString:
		c.Val = &pg.A_Const_Sval{Sval: &pg.String{Sval: l.text}}
	}
	return c
}

// tree is the parser's tree of the statement f was read from: a new
// InsertStmt, sharing f's target and columns, whose VALUES holds every
// literal as the parser's constant.
func (f *fastInsert) tree() *pg.Node {
	sel := &pg.SelectStmt{LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT, Op: pg.SetOperation_SETOP_NONE}
	sel.ValuesLists = make([]*pg.Node, f.rows())
	for ri := range sel.ValuesLists {
		items := make([]*pg.Node, f.width)
		for j := range items {
			l, _ := f.at(ri, j)
			items[j] = &pg.Node{Node: &pg.Node_AConst{AConst: l.node()}}
		}
		sel.ValuesLists[ri] = &pg.Node{Node: &pg.Node_List{List: &pg.List{Items: items}}}
	}
	ins := &pg.InsertStmt{Relation: f.stmt.Relation, Cols: f.stmt.Cols, Override: f.stmt.Override,
		SelectStmt: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}}
	return &pg.Node{Node: &pg.Node_InsertStmt{InsertStmt: ins}}
}

// fastReader reads parseFastInsert's text: i is the next byte, after
// any white space the last read skipped.
type fastReader struct {
	s string
	i int
}

// space skips white space as PostgreSQL's lexer knows it.
func (r *fastReader) space() {
	for r.i < len(r.s) {
		switch r.s[r.i] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			r.i++
		default:
			return
		}
	}
}

// punct reads the character c.
func (r *fastReader) punct(c byte) bool {
	if r.i < len(r.s) && r.s[r.i] == c {
		r.i++
		r.space()
		return true
	}
	return false
}

// bare reads a word of letters, digits and underscores that starts with
// a letter or an underscore, as it is written.
func (r *fastReader) bare() (string, bool) {
	j := r.i
	for j < len(r.s) {
		c := r.s[j]
		if c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || (j > r.i && '0' <= c && c <= '9') {
			j++
			continue
		}
		if c == '$' || c >= 0x80 {
			// Identifier characters this reader does not take.
			return "", false
		}
		break
	}
	if j == r.i {
		return "", false
	}
	w := r.s[r.i:j]
	r.i = j
	r.space()
	return w, true
}

// word reads the keyword kw, in any case.
func (r *fastReader) word(kw string) bool {
	save := r.i
	if w, ok := r.bare(); ok && strings.EqualFold(w, kw) {
		return true
	}
	r.i = save
	return false
}

// ident reads a name: a word in lower case that is no keyword (upper
// case, folded by the parser, is left to it too).
func (r *fastReader) ident() (string, bool) {
	save := r.i
	w, ok := r.bare()
	if !ok || strings.ToLower(w) != w || isKeyword(w) {
		r.i = save
		return "", false
	}
	return w, true
}

// constant reads a constant as the parser makes it: an integer that
// fits in 32 bits is an Integer, any other number a Float holding its
// text, a minus sign is folded into the number (at the sign's location),
// a string is a String.
func (r *fastReader) constant() (literal, bool) {
	loc := int32(r.i)
	if r.i >= len(r.s) {
		return literal{}, false
	}
	switch c := r.s[r.i]; {
	case c == '\'':
		s, ok := r.str()
		return literal{kind: litString, text: s, loc: loc}, ok
	case c == '-':
		r.i++
		r.space()
		if r.i >= len(r.s) || r.s[r.i] < '0' || r.s[r.i] > '9' {
			return literal{}, false
		}
		return r.number(loc, true)
	case '0' <= c && c <= '9':
		return r.number(loc, false)
	}
	w, ok := r.bare()
	if !ok {
		return literal{}, false
	}
	switch strings.ToLower(w) {
	case "null":
		return literal{kind: litNull, loc: loc}, true
	case "true":
		return literal{kind: litTrue, loc: loc}, true
	case "false":
		return literal{kind: litFalse, loc: loc}, true
	}
	return literal{}, false
}

// number reads digits with at most one decimal point between digits;
// exponents, hexadecimal and the like go to the parser. A negative
// number's sign is at loc.
func (r *fastReader) number(loc int32, neg bool) (literal, bool) {
	j, dot := r.i, false
	for j < len(r.s) {
		c := r.s[j]
		if '0' <= c && c <= '9' {
			j++
			continue
		}
		if c == '.' && !dot && j+1 < len(r.s) && '0' <= r.s[j+1] && r.s[j+1] <= '9' {
			dot = true
			j++
			continue
		}
		break
	}
	if j < len(r.s) {
		// A number runs into a letter, a point or an underscore: the
		// lexer has its own rules (and errors) for those.
		if c := r.s[j]; c == '_' || c == '.' || c >= 0x80 || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') {
			return literal{}, false
		}
	}
	digits := r.s[r.i:j]
	i := r.i
	r.i = j
	r.space()
	// The lexer reads the digits without the sign: -2147483648 is a
	// Float, as 2147483648 is.
	if !dot {
		if v, err := strconv.ParseInt(digits, 10, 32); err == nil {
			if neg {
				v = -v
			}
			return literal{kind: litInt, ival: int32(v), loc: loc}, true
		}
	}
	text := digits
	switch {
	case neg && int(loc)+1 == i:
		text = r.s[loc:j]
	case neg:
		text = "-" + digits
	}
	return literal{kind: litNumber, text: text, loc: loc}, true
}

// str reads a string in single quotes, a quote written twice standing
// for one. A string followed by another across a line break is one
// string to the parser; the caller then finds no comma and gives up.
func (r *fastReader) str() (string, bool) {
	j := r.i + 1
	k := strings.IndexByte(r.s[j:], '\'')
	if k < 0 {
		return "", false
	}
	if e := j + k + 1; e >= len(r.s) || r.s[e] != '\'' {
		// No quote doubled: the value is the text itself.
		r.i = e
		r.space()
		return r.s[j : j+k], true
	}
	var b strings.Builder
	for {
		k := strings.IndexByte(r.s[j:], '\'')
		if k < 0 {
			return "", false
		}
		b.WriteString(r.s[j : j+k])
		j += k + 1
		if j < len(r.s) && r.s[j] == '\'' {
			b.WriteByte('\'')
			j++
			continue
		}
		break
	}
	r.i = j
	r.space()
	return b.String(), true
}

var (
	keywordsOnce sync.Once
	keywords     map[string]bool
)

// isKeyword reports whether w is a keyword that is not unreserved: such
// a word is not a name without quotes (or is, in some places only).
func isKeyword(w string) bool {
	keywordsOnce.Do(func() {
		keywords = map[string]bool{}
		for _, k := range expr.QuotedKeywords() {
			keywords[k] = true
		}
	})
	return keywords[w]
}
