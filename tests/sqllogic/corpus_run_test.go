package sqllogic

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// floorFile holds the pass counts the corpus run may not fall below.
const floorFile = "testdata/corpus-floor.txt"

// minPassRate is the share of the plain run's records (statements and
// queries that ran) that must pass.
const minPassRate = 0.990

// corpusSummary is the part of slt's --summary that the test reads.
type corpusSummary struct {
	Modes map[string]struct {
		Statements Counts `json:"statements"`
		Queries    Counts `json:"queries"`
		Views      Counts `json:"views"`
		Broken     int    `json:"broken"`
	} `json:"modes"`
	Files []struct {
		File       string  `json:"file"`
		Mode       string  `json:"mode"`
		Statements Counts  `json:"statements"`
		Queries    Counts  `json:"queries"`
		Views      Counts  `json:"views"`
		Seconds    float64 `json:"seconds"`
		Error      string  `json:"error"`
	} `json:"files"`
}

// readFloors reads "mode count" lines; # starts a comment.
func readFloors(t *testing.T) map[string]int {
	t.Helper()
	f, err := os.Open(floorFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	floors := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		n, err := strconv.Atoi(fields[len(fields)-1])
		if len(fields) != 2 || err != nil {
			t.Fatalf("%s: bad line %q", floorFile, sc.Text())
		}
		floors[fields[0]] = n
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return floors
}

// TestCorpus runs the whole shared sqllogictest corpus through the slt
// command, built without the race detector (the runtime's own tests run
// with it), each file on a fresh in-process server: as queries, then in
// both view modes. The plain run must pass at least 99.0% of the records
// it runs and no fewer than the floor; each view mode must have no
// failed view and no fewer passing views than its floor; every file must
// run to its end.
func TestCorpus(t *testing.T) {
	dir := filepath.Join(corpusDir, "sqlite")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the sqllogictest corpus is missing: want it at %s: %v", dir, err)
	}
	floors := readFloors(t)
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "slt")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/slt").CombinedOutput(); err != nil {
		t.Fatalf("building slt: %v\n%s", err, out)
	}
	sumFile := filepath.Join(tmp, "summary.json")
	logFile := filepath.Join(tmp, "slt.log")
	log, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--embedded", "--views", "both", "--timeout", "2m", "--max-failures", "0",
		"--summary", sumFile, dir)
	cmd.Stdout, cmd.Stderr = log, log
	runErr := cmd.Run() // exits 1 when any record fails, which some do
	log.Close()
	out, _ := os.ReadFile(logFile)
	data, err := os.ReadFile(sumFile)
	if err != nil {
		t.Fatalf("slt wrote no summary (%v): %v\n%s", runErr, err, out)
	}
	var sum corpusSummary
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	for _, f := range sum.Files {
		name, err := filepath.Rel(dir, f.File)
		if err != nil {
			name = f.File
		}
		line := fmt.Sprintf("%-40s %-12s statements %5d/%5d  queries %5d/%5d", name, f.Mode,
			f.Statements.Passed, f.Statements.Run(), f.Queries.Passed, f.Queries.Run())
		if f.Mode != "queries" {
			line += fmt.Sprintf("  views %5d/%5d", f.Views.Passed, f.Views.Run())
		}
		t.Logf("%s  %6.1fs", line, f.Seconds)
	}
	failed := false
	for _, l := range strings.Split(string(out), "\n") {
		// The failure messages, which start with a file position.
		if strings.HasPrefix(l, dir) && strings.Contains(l, ".test:") {
			t.Log(l)
		}
	}

	plain, ok := sum.Modes["queries"]
	if !ok {
		t.Fatalf("no plain run in the summary:\n%s", data)
	}
	total := plain.Statements.Add(plain.Queries)
	rate := float64(total.Passed) / float64(max(total.Run(), 1))
	t.Logf("queries: %d of %d records passed (%.2f%%), floor %d", total.Passed, total.Run(), 100*rate, floors["queries"])
	if rate < minPassRate {
		t.Errorf("queries: pass rate %.2f%% is below %.1f%%", 100*rate, 100*minPassRate)
		failed = true
	}
	check := func(mode string, passed int) {
		floor, ok := floors[mode]
		if !ok {
			t.Errorf("%s has no floor for %s", floorFile, mode)
			return
		}
		switch {
		case passed < floor:
			t.Errorf("%s: %d passed, below the floor of %d", mode, passed, floor)
			failed = true
		case passed > floor:
			t.Logf("%s: %d passed; the floor in %s can rise from %d", mode, passed, floorFile, floor)
		}
	}
	check("queries", total.Passed)
	for _, mode := range []string{"views-before", "views-after"} {
		m, ok := sum.Modes[mode]
		if !ok {
			t.Errorf("no %s run in the summary", mode)
			continue
		}
		t.Logf("%s: views %v", mode, m.Views)
		if m.Views.Failed > 0 {
			t.Errorf("%s: %d views failed", mode, m.Views.Failed)
			failed = true
		}
		check(mode, m.Views.Passed)
	}
	for mode, m := range sum.Modes {
		if m.Broken > 0 {
			t.Errorf("%s: %d files did not run to their end", mode, m.Broken)
			failed = true
		}
	}
	if failed {
		t.Logf("slt's output:\n%s", out)
	}
}
