package expr

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"

	"freshet/repr"
	"freshet/sqlerr"
)

// PostgreSQL's regular expressions (its "advanced" flavour, ARE) are run
// here with Go's RE2 engine, which matches in linear time. The two agree
// on the common syntax: literals, classes, [...] brackets, anchors,
// quantifiers, alternation and groups. Where they differ:
//
//   - In PostgreSQL, . matches a newline and ^ and $ anchor only at the
//     ends of the text; RE2 gets the (?s) flag to agree.
//   - \Z (end of text) becomes RE2's \z.
//   - Word boundaries \m, \M, \y and \Y, back references and lookaround
//     are refused with SQLSTATE 2201B rather than matched differently.

// regexCacheSize bounds the compiled patterns kept for patterns that are
// not constant. A full cache is emptied rather than evicted piecemeal:
// simple, and a workload with that many distinct patterns gains little
// from caching anyway.
const regexCacheSize = 256

var regexCache struct {
	mu sync.Mutex
	// m maps a fold flag and pattern to its compiled form.
	// Invariant: len(m) <= regexCacheSize.
	m map[regexKey]*regexp.Regexp
}

type regexKey struct {
	pattern string
	fold    bool
}

// CompileRegex compiles a PostgreSQL regular expression for RE2, caching
// the result. fold makes it case-insensitive. An invalid or unsupported
// pattern is SQLSTATE 2201B.
func CompileRegex(pattern string, fold bool) (*regexp.Regexp, error) {
	k := regexKey{pattern: pattern, fold: fold}
	regexCache.mu.Lock()
	re, ok := regexCache.m[k]
	regexCache.mu.Unlock()
	if ok {
		return re, nil
	}
	src, err := translateRegex(pattern)
	if err != nil {
		return nil, err
	}
	flags := "(?s)"
	if fold {
		flags = "(?si)"
	}
	re, err = regexp.Compile(flags + src)
	if err != nil {
		msg := err.Error()
		if e, ok := err.(*syntax.Error); ok {
			msg = string(e.Code)
		}
		return nil, sqlerr.New(sqlerr.InvalidRegularExpression, "invalid regular expression: %s", msg)
	}
	regexCache.mu.Lock()
	if regexCache.m == nil || len(regexCache.m) >= regexCacheSize {
		regexCache.m = make(map[regexKey]*regexp.Regexp)
	}
	regexCache.m[k] = re
	regexCache.mu.Unlock()
	return re, nil
}

// translateRegex rewrites the escapes where PostgreSQL and RE2 differ and
// refuses those RE2 cannot match the same way.
func translateRegex(p string) (string, error) {
	var sb strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != '\\' {
			sb.WriteByte(c)
			continue
		}
		if i+1 == len(p) {
			return "", sqlerr.New(sqlerr.InvalidRegularExpression, "invalid regular expression: invalid escape \\ sequence")
		}
		i++
		switch n := p[i]; {
		case n == 'Z':
			sb.WriteString(`\z`)
		case n == 'm' || n == 'M' || n == 'y' || n == 'Y':
			return "", sqlerr.New(sqlerr.InvalidRegularExpression, "invalid regular expression: word boundary \\%c is not supported", n)
		case n >= '1' && n <= '9':
			return "", sqlerr.New(sqlerr.InvalidRegularExpression, "invalid regular expression: back references are not supported")
		default:
			sb.WriteByte('\\')
			sb.WriteByte(n)
		}
	}
	return sb.String(), nil
}

// regexMatch reports whether pattern matches anywhere in s.
func regexMatch(s, pattern string, fold bool) (repr.Datum, error) {
	re, err := CompileRegex(pattern, fold)
	if err != nil {
		return repr.Null, err
	}
	return repr.NewBool(re.MatchString(s)), nil
}

// regexpReplace is PostgreSQL's regexp_replace: the first match (every
// match with flag g) is replaced; flag i ignores case. In the replacement,
// \1 to \9 are the groups, \& the whole match and \\ a backslash.
func regexpReplace(s, pattern, repl, flags string) (repr.Datum, error) {
	global, fold := false, false
	for _, f := range flags {
		switch f {
		case 'g':
			global = true
		case 'i':
			fold = true
		case 'c':
			fold = false
		default:
			return repr.Null, sqlerr.New(sqlerr.InvalidParameterValue, "invalid regular expression option: \"%c\"", f)
		}
	}
	re, err := CompileRegex(pattern, fold)
	if err != nil {
		return repr.Null, err
	}
	var sb strings.Builder
	last := 0
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		sb.WriteString(s[last:m[0]])
		expandReplacement(&sb, s, repl, m)
		last = m[1]
		if !global {
			break
		}
	}
	sb.WriteString(s[last:])
	return repr.NewText(sb.String()), nil
}

// expandReplacement writes repl with its group references filled in from
// match m of s.
func expandReplacement(sb *strings.Builder, s, repl string, m []int) {
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c != '\\' || i+1 == len(repl) {
			sb.WriteByte(c)
			continue
		}
		n := repl[i+1]
		switch {
		case n >= '1' && n <= '9':
			if g := int(n - '0'); 2*g+1 < len(m) && m[2*g] >= 0 {
				sb.WriteString(s[m[2*g]:m[2*g+1]])
			}
			i++
		case n == '&':
			sb.WriteString(s[m[0]:m[1]])
			i++
		case n == '\\':
			sb.WriteByte('\\')
			i++
		default:
			sb.WriteByte(c)
		}
	}
}
