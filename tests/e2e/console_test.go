package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// field returns the text of the element with id in dom.
func field(dom, id string) string {
	m := regexp.MustCompile(`id="` + id + `"[^>]*>([^<]*)<`).FindStringSubmatch(dom)
	if m == nil {
		return ""
	}
	return m[1]
}

// TestConsoleInBrowser loads the web console in headless Chromium against
// the binary with a view over a table: the page lists the objects, draws
// the view's dataflow (its imports, its operators, its export and who
// shares it), shows its figures and updates them live as rows are
// written; a screenshot is kept.
func TestConsoleInBrowser(t *testing.T) {
	web := freeAddr(t)
	s := startBinary(t, "--http-listen", web)
	s.must("CREATE TABLE orders (id int, customer int)")
	s.must("INSERT INTO orders SELECT x, x % 7 FROM generate_series(1, 1000) AS g(x)")
	s.must("CREATE MATERIALIZED VIEW per_customer AS SELECT customer, count(*) AS n FROM orders GROUP BY customer")
	s.must("CREATE INDEX per_customer_idx ON per_customer (customer)")

	b := startBrowser(t)
	b.open("http://" + web + "/?view=per_customer")
	b.waitFor("the view's figures from a live update",
		`+document.getElementById("updates").textContent >= 1 && document.getElementById("records").textContent === "7"`)
	// The lag is read live: under load a write (a system table's, a
	// session's) may be fed a moment before the view's frontier passes
	// it, so the page must come to show the view caught up.
	b.waitFor("the view's freshness lag at 0", `document.getElementById("freshness").textContent === "0"`)
	dom := b.dom()
	for _, want := range []string{`id="obj-orders"`, `id="obj-per_customer"`, `id="obj-per_customer_idx"`,
		`data-name="import `, `data-name="accumulate"`, `data-name="arrange `, "per_customer_idx</b>"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the console lacks %s", want)
		}
	}
	live := field(dom, "live")
	if !strings.HasPrefix(live, "live · as of ") {
		t.Errorf("the console's clock: %q", live)
	}

	// Writes move the open page's figures: three more customers, three
	// more records, and a later time.
	s.must("INSERT INTO orders SELECT x, x FROM generate_series(1001, 1003) AS g(x)")
	b.waitFor("the insert", `document.getElementById("records").textContent === "10"`)
	b.waitFor("the console's time moving",
		`document.getElementById("live").textContent !== `+strconv.Quote(live))

	dir := os.Getenv("FRESHET_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "freshet-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	png := b.screenshot()
	if !bytes.HasPrefix(png, []byte("\x89PNG")) || len(png) < 10_000 {
		t.Fatalf("the screenshot: %d bytes, starting %q", len(png), png[:min(len(png), 8)])
	}
	shot := filepath.Join(dir, "console.png")
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", shot, len(png))
}
