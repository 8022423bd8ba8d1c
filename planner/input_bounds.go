package planner

import (
	"strings"
	"unicode/utf8"

	"freshet/sqlerr"
)

// The bounds that SQL text must meet before pg_query's C parser sees it.
//
// The parser builds its tree with bison, whose own stack is capped
// (10,000 entries: deeper bracketing is a clean "memory exhausted"
// syntax error), but a left-associative chain (1+1+...+1, a UNION b
// UNION c ..., a JOIN b JOIN c ...) keeps bison's stack flat while the
// tree grows one level per link. pg_query then turns the tree into
// protobuf by plain C recursion with no depth check, about 350 bytes of
// C stack per level, on whatever thread the cgo call runs: with glibc's
// 8 MiB thread stack a chain of about 23,800 links overflows it and the
// process dies with SIGSEGV. Nothing on the Go side can recover that, so
// the text is measured first. docs/sql-service.md has the measurements.
const (
	// MaxStatementLength is the longest SQL string, in bytes, that is
	// parsed. Parsing costs up to about 100 bytes of memory per byte of
	// text (a long VALUES list), so the bound keeps one statement's
	// parse well under a gigabyte. Bulk loads belong in COPY.
	MaxStatementLength = 16 << 20

	// MaxNestingDepth bounds nestingDepth of the text. One unit costs
	// the C parser at most about 360 bytes of stack (measured: a link
	// of a + chain 352, a paren level of nested subqueries 1,063 for 3
	// units) and pg_query's deparser, which CREATE VIEW runs, about
	// four times that. At this bound both stay under 2 MiB of stack,
	// a margin of four on glibc's default 8 MiB thread stack. It is far
	// above what people write: 1,000 links of one operator chain, UNION
	// or JOIN, or about 330 nested parentheses.
	MaxNestingDepth = 1000
)

// frameWeight is what one open bracket ((, [ or CASE) adds to the
// nesting depth: a nested subquery is three tree levels per paren
// (SubLink, SelectStmt, ResTarget), and the AND/OR lists that a frame's
// resets ignore are at most two.
const frameWeight = 3

// checkInputBounds returns 54000 if sql is longer than
// MaxStatementLength and 54001 if its nesting depth exceeds
// MaxNestingDepth, as PostgreSQL answers a statement whose analysis
// would overflow its stack. It reads the text once and allocates only a
// stack of open brackets.
func checkInputBounds(sql string) error {
	if err := checkLength(sql); err != nil {
		return err
	}
	return checkNesting(sql)
}

// checkLength is checkInputBounds' bound on the length, which holds for
// every statement.
func checkLength(sql string) error {
	if len(sql) > MaxStatementLength {
		return sqlerr.New(sqlerr.ProgramLimitExceeded, "statement is too long").
			WithDetail("The statement is %d bytes; the limit is %d.", len(sql), MaxStatementLength).
			WithHint("Load bulk data with COPY, or split the statement.")
	}
	return nil
}

// checkNesting is checkInputBounds' bound on the nesting depth, which
// protects the C parser's stack: text that parser does not read (an
// INSERT parseFastInsert reads) needs no check.
func checkNesting(sql string) error {
	if depth, at := nestingDepth(sql, MaxNestingDepth); depth > MaxNestingDepth {
		return sqlerr.New(sqlerr.StatementTooComplex, "stack depth limit exceeded").
			WithDetail("The statement nests expressions, operator chains or set operations deeper than the limit of %d.", MaxNestingDepth).
			WithHint("Simplify the statement: split long chains of operators, UNIONs or JOINs, or nest fewer subqueries.").
			WithPosition(utf8.RuneCountInString(sql[:at]) + 1)
	}
	return nil
}

// frame is one open bracket of the text being measured, or the whole
// statement at the bottom of the stack.
type frame struct {
	// isCase reports whether the frame was opened by CASE (closed by
	// END) rather than by a parenthesis or a square bracket.
	isCase bool
	// chain counts the operators of the expression being read in this
	// frame since the last token that ends a sibling (a comma, AND, OR,
	// WHEN, THEN, ELSE, SELECT, a set operation, a semicolon).
	chain int
	// setops counts the set operations and joins of this frame: they
	// chain across commas and AND/OR, so only a semicolon resets them.
	setops int
}

// nestingDepth returns an upper bound of the depth of the parse tree of
// sql, in the units of MaxNestingDepth, and the byte offset of the token
// where it was reached. It stops reading once the depth exceeds limit.
//
// The bound is the largest sum, over the brackets open at one token, of
// frameWeight and the chain and setops counts of each. It holds because
// every way the grammar nests a node in another either opens a bracket
// or is an operator, keyword or set operation that the counts include,
// and the tokens that reset a count end an operand that is complete: a
// list element, a boolean operand (AND and OR lists are flat in
// PostgreSQL's tree), a CASE arm, or a SELECT. It overestimates, never
// under: an expression's operators are counted whether or not they nest.
func nestingDepth(sql string, limit int) (depth, at int) {
	stack := []frame{{}}
	cur := frameWeight // the sum over stack of frameWeight + chain + setops
	depth = cur
	bump := func(pos int) {
		if cur > depth {
			depth, at = cur, pos
		}
	}
	resetChain := func() {
		top := &stack[len(stack)-1]
		cur -= top.chain
		top.chain = 0
	}
	i := 0
	for i < len(sql) && depth <= limit {
		start := i
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			i = skipLineComment(sql, i)
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			i = skipBlockComment(sql, i)
		case c == '\'':
			i = skipQuoted(sql, i, '\'', false)
		case c == '"':
			i = skipQuoted(sql, i, '"', false)
		case c == '$':
			i = skipDollar(sql, i)
		case c == '(' || c == '[':
			stack = append(stack, frame{})
			cur += frameWeight
			bump(start)
			i++
		case c == ')' || c == ']':
			i++
			if len(stack) > 1 && !stack[len(stack)-1].isCase {
				top := stack[len(stack)-1]
				cur -= frameWeight + top.chain + top.setops
				stack = stack[:len(stack)-1]
			}
		case c == ',':
			resetChain()
			i++
		case c == ';':
			top := &stack[len(stack)-1]
			cur -= top.chain + top.setops
			top.chain, top.setops = 0, 0
			i++
		case c == ':' && i+1 < len(sql) && sql[i+1] == ':':
			stack[len(stack)-1].chain++
			cur++
			bump(start)
			i += 2
		case isOperatorChar(c):
			i = skipOperator(sql, i)
			stack[len(stack)-1].chain++
			cur++
			bump(start)
		case isIdentStart(c):
			for i < len(sql) && isIdentChar(sql[i]) {
				i++
			}
			word := sql[start:i]
			if len(word) == 1 && (c == 'e' || c == 'E') && i < len(sql) && sql[i] == '\'' {
				i = skipQuoted(sql, i, '\'', true)
				break
			}
			switch keywordOf(word) {
			case kwChain:
				stack[len(stack)-1].chain++
				cur++
				bump(start)
			case kwReset:
				resetChain()
			case kwSetop:
				resetChain()
				stack[len(stack)-1].setops++
				cur++
				bump(start)
			case kwJoin:
				stack[len(stack)-1].setops++
				cur++
				bump(start)
			case kwCase:
				stack = append(stack, frame{isCase: true})
				cur += frameWeight
				bump(start)
			case kwEnd:
				if top := stack[len(stack)-1]; len(stack) > 1 && top.isCase {
					cur -= frameWeight + top.chain + top.setops
					stack = stack[:len(stack)-1]
				}
			}
		case c >= '0' && c <= '9' || c == '.':
			for i < len(sql) && (isIdentChar(sql[i]) || sql[i] == '.') {
				i++
			}
		default:
			// ':' alone (an array slice), a stray character, or a byte of a
			// multibyte character outside an identifier: none nests.
			i++
		}
	}
	return depth, at
}

type keywordKind int

const (
	kwNone keywordKind = iota
	// kwChain: an operator spelled as a word, which nests its operands
	// as + does.
	kwChain
	// kwReset: ends the operand being read in the current frame.
	kwReset
	// kwSetop: a set operation; it ends the left SELECT's expressions.
	kwSetop
	// kwJoin: a join, which nests the joins to its left.
	kwJoin
	kwCase
	kwEnd
)

// keywordOf classifies a word of the text, case-insensitively.
func keywordOf(word string) keywordKind {
	if len(word) < 2 || len(word) > 9 {
		return kwNone
	}
	var buf [9]byte
	for i := 0; i < len(word); i++ {
		c := word[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		buf[i] = c
	}
	switch string(buf[:len(word)]) {
	case "NOT", "IS", "ISNULL", "NOTNULL", "BETWEEN", "LIKE", "ILIKE", "SIMILAR",
		"IN", "COLLATE", "AT", "OPERATOR", "OVERLAPS", "ANY", "SOME", "ALL":
		return kwChain
	case "AND", "OR", "WHEN", "THEN", "ELSE", "SELECT":
		return kwReset
	case "UNION", "INTERSECT", "EXCEPT":
		return kwSetop
	case "JOIN":
		return kwJoin
	case "CASE":
		return kwCase
	case "END":
		return kwEnd
	}
	return kwNone
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentChar(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9' || c == '$'
}

// isOperatorChar reports whether c may be part of an operator, as
// PostgreSQL's lexer defines them.
func isOperatorChar(c byte) bool {
	switch c {
	case '+', '-', '*', '/', '<', '>', '=', '~', '!', '@', '#', '%', '^', '&', '|', '`', '?':
		return true
	}
	return false
}

// skipOperator returns the end of the operator starting at i. As in
// PostgreSQL's lexer, "--" and "/*" inside it start a comment.
func skipOperator(sql string, i int) int {
	start := i
	for i < len(sql) && isOperatorChar(sql[i]) {
		if i > start && i+1 < len(sql) && (sql[i] == '-' && sql[i+1] == '-' || sql[i] == '/' && sql[i+1] == '*') {
			break
		}
		i++
	}
	return i
}

func skipLineComment(sql string, i int) int {
	for i < len(sql) && sql[i] != '\n' {
		i++
	}
	return i
}

// skipBlockComment returns the end of the comment starting at i; block
// comments nest in PostgreSQL.
func skipBlockComment(sql string, i int) int {
	depth := 0
	for i < len(sql) {
		switch {
		case sql[i] == '/' && i+1 < len(sql) && sql[i+1] == '*':
			depth++
			i += 2
		case sql[i] == '*' && i+1 < len(sql) && sql[i+1] == '/':
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return i
}

// skipQuoted returns the end of the literal or quoted identifier that
// starts with the quote q at i: a doubled quote stands for itself, and
// in an escape string (prefixed E) a backslash escapes the next byte. An unterminated
// one runs to the end of the text (the parser rejects it).
func skipQuoted(sql string, i int, q byte, backslash bool) int {
	i++
	for i < len(sql) {
		switch {
		case backslash && sql[i] == '\\':
			i += 2
		case sql[i] == q:
			if i+1 < len(sql) && sql[i+1] == q {
				i += 2
			} else {
				return i + 1
			}
		default:
			i++
		}
	}
	return len(sql)
}

// skipDollar returns the end of what starts with '$' at i: a parameter
// ($1), a dollar-quoted string ($tag$...$tag$), or a lone '$'.
func skipDollar(sql string, i int) int {
	j := i + 1
	if j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
		for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
			j++
		}
		return j
	}
	for j < len(sql) && sql[j] != '$' && isIdentChar(sql[j]) {
		j++
	}
	if j >= len(sql) || sql[j] != '$' {
		return i + 1
	}
	delim := sql[i : j+1]
	if k := strings.Index(sql[j+1:], delim); k >= 0 {
		return j + 1 + k + len(delim)
	}
	return len(sql)
}
