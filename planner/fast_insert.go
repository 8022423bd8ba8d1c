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
// quotes, NULL, TRUE or FALSE, and names are plain lower-case words that
// are not keywords. It builds the tree PostgreSQL's parser builds for
// that text, locations included, without the parser: for a 1,000-row
// statement most of the parser's time is spent producing and decoding
// its tree, not checking the grammar. Anything else (a comment, a quoted
// name, an expression, another clause) is not read here, ok is false, and
// the statement goes to the parser, which also reports every error.
// TestFastInsertMatchesParser checks the trees are the same.
func parseFastInsert(sql string) (Parsed, bool) {
	r := fastReader{s: sql, slab: min(strings.Count(sql, ",")+2, slabMax)}
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
	ins := &pg.InsertStmt{Relation: rv, Override: pg.OverridingKind_OVERRIDING_NOT_SET}
	if r.punct('(') {
		for {
			loc := r.i
			col, ok := r.ident()
			if !ok {
				return Parsed{}, false
			}
			ins.Cols = append(ins.Cols, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Name: col, Location: int32(loc)}}})
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
	sel := &pg.SelectStmt{LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT, Op: pg.SetOperation_SETOP_NONE}
	width := 0
	for {
		if !r.punct('(') {
			return Parsed{}, false
		}
		// Rows are mostly as wide as the one before.
		items := takeSlice(&r.a.items, width, r.slab)
		for {
			c, ok := r.constant()
			if !ok {
				return Parsed{}, false
			}
			n := take(&r.a.nodes, r.slab)
			ac := take(&r.a.aconsts, r.slab)
			ac.AConst = c
			n.Node = ac
			items = append(items, n)
			if r.punct(')') {
				break
			}
			if !r.punct(',') {
				return Parsed{}, false
			}
		}
		width = len(items)
		n, l, list := take(&r.a.nodes, r.slab), take(&r.a.lists, r.slab), take(&r.a.listNodes, r.slab)
		l.Items = items
		list.List = l
		n.Node = list
		sel.ValuesLists = append(sel.ValuesLists, n)
		if !r.punct(',') {
			break
		}
	}
	end := r.i
	r.punct(';')
	if r.i != len(sql) {
		return Parsed{}, false
	}
	ins.SelectStmt = &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}
	node := &pg.Node{Node: &pg.Node_InsertStmt{InsertStmt: ins}}
	return Parsed{SQL: sql, Text: strings.TrimSpace(sql[start:end]), node: node}, true
}

// fastReader reads parseFastInsert's text: i is the next byte, after
// any white space the last read skipped.
type fastReader struct {
	s string
	i int
	a fastArena
	// slab is the number of values a new slab holds: the statement's
	// commas bound its values, so a short statement makes small slabs.
	slab int
}

// fastArena hands out the nodes of one statement's tree from slabs: a
// 1,000-row INSERT's tree has tens of thousands of small nodes, which
// allocated one by one cost more than reading the text. A slab lives as
// long as any node in it; a tree's nodes live and die together, so the
// slabs hold nothing longer than the tree would.
type fastArena struct {
	nodes     []pg.Node
	aconsts   []pg.Node_AConst
	consts    []pg.A_Const
	ivals     []pg.A_Const_Ival
	integers  []pg.Integer
	fvals     []pg.A_Const_Fval
	floats    []pg.Float
	svals     []pg.A_Const_Sval
	strings   []pg.String
	lists     []pg.List
	listNodes []pg.Node_List
	items     []*pg.Node
}

// slabMax bounds the values a slab holds.
const slabMax = 256

// take returns a zero value from the slab *s, making a new slab of n
// values when it is used up.
func take[T any](s *[]T, n int) *T {
	if len(*s) == 0 {
		*s = make([]T, n)
	}
	v := &(*s)[0]
	*s = (*s)[1:]
	return v
}

// takeSlice returns an empty slice with room for k values from the slab
// *s, which holds n values when it is made anew; appending beyond k
// moves the slice out of the slab.
func takeSlice[T any](s *[]T, k, n int) []T {
	if k == 0 || k > n {
		return make([]T, 0, k)
	}
	if len(*s) < k {
		*s = make([]T, n)
	}
	v := (*s)[:0:k]
	*s = (*s)[k:]
	return v
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
func (r *fastReader) constant() (*pg.A_Const, bool) {
	loc := int32(r.i)
	if r.i >= len(r.s) {
		return nil, false
	}
	switch c := r.s[r.i]; {
	case c == '\'':
		s, ok := r.str()
		if !ok {
			return nil, false
		}
		c, v, str := take(&r.a.consts, r.slab), take(&r.a.svals, r.slab), take(&r.a.strings, r.slab)
		str.Sval = s
		v.Sval = str
		c.Val, c.Location = v, loc
		return c, true
	case c == '-':
		r.i++
		r.space()
		if r.i >= len(r.s) || r.s[r.i] < '0' || r.s[r.i] > '9' {
			return nil, false
		}
		return r.number(loc, true)
	case '0' <= c && c <= '9':
		return r.number(loc, false)
	}
	w, ok := r.bare()
	if !ok {
		return nil, false
	}
	switch strings.ToLower(w) {
	case "null":
		return &pg.A_Const{Isnull: true, Location: loc}, true
	case "true", "false":
		return &pg.A_Const{Val: &pg.A_Const_Boolval{Boolval: &pg.Boolean{Boolval: strings.EqualFold(w, "true")}}, Location: loc}, true
	}
	return nil, false
}

// number reads digits with at most one decimal point between digits;
// exponents, hexadecimal and the like go to the parser.
func (r *fastReader) number(loc int32, neg bool) (*pg.A_Const, bool) {
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
			return nil, false
		}
	}
	text := r.s[r.i:j]
	r.i = j
	r.space()
	if !dot {
		if v, err := strconv.ParseInt(text, 10, 32); err == nil {
			if neg {
				v = -v
			}
			c, iv, n := take(&r.a.consts, r.slab), take(&r.a.ivals, r.slab), take(&r.a.integers, r.slab)
			n.Ival = int32(v)
			iv.Ival = n
			c.Val, c.Location = iv, loc
			return c, true
		}
	}
	if neg {
		text = "-" + text
	}
	c, fv, f := take(&r.a.consts, r.slab), take(&r.a.fvals, r.slab), take(&r.a.floats, r.slab)
	f.Fval = text
	fv.Fval = f
	c.Val, c.Location = fv, loc
	return c, true
}

// str reads a string in single quotes, ” standing for one quote. A
// string followed by another across a line break is one string to the
// parser; the caller then finds no comma and gives up.
func (r *fastReader) str() (string, bool) {
	var b strings.Builder
	j := r.i + 1
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
