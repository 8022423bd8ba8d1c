// Package transcript runs testdata transcripts: files of commands with
// their expected output, read like a session. A block is a command line,
// input lines, a "----" line, and the expected output up to a blank line;
// blank lines and lines starting with # between blocks are kept as they
// are. Run rewrites the expected output in place when asked to, after a
// deliberate change whose diff is then reviewed.
//
// It is test support shared by the packages whose tests are transcripts
// (arrange, storage, planner) and imports only the standard library.
package transcript

import (
	"os"
	"strings"
	"testing"
)

// Run executes every block of file through exec, which receives the
// command line and the input lines and returns the output, and reports
// every block whose output differs from the expected one. With rewrite,
// it writes the file back with the outputs exec produced.
func Run(t *testing.T, file string, rewrite bool, exec func(cmd string, input []string) string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			out.WriteString(line + "\n")
			continue
		}
		start := i
		var input []string
		for i++; i < len(lines) && lines[i] != "----"; i++ {
			input = append(input, lines[i])
		}
		if i == len(lines) {
			t.Fatalf("%s:%d: command without ----", file, start+1)
		}
		var want []string
		for i++; i < len(lines) && lines[i] != ""; i++ {
			want = append(want, lines[i])
		}
		got := exec(line, input)
		if !rewrite && got != strings.Join(want, "\n") {
			t.Errorf("%s:%d: %s\n%s\ngot:\n%s\nwant:\n%s", file, start+1, line, strings.Join(input, "\n"), got, strings.Join(want, "\n"))
		}
		out.WriteString(line + "\n")
		for _, in := range input {
			out.WriteString(in + "\n")
		}
		out.WriteString("----\n" + got + "\n")
		if i < len(lines) {
			out.WriteString("\n")
		}
	}
	if rewrite {
		if err := os.WriteFile(file, []byte(strings.TrimRight(out.String(), "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
