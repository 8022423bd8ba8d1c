package storage

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"freshet/sqlerr"

	"freshet/internal/transcript"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of testdata transcripts")

// TestTranscripts runs each file in testdata as a session against one
// store in an in-memory filesystem that survives close and open. A block
// is a command line, input lines, "----", and the expected output up to
// a blank line. Run with -rewrite to regenerate the expected output after
// a deliberate change, and review the diff.
//
// Commands:
//
//	open | close                    open (or reopen) and close the store
//	catalog-put                     input: "id value" lines, one Txn
//	catalog-delete <id>...
//	catalog                         LoadCatalog
//	write <ts>                      input: "table row diff" lines
//	scan <table>                    the update log, in order
//	contents <table> <time>         rows accumulated through time
//	drop <table>
//	compact <table> <since>
//	meta-put <key> <value> | meta-get <key>
//	allocate <upTo> | upper         timestamp upper
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) { runTranscript(t, file) })
	}
}

func runTranscript(t *testing.T, file string) {
	sess := &session{fs: vfs.NewMem()}
	defer sess.close()
	transcript.Run(t, file, *rewrite, sess.run)
}

// session is the state of one transcript.
type session struct {
	fs *vfs.MemFS
	s  *Store
}

func (sess *session) close() {
	if sess.s != nil {
		_ = sess.s.Close()
		sess.s = nil
	}
}

func (sess *session) run(line string, input []string) string {
	out, err := sess.exec(strings.Fields(line), input)
	if err != nil {
		return fmt.Sprintf("error %s: %s", sqlerr.Code(err), err)
	}
	return out
}

func (sess *session) exec(args []string, input []string) (string, error) {
	ctx := context.Background()
	num := func(i int) uint64 {
		if i >= len(args) {
			panic(fmt.Sprintf("%s: missing argument %d", args[0], i))
		}
		n, err := strconv.ParseUint(args[i], 10, 64)
		if err != nil {
			panic(fmt.Sprintf("%s: argument %q: %v", args[0], args[i], err))
		}
		return n
	}
	if args[0] != "open" && sess.s == nil {
		return "", fmt.Errorf("no store open")
	}
	switch args[0] {
	case "open":
		sess.close()
		s, err := Open("db", Options{FS: sess.fs})
		if err != nil {
			return "", err
		}
		sess.s = s
		return "ok", nil
	case "close":
		err := sess.s.Close()
		sess.s = nil
		return "ok", err
	case "catalog-put":
		var recs []CatalogRecord
		for _, l := range input {
			id, value, _ := strings.Cut(l, " ")
			n, err := strconv.ParseUint(id, 10, 64)
			if err != nil {
				panic(err)
			}
			recs = append(recs, CatalogRecord{ID: n, Value: []byte(value)})
		}
		return "ok", sess.s.PutCatalog(ctx, recs...)
	case "catalog-delete":
		var ids []uint64
		for i := 1; i < len(args); i++ {
			ids = append(ids, num(i))
		}
		return "ok", sess.s.DeleteCatalog(ctx, ids...)
	case "catalog":
		recs, err := sess.s.LoadCatalog()
		if err != nil {
			return "", err
		}
		var lines []string
		for _, r := range recs {
			lines = append(lines, fmt.Sprintf("%d %s", r.ID, r.Value))
		}
		return orEmpty(lines), nil
	case "write":
		var ws []TableWrite
		for _, l := range input {
			f := strings.Fields(l)
			table, _ := strconv.ParseUint(f[0], 10, 64)
			diff, _ := strconv.ParseInt(f[2], 10, 64)
			ws = append(ws, TableWrite{Table: table, Row: []byte(f[1]), Diff: diff})
		}
		return "ok", sess.s.Write(ctx, num(1), ws)
	case "scan":
		var lines []string
		err := sess.s.ScanTable(num(1), func(ts uint64, row []byte, diff int64) error {
			lines = append(lines, fmt.Sprintf("%d %s %d", ts, row, diff))
			return nil
		})
		return orEmpty(lines), err
	case "contents":
		asOf := num(2)
		acc := map[string]int64{}
		err := sess.s.ScanTable(num(1), func(ts uint64, row []byte, diff int64) error {
			if ts <= asOf {
				acc[string(row)] += diff
			}
			return nil
		})
		var lines []string
		for row, diff := range acc {
			if diff != 0 {
				lines = append(lines, fmt.Sprintf("%s %d", row, diff))
			}
		}
		slices.Sort(lines)
		return orEmpty(lines), err
	case "drop":
		return "ok", sess.s.DropTable(ctx, num(1))
	case "compact":
		_, err := sess.s.CompactTable(ctx, num(1), num(2))
		return "ok", err
	case "meta-put":
		return "ok", sess.s.PutMeta(ctx, args[1], []byte(args[2]))
	case "meta-get":
		v, found, err := sess.s.GetMeta(strings.Join(args[1:], ""))
		if !found {
			return "(absent)", err
		}
		return string(v), err
	case "allocate":
		return "ok", sess.s.AllocateTimestamps(ctx, num(1))
	case "upper":
		u, err := sess.s.LoadTimestampUpper()
		return strconv.FormatUint(u, 10), err
	}
	panic(fmt.Sprintf("unknown command %q", args[0]))
}

func orEmpty(lines []string) string {
	if len(lines) == 0 {
		return "(empty)"
	}
	return strings.Join(lines, "\n")
}
