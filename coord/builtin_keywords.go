package coord

import (
	"sort"
	"strings"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/planner"
	"freshet/repr"
)

// keywordColumns are the columns of pg_get_keywords().
var keywordColumns = []planner.RelationColumn{
	col("word", repr.Text, false), col("catcode", repr.Text, false),
	col("barelabel", repr.Bool, false), col("catdesc", repr.Text, false),
	col("baredesc", repr.Text, false),
}

// keywordsSQL is pg_get_keywords(): the keywords of Freshet's SQL parser
// (PostgreSQL's grammar, through pg_query), found by asking the parser
// itself: its scanner tells a keyword and its category, and a keyword is
// a bare label when SELECT 1 word names the column word. The parser is
// PostgreSQL 16's, so its few new keywords (json_array, system_user, …)
// are listed too.
func keywordsSQL() string {
	categories := map[pg.KeywordKind][2]string{
		pg.KeywordKind_UNRESERVED_KEYWORD:     {"U", "unreserved"},
		pg.KeywordKind_COL_NAME_KEYWORD:       {"C", "unreserved (cannot be function or type name)"},
		pg.KeywordKind_TYPE_FUNC_NAME_KEYWORD: {"T", "reserved (can be function or type name)"},
		pg.KeywordKind_RESERVED_KEYWORD:       {"R", "reserved"},
	}
	seen := map[string]bool{}
	var rows [][]string
	for _, name := range pg.Token_name {
		w := strings.ToLower(strings.TrimSuffix(name, "_P"))
		if seen[w] {
			continue
		}
		r, err := pg.Scan(w)
		if err != nil || len(r.Tokens) != 1 {
			continue
		}
		cat, ok := categories[r.Tokens[0].KeywordKind]
		if !ok {
			continue
		}
		seen[w] = true
		bare := false
		if tree, err := pg.Parse("SELECT 1 " + w); err == nil && len(tree.Stmts) == 1 {
			if sel := tree.Stmts[0].Stmt.GetSelectStmt(); sel != nil && len(sel.TargetList) == 1 {
				bare = sel.TargetList[0].GetResTarget().GetName() == w
			}
		}
		baredesc := "requires AS"
		if bare {
			baredesc = "can be bare label"
		}
		rows = append(rows, []string{sqlText(w), sqlText(cat[0]), sqlBool(bare), sqlText(cat[1]), sqlText(baredesc)})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i][0] < rows[j][0] })
	return constRowsSQL(keywordColumns, rows)
}

func init() {
	builtinViews["freshet_keywords"] = builtinView{columns: keywordColumns, build: sync.OnceValue(keywordsSQL)}
}
