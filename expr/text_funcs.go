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
// A pattern ending in a lone backslash is an error, as in PostgreSQL,
// when matching reaches that backslash: when the pattern before it
// matches a prefix of s. ILIKE (fold) lowercases both sides first.
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

// likeMatch reports whether s matches the LIKE pattern p.
func likeMatch(s, p string) (bool, error) {
	items, danglingEscape := compileLike(p)
	if danglingEscape {
		// Nothing can match past the lone backslash; matching fails there
		// with the error if it gets that far, otherwise it is false.
		if matchLike(s, append(items, likeItem{kind: likeAnyRun})) {
			return false, sqlerr.New(sqlerr.InvalidEscapeSequence, "LIKE pattern must not end with escape character")
		}
		return false, nil
	}
	return matchLike(s, items), nil
}

type likeKind uint8

const (
	likeLiteral likeKind = iota // one given character
	likeAnyChar                 // _: any one character
	likeAnyRun                  // %: any run of characters, empty too
)

// likeItem is one element of a compiled LIKE pattern.
type likeItem struct {
	kind likeKind
	r    rune // the character of a likeLiteral
}

// compileLike turns a pattern into items, a run of % into one item, and
// reports whether the pattern ends in a lone backslash (left out of the
// items). Characters are decoded as utf8.DecodeRuneInString does, so an
// invalid byte is utf8.RuneError, as it is in the matched text.
func compileLike(p string) (items []likeItem, danglingEscape bool) {
	for len(p) > 0 {
		r, n := utf8.DecodeRuneInString(p)
		p = p[n:]
		switch r {
		case '%':
			if len(items) == 0 || items[len(items)-1].kind != likeAnyRun {
				items = append(items, likeItem{kind: likeAnyRun})
			}
		case '_':
			items = append(items, likeItem{kind: likeAnyChar})
		case '\\':
			if p == "" {
				return items, true
			}
			r, n = utf8.DecodeRuneInString(p)
			p = p[n:]
			items = append(items, likeItem{kind: likeLiteral, r: r})
		default:
			items = append(items, likeItem{kind: likeLiteral, r: r})
		}
	}
	return items, false
}

// matchLike reports whether s matches items, in O(len(s) * len(items))
// time and no allocation.
//
// It matches greedily and, on a mismatch, retries only from the latest
// %: that % takes one more character of s and the items after it start
// again. Earlier % need no retry. If the items after the latest % match
// at no position of s from here, giving an earlier % more characters
// only starts them later, which cannot help; and if they match at some
// position, the first such is as good as any, because what follows it
// is again tried from the next %. So each % is retried at most once per
// character of s, which is what keeps '%a%a%a%ab' linear where plain
// backtracking is exponential.
func matchLike(s string, items []likeItem) bool {
	si, pi := 0, 0
	// star is the index of the latest % seen, -1 before any; starSi is
	// where in s the items after it are being tried.
	star, starSi := -1, 0
	for {
		if pi == len(items) {
			if si == len(s) {
				return true
			}
		} else {
			switch it := items[pi]; it.kind {
			case likeAnyRun:
				star, starSi = pi, si
				pi++
				continue
			case likeAnyChar:
				if si < len(s) {
					_, w := utf8.DecodeRuneInString(s[si:])
					si += w
					pi++
					continue
				}
			default:
				if si < len(s) {
					if r, w := utf8.DecodeRuneInString(s[si:]); r == it.r {
						si += w
						pi++
						continue
					}
				}
			}
		}
		// A mismatch: let the latest % take one more character.
		if star < 0 || starSi == len(s) {
			return false
		}
		_, w := utf8.DecodeRuneInString(s[starSi:])
		starSi += w
		si, pi = starSi, star+1
	}
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
