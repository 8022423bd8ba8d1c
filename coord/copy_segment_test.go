package coord

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"freshet/expr"
	"freshet/pgwire"
	"freshet/repr"
	"freshet/sqlerr"
)

var copySegmentSeed = flag.Uint64("copysegment.seed", 0, "seed of TestCopySegmentsMatchRows (0: a fixed few)")

// withSegmentSize sets copySegmentSize to n for the rest of the test.
func withSegmentSize(t testing.TB, n int) {
	old := copySegmentSize
	copySegmentSize = n
	t.Cleanup(func() { copySegmentSize = old })
}

// unsegmented is a segment size that holds any of the tests' data: the
// COPY reads it with copyRows, one row at a time.
const unsegmented = 1 << 24

// copyFeed is a pgwire.QueryWriter whose COPY FROM STDIN reads r.
type copyFeed struct {
	recorder
	r io.Reader
}

func (f *copyFeed) CopyIn(pgwire.CopyFormat) (io.Reader, error) { return f.r, nil }

// pieceReader gives data in pieces of seeded random sizes up to max, as
// CopyData messages arrive, then fails with err (io.EOF: the data's
// end). Once read reaches at, it calls then.
type pieceReader struct {
	data string
	rng  *rand.Rand
	max  int
	err  error
	read int
	at   int
	then func()
}

func (r *pieceReader) Read(p []byte) (int, error) {
	if r.read == len(r.data) {
		return 0, r.err
	}
	n := min(len(p), len(r.data)-r.read, 1+r.rng.IntN(r.max))
	copy(p, r.data[r.read:r.read+n])
	r.read += n
	if r.then != nil && r.read >= r.at {
		r.then()
		r.then = nil
	}
	return n, nil
}

// copyResult runs sql, a COPY FROM STDIN of data, in segments of size
// bytes, with the data failing at failAt with errGone (-1: not), inside
// a transaction block that it then rolls back, and shows what the COPY
// did: its error, or the rows it wrote, in order, as the table stores
// them.
func copyResult(env *sqlEnv, s *Session, sql, data string, size, failAt int, rng *rand.Rand) string {
	env.t.Helper()
	withSegmentSize(env.t, size)
	r := &pieceReader{data: data, rng: rng, max: 300, err: io.EOF}
	if failAt >= 0 {
		r.data, r.err = data[:failAt], errGone
	}
	env.exec(s, "BEGIN")
	defer env.exec(s, "ROLLBACK")
	if err := s.Query(context.Background(), sql, &copyFeed{r: r}); err != nil {
		e := sqlerr.From(err)
		return fmt.Sprintf("error %s %q detail %q", e.Code, e.Message, e.Detail)
	}
	var b strings.Builder
	for _, w := range s.tx.writes {
		fmt.Fprintf(&b, "%x\n", w.Row)
	}
	return b.String()
}

// errGone is the read error of TestCopySegmentsMatchRows, as a client
// that fails its COPY gives.
var errGone = sqlerr.New(sqlerr.QueryCanceled, "COPY from stdin failed: gone")

// TestCopySegmentsMatchRows copies seeded random text, in segments of a
// few bytes to a kilobyte read in pieces of random sizes, and again one
// row at a time (copyRows): both must write the same rows in the same
// order, or fail with the same error, place included. The text has
// escapes, NULLs, \r\n and \n line breaks, lines longer than a segment,
// a last line with and without its line break, end markers, and in
// some inputs bad values, wrong field counts, NULLs in a NOT NULL column
// and a read that fails part way.
func TestCopySegmentsMatchRows(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4, 5}
	if *copySegmentSeed != 0 {
		seeds = []uint64{*copySegmentSeed}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Logf("replay: go test ./coord -run '^TestCopySegmentsMatchRows$' -copysegment.seed=%d", seed)
			env := openSQL(t, t.TempDir())
			defer func() { env.e.Close() }()
			s := env.session()
			env.exec(s, "CREATE TABLE seg (k int NOT NULL, t text, n numeric(10,2), d int DEFAULT 7)")
			rng := rand.New(rand.NewPCG(seed, 0x5e9))
			sizes := []int{16, 37, 64, 128, 1000}
			var failed, wrote int
			for range 30 {
				data := randomCopyText(rng, 20+rng.IntN(200), rng.IntN(2) == 0)
				failAt := -1
				if rng.IntN(4) == 0 {
					failAt = rng.IntN(len(data) + 1)
				}
				size := sizes[rng.IntN(len(sizes))]
				sql := "COPY seg (k, t, n) FROM STDIN"
				pieces := rng.Uint64()
				got := copyResult(env, s, sql, data, size, failAt, rand.New(rand.NewPCG(pieces, 1)))
				want := copyResult(env, s, sql, data, unsegmented, failAt, rand.New(rand.NewPCG(pieces, 1)))
				if got != want {
					t.Fatalf("data %q, segments of %d, failing at %d:\nin segments: %s\none row at a time: %s", data, size, failAt, got, want)
				}
				if strings.HasPrefix(got, "error") {
					failed++
				} else {
					wrote++
				}
			}
			if failed < 3 || wrote < 10 {
				t.Errorf("%d COPYs failed and %d wrote: the test checks little", failed, wrote)
			}
		})
	}
}

// randomCopyText returns lines of text format for (k int NOT NULL, t
// text, n numeric(10,2)); flawed adds bad lines now and then.
func randomCopyText(rng *rand.Rand, lines int, flawed bool) string {
	texts := []string{"plain", `tab\there`, `new\nline`, `back\\slash`, `\N`, "", "é ü", "a\rb", `\.x`}
	var b strings.Builder
	for range lines {
		flaw := flawed && rng.IntN(60) == 0
		k := fmt.Sprint(rng.IntN(2000) - 1000)
		if flaw && rng.IntN(3) == 0 {
			k = []string{"x", `\N`, "99999999999"}[rng.IntN(3)]
			flaw = false
		}
		t := texts[rng.IntN(len(texts))]
		if rng.IntN(20) == 0 {
			t = strings.Repeat("long ", 20+rng.IntN(200))
		}
		n := fmt.Sprintf("%d.%02d", rng.IntN(10000), rng.IntN(100))
		if rng.IntN(10) == 0 {
			n = `\N`
		}
		fields := []string{k, t, n}
		switch {
		case flaw && rng.IntN(2) == 0:
			fields = fields[:1+rng.IntN(2)]
		case flaw:
			fields = append(fields, "extra")
		}
		line := strings.Join(fields, "\t")
		if rng.IntN(150) == 0 {
			line = `\.`
		}
		b.WriteString(line)
		if rng.IntN(3) == 0 {
			b.WriteString("\r\n")
		} else {
			b.WriteString("\n")
		}
	}
	data := b.String()
	if rng.IntN(3) == 0 {
		// A last line without its line break, or with only its \r.
		data = strings.TrimSuffix(data, "\n")
	}
	return data
}

// orderLines returns lines from to to of 16 bytes each, four to a
// segment of 64 bytes, for orders (id int NOT NULL, customer int,
// amount numeric(10,2)).
func orderLines(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%05d\t%05d\t%03d\n", i, i*37%1000, i%1000)
	}
	return b.String()
}

// TestCopySegmentErrors: a COPY read in segments of four lines reports
// the error of the first line that fails, in the data's order, with the
// place PostgreSQL gives (the line counted from the data's first, the
// header's included; the column for a value), however far into the data
// and whichever segment's parse ends first; a failed read after whole
// lines reports the lines before it; an end marker ends the data, and
// what follows it is not read as rows. Each COPY reports the same one
// row at a time.
func TestCopySegmentErrors(t *testing.T) {
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE orders (id int NOT NULL, customer int, amount numeric(10,2))")
	const copySQL = "COPY orders FROM STDIN"
	bad := func(line int, text string) string {
		return strings.Replace(orderLines(1, 40), orderLines(line, line), text, 1)
	}
	for _, c := range []struct {
		name, sql, data string
		failAt          int
		want            string
	}{
		{name: "value in the 3rd segment", data: bad(10, "00010\tx\t010\n"),
			want: `error 22P02 "invalid input syntax for type integer: \"x\"" detail "COPY orders, line 10, column customer"`},
		{name: "missing field", data: bad(10, "00010\t00010\n"),
			want: `error 22P04 "missing data for column \"amount\"" detail "COPY orders, line 10"`},
		{name: "extra field", data: bad(10, "00010\t00010\t1\t2\n"),
			want: `error 22P04 "extra data after last expected column" detail "COPY orders, line 10"`},
		{name: "NULL in NOT NULL", data: bad(10, "\\N\t00010\t010\n"),
			want: `error 23502 "null value in column \"id\" of relation \"orders\" violates not-null constraint" detail ""`},
		{name: "first of two bad lines",
			data: strings.Replace(bad(10, "00010\t00010\n"), orderLines(30, 30), "00030\tx\t030\n", 1),
			want: `error 22P04 "missing data for column \"amount\"" detail "COPY orders, line 10"`},
		{name: "header counts", sql: copySQL + " (HEADER)", data: "id\tcustomer\tamount\n" + bad(10, "00010\tx\t010\n"),
			want: `error 22P02 "invalid input syntax for type integer: \"x\"" detail "COPY orders, line 11, column customer"`},
		{name: "read fails mid line", data: orderLines(1, 40), failAt: 13*16 + 5,
			want: `error 57014 "COPY from stdin failed: gone" detail "COPY orders, line 13"`},
		{name: "bad line before the failed read", data: bad(6, "00006\tx\t006\n"), failAt: 13*16 + 5,
			want: `error 22P02 "invalid input syntax for type integer: \"x\"" detail "COPY orders, line 6, column customer"`},
		{name: "read fails before a line", data: orderLines(1, 40), failAt: 3,
			want: `error 57014 "COPY from stdin failed: gone" detail ""`},
		{name: "end marker", data: bad(10, "\\.\n") + "garbage\n", want: "rows 9"},
		{name: "end marker and \\r\\n", data: bad(10, "\\.\r\n") + "garbage\n", want: "rows 9"},
		{name: "\\r\\n", data: strings.ReplaceAll(orderLines(1, 40), "\n", "\r\n"), want: "rows 40"},
		{name: "no last line break", data: strings.TrimSuffix(orderLines(1, 40), "\n"), want: "rows 40"},
		{name: "last line only \\r", data: orderLines(1, 40) + "\r", want: "rows 40"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sql := c.sql
			if sql == "" {
				sql = copySQL
			}
			failAt := c.failAt
			if failAt == 0 {
				failAt = -1
			}
			for _, size := range []int{64, unsegmented} {
				got := copyResult(env, s, sql, c.data, size, failAt, rand.New(rand.NewPCG(1, 2)))
				if !strings.HasPrefix(got, "error") {
					got = fmt.Sprintf("rows %d", strings.Count(got, "\n"))
				}
				if got != c.want {
					t.Errorf("segments of %d: %s, want %s", size, got, c.want)
				}
			}
		})
	}
}

// TestCopySegmentLongLine: a line longer than a segment, among short
// ones, grows its segment and is read whole, its \r\n line break not
// in its value.
func TestCopySegmentLongLine(t *testing.T) {
	withSegmentSize(t, 64)
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE notes (id int, body text)")
	long := strings.Repeat("0123456789", 100)
	data := "1\tshort\n2\t" + long + "\n3\t" + long + long + "\r\n4\tshort\r\n"
	for range 3 {
		data += data
	}
	if err := env.copyIn(s, "COPY notes FROM STDIN", data); err != nil {
		t.Fatal(err)
	}
	if got := env.query(s, "SELECT id, count(*), sum(length(body)) FROM notes GROUP BY id"); got != "1,8,40 2,8,8000 3,8,16000 4,8,40" {
		t.Errorf("rows: %s", got)
	}
}

// TestCopySegmentsCancel: a statement canceled while its COPY reads in
// segments stops: it fails with 57014 before it has read the rest of the
// data, writes nothing, and leaves no goroutine behind.
func TestCopySegmentsCancel(t *testing.T) {
	withSegmentSize(t, 1<<10)
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE orders (id int NOT NULL, customer int, amount numeric(10,2))")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	data := orderLines(1, 20_000)
	r := &pieceReader{data: data, rng: rand.New(rand.NewPCG(3, 4)), max: 8 << 10, err: io.EOF, at: 64 << 10, then: cancel}
	running := goleak.IgnoreCurrent()
	err := s.Query(ctx, "COPY orders FROM STDIN", &copyFeed{r: r})
	if code := sqlerr.Code(err); code != sqlerr.QueryCanceled {
		t.Fatalf("canceled COPY: %v (%s), want %s", err, code, sqlerr.QueryCanceled)
	}
	if r.read == len(data) {
		t.Errorf("the canceled COPY read all %d bytes", r.read)
	}
	goleak.VerifyNone(t, running)
	if got := env.query(s, "SELECT count(*) FROM orders"); got != "0" {
		t.Errorf("rows after the canceled COPY: %s", got)
	}
}

// TestCopySegmentsCommit: a COPY read in segments, outside a transaction
// block, large enough to be split as it is read, commits its rows, which
// a view then sees; a second COPY into a table whose defaults draw per
// row (random(), gen_random_uuid(), nextval) reads one row at a time and
// gives each row its own values, in the data's order.
func TestCopySegmentsCommit(t *testing.T) {
	withSegmentSize(t, 1<<10)
	env := openSQL(t, t.TempDir())
	defer func() { env.e.Close() }()
	s := env.session()
	env.exec(s, "CREATE TABLE orders (id int NOT NULL, customer int, amount numeric(10,2), at timestamptz DEFAULT now(), tag text DEFAULT 'a' || 'b')")
	env.exec(s, "CREATE MATERIALIZED VIEW totals AS SELECT count(*) AS n, sum(id) AS ids, sum(amount) AS amount FROM orders")
	const rows = 3 * splitCopyRows
	if err := env.copyIn(s, "COPY orders (id, customer, amount) FROM STDIN", orderLines(1, rows)); err != nil {
		t.Fatal(err)
	}
	var amount int
	for i := 1; i <= rows; i++ {
		amount += i % 1000
	}
	if got, want := env.query(s, "SELECT * FROM totals"), fmt.Sprintf("%d,%d,%d.00", rows, rows*(rows+1)/2, amount); got != want {
		t.Errorf("view: %s, want %s", got, want)
	}
	if got := env.query(s, "SELECT count(DISTINCT at), min(tag), max(tag) FROM orders"); got != "1,ab,ab" {
		t.Errorf("constant defaults: %s", got)
	}

	env.exec(s, "CREATE TABLE k (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), x int, r float8 DEFAULT random(), n serial)")
	var b strings.Builder
	for i := 1; i <= 500; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	if err := env.copyIn(s, "COPY k (x) FROM STDIN", b.String()); err != nil {
		t.Fatal(err)
	}
	if got := env.query(s, "SELECT count(DISTINCT id), count(DISTINCT r), count(*) FILTER (WHERE n = x) FROM k"); got != "500,500,500" {
		t.Errorf("defaults per row: %s", got)
	}
}

// TestSegmentReader cuts data read in pieces of one byte into segments
// of four bytes: at the last line break of a full segment, grown for a
// line longer than a segment, the rest in the last; a failed read drops
// the partial line before it.
func TestSegmentReader(t *testing.T) {
	withSegmentSize(t, 4)
	failed := errors.New("failed")
	for _, c := range []struct {
		data string
		err  error
		want string
	}{
		{"", io.EOF, `"" last, EOF`},
		{"a\nb\nc\n", io.EOF, `"a\nb\n", "c\n" last, EOF`},
		{"a\nbcd\nef", io.EOF, `"a\n", "bcd\n", "ef" last, EOF`},
		{"abcdefghij\nklmnopq\nr\n", io.EOF, `"abcdefghij\n", "klmnopq\nr\n", "" last, EOF`},
		{"abcdefghijk\nl", io.EOF, `"abcdefghijk\nl" last, EOF`},
		{"a\nbc", failed, `"a\n", "", failed`},
		{"a\nb\nc", failed, `"a\nb\n", "", failed`},
	} {
		r := &pieceReader{data: c.data, rng: rand.New(rand.NewPCG(1, 1)), max: 1, err: c.err}
		sr := newSegmentReader(r)
		var got []string
		for {
			seg, err := sr.next()
			if err != nil {
				got = append(got, err.Error())
				break
			}
			s := fmt.Sprintf("%q", seg.data)
			if seg.last {
				s += " last"
			}
			got = append(got, s)
		}
		if g := strings.Join(got, ", "); g != c.want {
			t.Errorf("%q: %s, want %s", c.data, g, c.want)
		}
	}
}

// TestPerStatement: a COPY's defaults allow segments only when they are
// made of constants and functions of them.
func TestPerStatement(t *testing.T) {
	lit := expr.Literal{Value: repr.NewInt4(7), Type: repr.Int4}
	for _, c := range []struct {
		name string
		d    expr.Scalar
		want bool
	}{
		{"none", nil, true},
		{"literal", lit, true},
		{"cast", expr.Cast{Arg: lit, To: repr.Int8}, true},
		{"sum", expr.CallBinary{Func: expr.Add, Left: lit, Right: lit}, true},
		{"random()", expr.CallVariadic{Func: expr.Random}, false},
		{"gen_random_uuid()", expr.CallVariadic{Func: expr.GenRandomUUID}, false},
		{"inside a sum", expr.CallBinary{Func: expr.Add, Left: lit, Right: expr.CallVariadic{Func: expr.Random}}, false},
		{"nextval", sequenceCall{f: expr.NextVal}, false},
		{"column", expr.Column{Index: 0}, false},
	} {
		if got := perStatement([]expr.Scalar{c.d}); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
