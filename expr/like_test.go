package expr

import (
	"flag"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"freshet/sqlerr"
)

var likeSeed = flag.Int64("like-seed", 0, "run TestLikeOracle with this seed only")

// likeReference is the plain backtracking LIKE matcher, kept as the
// oracle for likeMatch: obviously right, and exponential on patterns
// such as '%a%a%a%ab'.
func likeReference(s, p string) (bool, error) {
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
				ok, err := likeReference(s[i:], rest)
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

// TestLikeOracle compares likeMatch with likeReference on random short
// texts and patterns over a small alphabet, so that matches, near misses
// and escapes are frequent: multibyte and invalid UTF-8 characters, and
// the pattern characters themselves in the text.
func TestLikeOracle(t *testing.T) {
	seeds := []int64{*likeSeed}
	if *likeSeed == 0 {
		seeds = []int64{1, 2, 3, 4, 5}
	}
	textAlphabet := []string{"a", "b", "é", "%", "_", "\\", "\xff", "A"}
	patAlphabet := []string{"a", "b", "é", "%", "%", "_", "\\", "\xff", "A"}
	gen := func(r *rand.Rand, alphabet []string, max int) string {
		var sb strings.Builder
		for n := r.Intn(max + 1); n > 0; n-- {
			sb.WriteString(alphabet[r.Intn(len(alphabet))])
		}
		return sb.String()
	}
	for _, seed := range seeds {
		t.Logf("seed %d", seed)
		r := rand.New(rand.NewSource(seed))
		matches, errs := 0, 0
		for range 20000 {
			s, p := gen(r, textAlphabet, 8), gen(r, patAlphabet, 7)
			if r.Intn(4) == 0 {
				// Texts that the pattern nearly describes.
				s = strings.NewReplacer("%", "ab", "_", "é", "\\", "").Replace(p)
			}
			want, wantErr := likeReference(s, p)
			got, gotErr := likeMatch(s, p)
			if got != want || sqlerr.Code(gotErr) != sqlerr.Code(wantErr) {
				t.Fatalf("likeMatch(%q, %q) = %v, %v; want %v, %v\nreplay: go test ./expr -run TestLikeOracle -like-seed=%d",
					s, p, got, gotErr, want, wantErr, seed)
			}
			if want {
				matches++
			}
			if wantErr != nil {
				errs++
			}
		}
		// The generator must exercise both outcomes and the error.
		if matches < 1000 || errs < 100 {
			t.Fatalf("seed %d: only %d matches and %d errors of 20000", seed, matches, errs)
		}
	}
}

// TestLikeCases pins cases the oracle may not draw: the error only when
// matching reaches the lone trailing backslash, and ILIKE.
func TestLikeCases(t *testing.T) {
	for _, tt := range []struct {
		s, p    string
		fold    bool
		want    bool
		wantErr bool
	}{
		{"abc", `x\`, false, false, false},
		{"abc", `%c\`, false, false, true},
		{"abc", `%x\`, false, false, false},
		{"ab", `ab\`, false, false, true},
		{"a\\", `a\\`, false, true, false},
		{strings.Repeat("a", 190), "%a%a%a%a%ab", false, false, false},
		{strings.Repeat("a", 190) + "b", "%a%a%a%a%ab", false, true, false},
		{"ÉCOLE", "é%", true, true, false},
		{"ÉCOLE", "é%", false, false, false},
	} {
		got, err := like(tt.s, tt.p, tt.fold)
		if (err != nil) != tt.wantErr || err == nil && got.Bool() != tt.want {
			t.Errorf("like(%.20q, %q, %v) = %v, %v; want %v, error %v", tt.s, tt.p, tt.fold, got, err, tt.want, tt.wantErr)
		}
	}
}

// BenchmarkLike measures adversarial patterns, which the backtracking
// matcher took exponential time on; the reference runs only where it
// finishes.
func BenchmarkLike(b *testing.B) {
	for _, bb := range []struct {
		name, s, p string
		reference  bool
	}{
		{"a24/%a%a%a%ab", strings.Repeat("a", 24), "%a%a%a%ab", true},
		{"a48/%a%a%a%ab", strings.Repeat("a", 48), "%a%a%a%ab", true},
		{"a190/%a%a%a%ab", strings.Repeat("a", 190), "%a%a%a%ab", false},
		{"a10000/%a%a%a%a%a%a%a%ab", strings.Repeat("a", 10000), "%a%a%a%a%a%a%a%ab", false},
		{"a10000/%_%_%_%_%b", strings.Repeat("a", 10000), "%_%_%_%_%b", false},
		{"text1000/%word%", strings.Repeat("lorem ipsum ", 83) + "word", "%word%", true},
	} {
		b.Run(bb.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := likeMatch(bb.s, bb.p); err != nil {
					b.Fatal(err)
				}
			}
		})
		if bb.reference {
			b.Run("reference/"+bb.name, func(b *testing.B) {
				for b.Loop() {
					if _, err := likeReference(bb.s, bb.p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
