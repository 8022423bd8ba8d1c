package planner

import (
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/expr"
)

// quote_ident's keyword list (expr) agrees with the parser: every word
// on it is a keyword that is not unreserved, and words known to be
// unreserved or not keywords at all are not on it.
func TestQuotedKeywordsAgreeWithParser(t *testing.T) {
	kind := func(w string) pg.KeywordKind {
		res, err := pg.Scan(w)
		if err != nil || len(res.Tokens) != 1 {
			t.Fatalf("scan %q: %v %v", w, res, err)
		}
		return res.Tokens[0].KeywordKind
	}
	on := map[string]bool{}
	for _, w := range expr.QuotedKeywords() {
		on[w] = true
		if k := kind(w); k == pg.KeywordKind_NO_KEYWORD || k == pg.KeywordKind_UNRESERVED_KEYWORD {
			t.Errorf("%q is on the list but is %v", w, k)
		}
	}
	if len(on) != 151 {
		t.Errorf("%d keywords, PostgreSQL 15 has 151 that are not unreserved", len(on))
	}
	for _, w := range []string{"name", "abort", "orders", "text", "zone", "value"} {
		if on[w] {
			t.Errorf("%q is on the list but is %v", w, kind(w))
		}
	}
}
