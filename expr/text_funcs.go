package expr

import (
	"math"
	"strings"
	"unicode/utf8"

	"freshet/repr"
	"freshet/sqlerr"
)

// like matches s against a LIKE pattern: % matches any run of characters,
// _ any one character, and a backslash makes the next character literal.
// A pattern ending in a lone backslash is an error, as in PostgreSQL.
func like(s, pattern string, fold bool) (repr.Datum, error) {
	if fold {
		s, pattern = strings.ToLower(s), strings.ToLower(pattern)
	}
	ok, err := likeMatch(s, pattern)
	if err != nil {
		return repr.Null, err
	}
	return repr.NewBool(ok), nil
}

func likeMatch(s, p string) (bool, error) {
	for len(p) > 0 {
		r, n := utf8.DecodeRuneInString(p)
		switch r {
		case '%':
			rest := p[n:]
			for len(rest) > 0 && rest[0] == '%' {
				rest = rest[1:]
			}
			if rest == "" {
				return true, nil
			}
			for i := 0; i <= len(s); {
				ok, err := likeMatch(s[i:], rest)
				if err != nil || ok {
					return ok, err
				}
				if i == len(s) {
					break
				}
				_, w := utf8.DecodeRuneInString(s[i:])
				i += w
			}
			return false, nil
		case '_':
			if s == "" {
				return false, nil
			}
			_, w := utf8.DecodeRuneInString(s)
			s, p = s[w:], p[n:]
		default:
			if r == '\\' {
				p = p[n:]
				if p == "" {
					return false, sqlerr.New(sqlerr.InvalidEscapeSequence, "LIKE pattern must not end with escape character")
				}
				r, n = utf8.DecodeRuneInString(p)
			}
			c, w := utf8.DecodeRuneInString(s)
			if s == "" || c != r {
				return false, nil
			}
			s, p = s[w:], p[n:]
		}
	}
	return s == "", nil
}

// roundToward rounds a float8 or numeric down (floor) or up (ceil).
func roundToward(a repr.Datum, up bool) (repr.Datum, error) {
	switch a.Kind() {
	case repr.KindFloat4, repr.KindFloat8:
		f := math.Floor(a.Float())
		if up {
			f = math.Ceil(a.Float())
		}
		return repr.NewFloat8(f), nil
	case repr.KindNumeric:
		return repr.FloorNumeric(a, up), nil
	}
	return a, nil
}

// round implements round(x) and round(x, n).
func round(args []repr.Datum) (repr.Datum, error) {
	x := args[0]
	n := int64(0)
	if len(args) > 1 {
		n = args[1].Int()
	}
	switch x.Kind() {
	case repr.KindFloat4, repr.KindFloat8:
		if len(args) > 1 {
			return repr.Null, sqlerr.New(sqlerr.UndefinedFunction, "function round(double precision, integer) does not exist")
		}
		return repr.NewFloat8(math.RoundToEven(x.Float())), nil
	case repr.KindNumeric:
		return repr.RoundNumeric(x, n), nil
	}
	return x, nil
}

// substr implements substr(s, from [, count]) on characters.
func substr(args []repr.Datum) (repr.Datum, error) {
	r := []rune(args[0].Text())
	from := args[1].Int()
	end := int64(len(r)) + 1
	if len(args) > 2 {
		count := args[2].Int()
		if count < 0 {
			return repr.Null, sqlerr.New(sqlerr.SubstringError, "negative substring length not allowed")
		}
		end = from + count
	}
	lo, hi := max(from, 1), min(end, int64(len(r))+1)
	if hi <= lo {
		return repr.NewText(""), nil
	}
	return repr.NewText(string(r[lo-1 : hi-1])), nil
}
