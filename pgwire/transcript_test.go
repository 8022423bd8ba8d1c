package pgwire

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of testdata transcripts")

// TestTranscripts replays the exchanges in testdata/*.txt, each on a
// connection of its own to a fresh server, and compares the server's
// messages with the expected ones. Run with -rewrite to regenerate the
// expected output after a deliberate change.
//
// A transcript is a sequence of directives; each is a command line,
// input lines, "----", and the expected output up to a blank line.
// Messages are written one per line as pgproto3 marshals them to JSON,
// without the fields that are zero (the unset fields of an
// ErrorResponse), except CopyData, written {"Type":"CopyData","Text":"..."}.
//
//	send          sends the input messages; input lines may also be
//	              "raw <hex>" for arbitrary bytes
//	until         reads messages until it has seen the input's message
//	              types in order, and prints all it read
//	startup       sends a StartupMessage (user u, database freshet) and
//	              reads up to ReadyForQuery, printing only that
//	recv-byte     reads one byte and prints it (the answer to SSLRequest)
//	eof           reads messages until the server closes the connection,
//	              prints them, then EOF
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no transcripts in testdata")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			runTranscript(t, file)
		})
	}
}

// transcriptChunk is a directive of a transcript, or a line kept as it
// is (comments and blank lines).
type transcriptChunk struct {
	verbatim string
	cmd      string
	input    []string
	want     []string
	line     int
}

func parseTranscript(t *testing.T, file string) []transcriptChunk {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	var chunks []transcriptChunk
	for i := 0; i < len(lines); {
		line := lines[i]
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			chunks = append(chunks, transcriptChunk{verbatim: line})
			i++
			continue
		}
		c := transcriptChunk{cmd: line, line: i + 1}
		for i++; i < len(lines) && lines[i] != "----"; i++ {
			c.input = append(c.input, lines[i])
		}
		if i == len(lines) {
			t.Fatalf("%s:%d: directive without ----", file, c.line)
		}
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
			c.want = append(c.want, lines[i])
		}
		chunks = append(chunks, c)
	}
	return chunks
}

func runTranscript(t *testing.T, file string) {
	ts := startServer(t, newFakeBackend())
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	tc := &transcriptConn{nc: nc, br: bufio.NewReader(nc)}
	chunks := parseTranscript(t, file)
	var out strings.Builder
	for _, c := range chunks {
		if c.cmd == "" {
			out.WriteString(c.verbatim + "\n")
			continue
		}
		nc.SetDeadline(time.Now().Add(10 * time.Second))
		got, err := tc.run(c)
		if err != nil {
			got = append(got, "error: "+err.Error())
		}
		if !*rewrite && strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:%d: %s\ngot:\n%s\nwant:\n%s", file, c.line, c.cmd,
				strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
		out.WriteString(c.cmd + "\n")
		for _, in := range c.input {
			out.WriteString(in + "\n")
		}
		out.WriteString("----\n")
		for _, g := range got {
			out.WriteString(g + "\n")
		}
	}
	if *rewrite {
		if err := os.WriteFile(file, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// transcriptConn is the client side of a transcript.
type transcriptConn struct {
	nc net.Conn
	br *bufio.Reader
}

func (tc *transcriptConn) run(c transcriptChunk) ([]string, error) {
	switch c.cmd {
	case "send":
		for _, in := range c.input {
			b, err := encodeFrontend(in)
			if err != nil {
				return nil, err
			}
			if _, err := tc.nc.Write(b); err != nil {
				return nil, err
			}
		}
		return nil, nil
	case "until":
		var got []string
		for _, want := range c.input {
			for {
				typ, line, err := tc.receive()
				if err != nil {
					return got, err
				}
				got = append(got, line)
				if typ == strings.TrimSpace(want) {
					break
				}
			}
		}
		return got, nil
	case "startup":
		b, err := (&pgproto3.StartupMessage{
			ProtocolVersion: pgproto3.ProtocolVersion30,
			Parameters:      map[string]string{"user": "u", "database": "freshet"},
		}).Encode(nil)
		if err != nil {
			return nil, err
		}
		if _, err := tc.nc.Write(b); err != nil {
			return nil, err
		}
		for {
			typ, line, err := tc.receive()
			if err != nil {
				return []string{line}, err
			}
			if typ == "ReadyForQuery" || typ == "ErrorResponse" {
				return []string{line}, nil
			}
		}
	case "recv-byte":
		b, err := tc.br.ReadByte()
		if err != nil {
			return nil, err
		}
		return []string{fmt.Sprintf("%q", b)}, nil
	case "eof":
		var got []string
		for {
			_, line, err := tc.receive()
			if errors.Is(err, io.EOF) {
				return append(got, "EOF"), nil
			}
			if err != nil {
				return got, err
			}
			got = append(got, line)
		}
	}
	return nil, fmt.Errorf("unknown directive %q", c.cmd)
}

// frontendMessages are the messages a transcript can send, by type name.
var frontendMessages = map[string]func() pgproto3.FrontendMessage{
	"Bind":           func() pgproto3.FrontendMessage { return &pgproto3.Bind{} },
	"CancelRequest":  func() pgproto3.FrontendMessage { return &pgproto3.CancelRequest{} },
	"Close":          func() pgproto3.FrontendMessage { return &pgproto3.Close{} },
	"CopyDone":       func() pgproto3.FrontendMessage { return &pgproto3.CopyDone{} },
	"CopyFail":       func() pgproto3.FrontendMessage { return &pgproto3.CopyFail{} },
	"Describe":       func() pgproto3.FrontendMessage { return &pgproto3.Describe{} },
	"Execute":        func() pgproto3.FrontendMessage { return &pgproto3.Execute{} },
	"Flush":          func() pgproto3.FrontendMessage { return &pgproto3.Flush{} },
	"GSSEncRequest":  func() pgproto3.FrontendMessage { return &pgproto3.GSSEncRequest{} },
	"Parse":          func() pgproto3.FrontendMessage { return &pgproto3.Parse{} },
	"Query":          func() pgproto3.FrontendMessage { return &pgproto3.Query{} },
	"SSLRequest":     func() pgproto3.FrontendMessage { return &pgproto3.SSLRequest{} },
	"StartupMessage": func() pgproto3.FrontendMessage { return &pgproto3.StartupMessage{} },
	"Sync":           func() pgproto3.FrontendMessage { return &pgproto3.Sync{} },
	"Terminate":      func() pgproto3.FrontendMessage { return &pgproto3.Terminate{} },
}

// encodeFrontend encodes one input line of a send directive.
func encodeFrontend(line string) ([]byte, error) {
	if hexBytes, ok := strings.CutPrefix(line, "raw "); ok {
		return hex.DecodeString(strings.ReplaceAll(hexBytes, " ", ""))
	}
	var head struct {
		Type string
		Text string
	}
	if err := json.Unmarshal([]byte(line), &head); err != nil {
		return nil, fmt.Errorf("%q: %w", line, err)
	}
	if head.Type == "CopyData" {
		return (&pgproto3.CopyData{Data: []byte(head.Text)}).Encode(nil)
	}
	newMsg, ok := frontendMessages[head.Type]
	if !ok {
		return nil, fmt.Errorf("unknown message type %q", head.Type)
	}
	msg := newMsg()
	if err := json.Unmarshal([]byte(line), msg); err != nil {
		return nil, fmt.Errorf("%q: %w", line, err)
	}
	return msg.Encode(nil)
}

// backendMessages are the messages the server sends, by type byte.
var backendMessages = map[byte]func() pgproto3.BackendMessage{
	'1': func() pgproto3.BackendMessage { return &pgproto3.ParseComplete{} },
	'2': func() pgproto3.BackendMessage { return &pgproto3.BindComplete{} },
	'3': func() pgproto3.BackendMessage { return &pgproto3.CloseComplete{} },
	'C': func() pgproto3.BackendMessage { return &pgproto3.CommandComplete{} },
	'D': func() pgproto3.BackendMessage { return &pgproto3.DataRow{} },
	'E': func() pgproto3.BackendMessage { return &pgproto3.ErrorResponse{} },
	'G': func() pgproto3.BackendMessage { return &pgproto3.CopyInResponse{} },
	'H': func() pgproto3.BackendMessage { return &pgproto3.CopyOutResponse{} },
	'I': func() pgproto3.BackendMessage { return &pgproto3.EmptyQueryResponse{} },
	'K': func() pgproto3.BackendMessage { return &pgproto3.BackendKeyData{} },
	'N': func() pgproto3.BackendMessage { return &pgproto3.NoticeResponse{} },
	'R': func() pgproto3.BackendMessage { return &pgproto3.AuthenticationOk{} },
	'S': func() pgproto3.BackendMessage { return &pgproto3.ParameterStatus{} },
	'T': func() pgproto3.BackendMessage { return &pgproto3.RowDescription{} },
	'Z': func() pgproto3.BackendMessage { return &pgproto3.ReadyForQuery{} },
	'c': func() pgproto3.BackendMessage { return &pgproto3.CopyDone{} },
	'd': func() pgproto3.BackendMessage { return &pgproto3.CopyData{} },
	'n': func() pgproto3.BackendMessage { return &pgproto3.NoData{} },
	's': func() pgproto3.BackendMessage { return &pgproto3.PortalSuspended{} },
	't': func() pgproto3.BackendMessage { return &pgproto3.ParameterDescription{} },
	'v': func() pgproto3.BackendMessage { return &pgproto3.NegotiateProtocolVersion{} },
}

// receive reads one message from the server and returns its type name
// and its transcript line.
func (tc *transcriptConn) receive() (string, string, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(tc.br, hdr[:]); err != nil {
		return "", "", err
	}
	body := make([]byte, binary.BigEndian.Uint32(hdr[1:])-4)
	if _, err := io.ReadFull(tc.br, body); err != nil {
		return "", "", err
	}
	newMsg, ok := backendMessages[hdr[0]]
	if !ok {
		return "", "", fmt.Errorf("unknown message type %q", hdr[0])
	}
	msg := newMsg()
	if err := msg.Decode(body); err != nil {
		return "", "", err
	}
	var line []byte
	var err error
	switch m := msg.(type) {
	case *pgproto3.CopyData:
		line, err = json.Marshal(struct{ Type, Text string }{"CopyData", string(m.Data)})
	case *pgproto3.NoticeResponse:
		line, err = json.Marshal((*pgproto3.ErrorResponse)(m))
		line = []byte(strings.Replace(string(line), `"Type":"ErrorResponse"`, `"Type":"NoticeResponse"`, 1))
	default:
		line, err = json.Marshal(msg)
	}
	if err != nil {
		return "", "", err
	}
	var head struct{ Type string }
	if err := json.Unmarshal(line, &head); err != nil {
		return "", "", err
	}
	compact, err := dropZeroFields(line)
	return head.Type, compact, err
}

// dropZeroFields removes the fields whose value is "", 0 or null from a
// JSON object, keeping the order of the others, so that an ErrorResponse
// shows only the fields that are set.
func dropZeroFields(obj []byte) (string, error) {
	var fields []struct {
		key   string
		value json.RawMessage
	}
	dec := json.NewDecoder(strings.NewReader(string(obj)))
	if _, err := dec.Token(); err != nil {
		return "", err
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return "", err
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return "", err
		}
		switch string(value) {
		case `""`, "0", "null":
			continue
		}
		fields = append(fields, struct {
			key   string
			value json.RawMessage
		}{key.(string), value})
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(f.value)
	}
	b.WriteByte('}')
	return b.String(), nil
}
