package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// chromium runs headless Chromium on url with args, giving the page's
// scripts three seconds of its virtual clock (enough for several of the
// console's updates), and returns what it printed.
//
// Headless Chromium now and then never exits on a page with a live
// stream (the console's events), its virtual clock waiting on a fetch.
// A run is given chromiumTimeout; one that overruns is killed with every
// process it started and run again, once. Two in a row fail the test.
func chromium(t *testing.T, url string, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium is required (apt-get install chromium; scripts/test installs it): %v", err)
	}
	full := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--hide-scrollbars", "--window-size=1400,1000", "--virtual-time-budget=3000"}, args...)
	for attempt := 1; ; attempt++ {
		out, errOut, err := runChromium(t, bin, append(full, url))
		if err == nil {
			return out
		}
		if !errors.Is(err, context.DeadlineExceeded) || attempt == 2 {
			t.Fatalf("chromium (attempt %d): %v\n%s", attempt, err, errOut)
		}
		t.Logf("chromium did not finish in %v; killed, running it again", chromiumTimeout)
	}
}

// chromiumTimeout bounds one run of headless Chromium.
const chromiumTimeout = 90 * time.Second

// runChromium runs bin with args in a process group of its own, which
// is killed whole when the run overruns chromiumTimeout and after it
// ends, so that no renderer or GPU process outlives it.
func runChromium(t *testing.T, bin string, args []string) (string, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), chromiumTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	return out.String(), errOut.String(), err
}

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
// shares it), shows its figures and updates them live; a screenshot is
// kept.
func TestConsoleInBrowser(t *testing.T) {
	web := freeAddr(t)
	s := startBinary(t, "--http-listen", web)
	s.must("CREATE TABLE orders (id int, customer int)")
	s.must("INSERT INTO orders SELECT x, x % 7 FROM generate_series(1, 1000) AS g(x)")
	s.must("CREATE MATERIALIZED VIEW per_customer AS SELECT customer, count(*) AS n FROM orders GROUP BY customer")
	s.must("CREATE INDEX per_customer_idx ON per_customer (customer)")
	url := "http://" + web + "/?view=per_customer"

	dom := chromium(t, url, "--dump-dom")
	for _, want := range []string{`id="obj-orders"`, `id="obj-per_customer"`, `id="obj-per_customer_idx"`,
		`data-name="import `, `data-name="accumulate"`, `data-name="arrange `, "per_customer_idx</b>"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the console lacks %s", want)
		}
	}
	if n, err := strconv.Atoi(field(dom, "updates")); err != nil || n < 1 {
		t.Errorf("updates received: %q", field(dom, "updates"))
	}
	if lag := field(dom, "freshness"); lag != "0" {
		t.Errorf("the view's freshness lag: %q", lag)
	}
	if got := field(dom, "records"); got != "7" {
		t.Errorf("the view's records: %q", got)
	}
	// Writes move the figures: three more customers, three more rows.
	s.must("INSERT INTO orders SELECT x, x FROM generate_series(1001, 1003) AS g(x)")
	dom2 := chromium(t, url, "--dump-dom")
	if got := field(dom2, "records"); got != "10" {
		t.Errorf("the view's records after the insert: %q", got)
	}
	if field(dom, "live") == field(dom2, "live") {
		t.Errorf("the console's time did not move: %q", field(dom2, "live"))
	}

	dir := os.Getenv("FRESHET_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "freshet-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "console.png")
	chromium(t, url, "--screenshot="+shot)
	png, err := os.ReadFile(shot)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) || len(png) < 10_000 {
		t.Fatalf("the screenshot %s: %d bytes, %v", shot, len(png), err)
	}
	t.Logf("screenshot: %s (%d bytes)", shot, len(png))
}
