package expr

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"freshet/repr"
)

// TestTimePartGolden checks extract(epoch from a) and date_part('second',
// a) of random times against PostgreSQL 15's answers, kept with repr's
// time arithmetic cases.
func TestTimePartGolden(t *testing.T) {
	f, err := os.Open("../repr/testdata/time_arith.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		c := strings.Split(sc.Text(), "\t")
		a, err := repr.ParseText(repr.Time, c[0])
		if err != nil {
			t.Fatal(err)
		}
		epoch, err := timePart("epoch", a.Time(), true)
		if err != nil || repr.FormatText(epoch) != c[8] {
			t.Errorf("extract(epoch from %s) = %s (%v), PostgreSQL %s", c[0], repr.FormatText(epoch), err, c[8])
		}
		sec, err := timePart("second", a.Time(), false)
		if err != nil || repr.FormatText(sec) != c[9] {
			t.Errorf("date_part('second', %s) = %s (%v), PostgreSQL %s", c[0], repr.FormatText(sec), err, c[9])
		}
		n++
	}
	if err := sc.Err(); err != nil || n == 0 {
		t.Fatalf("read %d cases: %v", n, err)
	}
}
