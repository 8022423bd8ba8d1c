package expr

import (
	"crypto/md5"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode/utf8"

	"freshet/repr"
	"freshet/sqlerr"
)

// The string functions, PostgreSQL's, over text (the planner casts other
// arguments to text, and the counts to int4):
//
//	Format(f, args…)          format: %s, %I, %L and %%, with positions;
//	                          its arguments, and concat_ws's, of any type,
//	                          printed by their output functions
//	                          (%2$s) and widths (%-10s)
//	ParseIdent(s[, strict])   parse_ident: a qualified identifier's parts
//	ConcatWS(sep, args…)      concat_ws: the non-NULL arguments joined
//	SplitPart(s, d, n)        split_part: field n (from the end if < 0)
//	LPad, RPad(s, n[, fill])  s padded or cut to n characters
//	Left, Right(s, n)         the first or last n characters (all but if < 0)
//	Repeat(s, n)              s n times
//	Reverse(s)                s's characters reversed
//	StartsWith(s, p)          whether s begins with p
//	QuoteLiteral(s)           s as a string literal; QuoteNullable also
//	QuoteNullable(s)          writes NULL for NULL
//	MD5(s)                    the MD5 digest, in hex

func (f VariadicFunc) isString() bool { return f >= Format && f <= MD5 }

// maxStringResult bounds a string a function builds (repeat, lpad,
// format), as PostgreSQL's 1 GB limit on a value does.
const maxStringResult = 1 << 30

func (c CallVariadic) stringTyp(input []ColumnType) ColumnType {
	nullable := false
	for _, a := range c.Args {
		nullable = nullable || a.Typ(input).Nullable
	}
	switch c.Func {
	case ParseIdent:
		return ColumnType{Type: repr.ArrayOf(repr.Text), Nullable: nullable}
	case StartsWith:
		return ColumnType{Type: repr.Bool, Nullable: nullable}
	case ConcatWS, Format:
		return ColumnType{Type: repr.Text, Nullable: c.Args[0].Typ(input).Nullable}
	case QuoteNullable:
		return ColumnType{Type: repr.Text}
	}
	return ColumnType{Type: repr.Text, Nullable: nullable}
}

func errTooLong() error {
	return sqlerr.New(sqlerr.ProgramLimitExceeded, "requested length too large")
}

func (c CallVariadic) evalString(row []repr.Datum) (repr.Datum, error) {
	args := make([]repr.Datum, len(c.Args))
	for i, a := range c.Args {
		v, err := a.Eval(row)
		if err != nil {
			return repr.Null, err
		}
		args[i] = v
	}
	switch c.Func {
	case Format:
		if args[0].IsNull() {
			return repr.Null, nil
		}
		return format(args[0].Text(), args[1:])
	case ConcatWS:
		if args[0].IsNull() {
			return repr.Null, nil
		}
		var parts []string
		for _, a := range args[1:] {
			if !a.IsNull() {
				parts = append(parts, repr.FormatText(a))
			}
		}
		return repr.NewText(strings.Join(parts, args[0].Text())), nil
	case QuoteNullable:
		if args[0].IsNull() {
			return repr.NewText("NULL"), nil
		}
		return repr.NewText(quoteLiteral(args[0].Text())), nil
	}
	for _, a := range args {
		if a.IsNull() {
			return repr.Null, nil
		}
	}
	switch c.Func {
	case ParseIdent:
		strict := len(args) < 2 || args[1].Bool()
		return parseIdent(args[0].Text(), strict)
	case SplitPart:
		return splitPart(args[0].Text(), args[1].Text(), args[2].Int())
	case LPad, RPad:
		fill := " "
		if len(args) > 2 {
			fill = args[2].Text()
		}
		return pad(args[0].Text(), args[1].Int(), fill, c.Func == LPad)
	case Left, Right:
		r := []rune(args[0].Text())
		n := int(args[1].Int())
		if n < 0 {
			n = max(len(r)+n, 0)
		}
		n = min(n, len(r))
		if c.Func == Left {
			return repr.NewText(string(r[:n])), nil
		}
		return repr.NewText(string(r[len(r)-n:])), nil
	case Repeat:
		n := args[1].Int()
		if n <= 0 {
			return repr.NewText(""), nil
		}
		if int64(len(args[0].Text()))*n > maxStringResult {
			return repr.Null, errTooLong()
		}
		return repr.NewText(strings.Repeat(args[0].Text(), int(n))), nil
	case Reverse:
		r := []rune(args[0].Text())
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
		return repr.NewText(string(r)), nil
	case StartsWith:
		return repr.NewBool(strings.HasPrefix(args[0].Text(), args[1].Text())), nil
	case QuoteLiteral:
		return repr.NewText(quoteLiteral(args[0].Text())), nil
	case MD5:
		sum := md5.Sum([]byte(args[0].Text()))
		return repr.NewText(hex.EncodeToString(sum[:])), nil
	}
	return repr.Null, sqlerr.AssertionFailedf("unknown string function %d", c.Func)
}

// quoteLiteral is quote_literal: s in single quotes with quotes doubled;
// with a backslash in s, an E” literal with backslashes doubled too.
func quoteLiteral(s string) string {
	q := strings.ReplaceAll(s, "'", "''")
	if strings.Contains(s, `\`) {
		return "E'" + strings.ReplaceAll(q, `\`, `\\`) + "'"
	}
	return "'" + q + "'"
}

func splitPart(s, delim string, n int64) (repr.Datum, error) {
	if n == 0 {
		return repr.Null, sqlerr.New(sqlerr.InvalidParameterValue, "field position must not be zero")
	}
	var fields []string
	if delim == "" {
		fields = []string{s}
	} else {
		fields = strings.Split(s, delim)
	}
	if s == "" {
		fields = nil
	}
	i := n - 1
	if n < 0 {
		i = int64(len(fields)) + n
	}
	if i < 0 || i >= int64(len(fields)) {
		return repr.NewText(""), nil
	}
	return repr.NewText(fields[i]), nil
}

func pad(s string, n int64, fill string, left bool) (repr.Datum, error) {
	if n <= 0 {
		return repr.NewText(""), nil
	}
	if n*int64(utf8.UTFMax) > maxStringResult {
		return repr.Null, errTooLong()
	}
	r := []rune(s)
	if int64(len(r)) >= n || fill == "" {
		return repr.NewText(string(r[:min(int64(len(r)), n)])), nil
	}
	f := []rune(fill)
	padding := make([]rune, 0, n-int64(len(r)))
	for i := 0; int64(len(padding)) < n-int64(len(r)); i++ {
		padding = append(padding, f[i%len(f)])
	}
	if left {
		return repr.NewText(string(padding) + s), nil
	}
	return repr.NewText(s + string(padding)), nil
}

// parseIdent is parse_ident: the dot-separated parts of a qualified
// identifier, unquoted parts folded to lower case and quoted ones kept
// with their doubled quotes undone. Without strict, text after the
// identifier is ignored.
func parseIdent(s string, strict bool) (repr.Datum, error) {
	bad := func(detail string) error {
		e := sqlerr.New(sqlerr.InvalidParameterValue, "string is not a valid identifier: %q", s)
		if detail != "" {
			e = e.WithDetail("%s", detail)
		}
		return e
	}
	var parts []repr.Datum
	i := 0
	skipSpace := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
	}
	for {
		skipSpace()
		switch {
		case i < len(s) && s[i] == '"':
			var b strings.Builder
			i++
			closed := false
			for i < len(s) {
				if s[i] == '"' {
					if i+1 < len(s) && s[i+1] == '"' {
						b.WriteByte('"')
						i += 2
						continue
					}
					i++
					closed = true
					break
				}
				b.WriteByte(s[i])
				i++
			}
			if !closed {
				return repr.Null, bad("String has unclosed double quotes.")
			}
			if b.Len() == 0 {
				return repr.Null, bad("Quoted identifier must not be empty.")
			}
			parts = append(parts, repr.NewText(b.String()))
		default:
			start := i
			for i < len(s) {
				c := s[i]
				if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 || (i > start && (c >= '0' && c <= '9' || c == '$')) {
					i++
					continue
				}
				break
			}
			if i == start {
				if len(parts) == 0 {
					return repr.Null, bad("No valid identifier before \".\".")
				}
				return repr.Null, bad("No valid identifier after \".\".")
			}
			parts = append(parts, repr.NewText(strings.ToLower(s[start:i])))
		}
		skipSpace()
		if i < len(s) && s[i] == '.' {
			i++
			continue
		}
		if i < len(s) && strict {
			return repr.Null, bad("")
		}
		return repr.NewArray(repr.Text, parts), nil
	}
}

// format is format(f, args…): %s writes an argument's text (nothing for
// NULL), %I as an identifier (quote_ident; NULL is an error), %L as a
// literal (quote_literal; NULL as NULL), %% a percent sign. A conversion
// may name its argument (%2$s) and give a width (%10s, %-10s: padded
// on the left, or with - on the right).
func format(f string, args []repr.Datum) (repr.Datum, error) {
	var b strings.Builder
	next := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		i++
		if i >= len(f) {
			return repr.Null, sqlerr.New(sqlerr.InvalidParameterValue, "unterminated format() type specifier").
				WithHint(`For a single "%%" use "%%%%".`)
		}
		if f[i] == '%' {
			b.WriteByte('%')
			continue
		}
		// [position$][-][width]type
		j := i
		for j < len(f) && f[j] >= '0' && f[j] <= '9' {
			j++
		}
		arg := -1
		if j < len(f) && f[j] == '$' && j > i {
			n, err := strconv.Atoi(f[i:j])
			if err != nil || n == 0 {
				return repr.Null, sqlerr.New(sqlerr.InvalidParameterValue, "format specifies argument 0, but arguments are numbered from 1")
			}
			arg = n - 1
			i = j + 1
		}
		leftAlign := false
		if i < len(f) && f[i] == '-' {
			leftAlign = true
			i++
		}
		if i < len(f) && f[i] == '*' {
			return repr.Null, sqlerr.New(sqlerr.FeatureNotSupported, "format() widths taken from arguments (*) are not supported")
		}
		j = i
		for j < len(f) && f[j] >= '0' && f[j] <= '9' {
			j++
		}
		width := 0
		if j > i {
			w, err := strconv.Atoi(f[i:j])
			if err != nil || w > maxStringResult {
				return repr.Null, errTooLong()
			}
			width = w
		}
		i = j
		if i >= len(f) {
			return repr.Null, sqlerr.New(sqlerr.InvalidParameterValue, "unterminated format() type specifier").
				WithHint(`For a single "%%" use "%%%%".`)
		}
		if arg < 0 {
			arg = next
		}
		next = arg + 1
		if arg >= len(args) {
			return repr.Null, sqlerr.New(sqlerr.InvalidParameterValue, "too few arguments for format()")
		}
		v := args[arg]
		var text string
		switch f[i] {
		case 's':
			if !v.IsNull() {
				text = repr.FormatText(v)
			}
		case 'I':
			if v.IsNull() {
				return repr.Null, sqlerr.New(sqlerr.NullValueNotAllowed, "null values cannot be formatted as an SQL identifier")
			}
			text = quoteIdent(repr.FormatText(v))
		case 'L':
			text = "NULL"
			if !v.IsNull() {
				text = quoteLiteral(repr.FormatText(v))
			}
		default:
			return repr.Null, sqlerr.New(sqlerr.InvalidParameterValue, "unrecognized format() type specifier %q", string(f[i])).
				WithHint(`For a single "%%" use "%%%%".`)
		}
		if pad := width - utf8.RuneCountInString(text); pad > 0 {
			if leftAlign {
				text += strings.Repeat(" ", pad)
			} else {
				text = strings.Repeat(" ", pad) + text
			}
		}
		b.WriteString(text)
		if b.Len() > maxStringResult {
			return repr.Null, errTooLong()
		}
	}
	return repr.NewText(b.String()), nil
}

// chr is chr(int): the character with code n; a negative code, 0, a
// surrogate or a code past Unicode's last is 54000, as in PostgreSQL.
func chr(n int64) (repr.Datum, error) {
	switch {
	case n < 0:
		return repr.Null, sqlerr.New(sqlerr.ProgramLimitExceeded, "character number must be positive")
	case n == 0:
		return repr.Null, sqlerr.New(sqlerr.ProgramLimitExceeded, "null character not permitted")
	case n > utf8.MaxRune:
		return repr.Null, sqlerr.New(sqlerr.ProgramLimitExceeded, "requested character too large for encoding: %d", n)
	case n >= 0xD800 && n <= 0xDFFF:
		return repr.Null, sqlerr.New(sqlerr.ProgramLimitExceeded, "requested character not valid for encoding: %d", n)
	}
	return repr.NewText(string(rune(n))), nil
}
