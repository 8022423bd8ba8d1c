package coord

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"freshet/sqlerr"
)

var copyRowSeed = flag.Uint64("copyrow.seed", 0, "seed of TestCopyRowsMatchInsert (0: a fixed few)")

// TestCopyRowsMatchInsert copies seeded random rows, one COPY each, in
// an order of columns that is not the table's and with a column left to
// its default, and inserts the same values as quoted literals into a
// table of the same columns: both read the text with the types' input
// functions, COPY through its fast path where the form allows, so both
// must fail with the same SQLSTATE or hold the same rows.
func TestCopyRowsMatchInsert(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	if *copyRowSeed != 0 {
		seeds = []uint64{*copyRowSeed}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Logf("replay: go test ./coord -run '^TestCopyRowsMatchInsert$' -copyrow.seed=%d", seed)
			env := openSQL(t, t.TempDir())
			defer func() { env.e.Close() }()
			s := env.session()
			const cols = "(id int, a int NOT NULL, n numeric(10,2), u numeric, b int2, c int8, t text, d int DEFAULT 7)"
			env.exec(s, "CREATE TABLE viacopy "+cols)
			env.exec(s, "CREATE TABLE viainsert "+cols)
			rng := rand.New(rand.NewPCG(seed, 0xc0b1))
			texts := [][2]string{{"plain", "'plain'"}, {`tab\there`, `E'tab\there'`}, {"", "''"}, {`back\\slash`, `E'back\\slash'`}}
			for id := 1; id <= 300; id++ {
				// t, c, id, n, u, b, a, both ways; the table's order is
				// id, a, n, u, b, c, t, d.
				var copyFields, values [7]string
				tx := texts[rng.IntN(len(texts))]
				copyFields[0], values[0] = tx[0], tx[1]
				copyFields[2], values[2] = fmt.Sprint(id), fmt.Sprint(id)
				for _, k := range []int{1, 3, 4, 5, 6} {
					f := randomField(rng, k == 1 || k == 5 || k == 6)
					copyFields[k] = f
					if f == `\N` {
						values[k] = "NULL"
					} else {
						values[k] = "'" + f + "'"
					}
				}
				data := strings.Join(copyFields[:], "\t") + "\n"
				cerr := env.copyIn(s, "COPY viacopy (t, c, id, n, u, b, a) FROM STDIN", data)
				ierr := env.queryErr(s, "INSERT INTO viainsert (t, c, id, n, u, b, a) VALUES ("+strings.Join(values[:], ", ")+")")
				if sqlerr.Code(cerr) != sqlerr.Code(ierr) || (cerr == nil) != (ierr == nil) {
					t.Fatalf("row %q: COPY: %v; INSERT: %v", data, cerr, ierr)
				}
			}
			const all = "SELECT id, a, n, u, b, c, t, d FROM %s"
			if got, want := env.query(s, fmt.Sprintf(all, "viacopy")), env.query(s, fmt.Sprintf(all, "viainsert")); got != want {
				t.Errorf("COPY made\n%s\nINSERT made\n%s", got, want)
			}
			if got := env.query(s, "SELECT count(*) >= 30 FROM viacopy"); got != "t" {
				t.Errorf("too few rows were good: the test checks little (%s)", got)
			}
		})
	}
}

// randomField returns the text of a number field as COPY data may hold
// it, an integer's if integer: mostly plain, else NULL, or with a sign,
// white space, an exponent, many digits or none.
func randomField(rng *rand.Rand, integer bool) string {
	digits := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
		return b.String()
	}
	if integer && rng.IntN(4) > 0 {
		if rng.IntN(3) == 0 {
			return "-" + digits(1+rng.IntN(5))
		}
		return digits(1 + rng.IntN(5))
	}
	if rng.IntN(3) == 0 {
		return digits(1+rng.IntN(6)) + "." + digits(rng.IntN(4))
	}
	switch rng.IntN(14) {
	case 0:
		return `\N`
	case 1:
		return "-" + digits(1+rng.IntN(4))
	case 2:
		return "+" + digits(1+rng.IntN(3)) + "." + digits(rng.IntN(4))
	case 3:
		return " " + digits(2)
	case 4:
		return digits(1+rng.IntN(2)) + "e" + digits(1)
	case 5:
		return digits(10 + rng.IntN(12))
	case 6:
		return ""
	case 7:
		return "NaN"
	case 8:
		return "-" + digits(1+rng.IntN(9)) + "." + digits(1+rng.IntN(5))
	default:
		return digits(1+rng.IntN(4)) + "." + digits(rng.IntN(4))
	}
}

// TestCopyLongLine copies a line longer than COPY's read buffer, in the
// text and CSV formats, and the line after it.
func TestCopyLongLine(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE ll (id int, t text)")
	long := strings.Repeat("abcdefgh", 40_000)
	if err := env.copyIn(s, "COPY ll FROM STDIN", "1\t"+long+"\n2\tshort\n"); err != nil {
		t.Fatal(err)
	}
	if err := env.copyIn(s, "COPY ll FROM STDIN (FORMAT csv)", "3,\""+long+"\"\n4,short\n"); err != nil {
		t.Fatal(err)
	}
	if got := env.query(s, "SELECT id, length(t), t = repeat('abcdefgh', 40000) FROM ll"); got != "1,320000,t 2,5,f 3,320000,t 4,5,f" {
		t.Errorf("rows: %s", got)
	}
}
