package pgwire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"sync"
)

// frame is one message from the client as it came off the wire: its type
// byte and its body. The body is a buffer of its own, so a message
// decoded from it (whose strings and byte slices may alias the body) can
// be kept as long as needed. This is why pgwire reads frames itself
// instead of using pgproto3.Backend.Receive, whose messages are
// overwritten by the next Receive. The one exception is CopyData: the
// copy reader copies each body out whole and then hands it back
// (recycleCopyData) for a later CopyData to be read into, so that a bulk
// COPY does not allocate its data a second time.
type frame struct {
	typ  byte
	body []byte
}

// eagerBody is the body size up to which readFrame allocates the whole
// body at once; larger bodies grow as their bytes arrive, so that a
// client cannot make the server allocate a large buffer by sending only
// a length.
const eagerBody = 64 << 10

// readFrame reads one message: a type byte, a 32-bit length that counts
// itself, and the body. A length below 4 or a body over maxBody bytes is
// a protocol violation.
func readFrame(r *bufio.Reader, maxBody int) (frame, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return frame{}, err
	}
	n := int64(int32(binary.BigEndian.Uint32(hdr[1:])))
	if n < 4 || n-4 > int64(maxBody) {
		return frame{}, protocolViolation("invalid message length")
	}
	var (
		body []byte
		err  error
	)
	if hdr[0] == 'd' && n-4 >= eagerBody/2 && n-4 <= eagerBody {
		body = copyDataBody(int(n - 4))
		_, err = io.ReadFull(r, body)
	} else {
		body, err = readBody(r, int(n-4))
	}
	if err != nil {
		return frame{}, noEOF(err)
	}
	return frame{typ: hdr[0], body: body}, nil
}

// copyDataBodies are CopyData bodies the copy reader is done with, each
// eagerBody bytes of room, for the next CopyData to be read into. Only a
// body of at least half that is read into one, so that a buffer's room
// is at most twice its bytes; a client sending a row a message (psql)
// gets buffers of their size.
var copyDataBodies = sync.Pool{New: func() any { return new([eagerBody]byte) }}

// copyDataBody returns a buffer of n bytes, n at most eagerBody, for a
// CopyData body.
func copyDataBody(n int) []byte {
	return copyDataBodies.Get().(*[eagerBody]byte)[:n]
}

// recycleCopyData hands back a CopyData body that nothing refers to any
// more.
func recycleCopyData(body []byte) {
	if cap(body) == eagerBody {
		copyDataBodies.Put((*[eagerBody]byte)(body[:eagerBody]))
	}
}

// readBody reads exactly n bytes into a new buffer.
func readBody(r io.Reader, n int) ([]byte, error) {
	if n <= eagerBody {
		body := make([]byte, n)
		_, err := io.ReadFull(r, body)
		return body, err
	}
	var buf bytes.Buffer
	buf.Grow(eagerBody)
	if _, err := io.CopyN(&buf, r, int64(n)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// noEOF turns the io.EOF of a message cut short into io.ErrUnexpectedEOF:
// only the end of the stream between messages is a clean end.
func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// Startup packets carry no type byte; their first 32 bits are a protocol
// version or one of these request codes.
const (
	codeCancelRequest = 80877102
	codeSSLRequest    = 80877103
	codeGSSENCRequest = 80877104
	// protocol30 is protocol version 3.0, the only one served.
	protocol30 = 3 << 16
)

// maxStartupPacket is PostgreSQL's limit on the length of a startup
// packet (MAX_STARTUP_PACKET_LENGTH).
const maxStartupPacket = 10000

// readStartupPacket reads a length-prefixed packet of the startup phase
// and returns its body, which starts with the version or request code.
func readStartupPacket(r *bufio.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := int64(int32(binary.BigEndian.Uint32(hdr[:]))) - 4
	if n < 4 || n > maxStartupPacket {
		return nil, protocolViolation("invalid length of startup packet")
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, noEOF(err)
	}
	return body, nil
}

// parseStartupParams parses the name/value pairs of a StartupMessage
// after its version: NUL-terminated strings, ended by an empty name.
func parseStartupParams(b []byte) (map[string]string, error) {
	params := map[string]string{}
	for {
		name, rest, ok := bytes.Cut(b, []byte{0})
		if !ok {
			return nil, protocolViolation("invalid startup packet layout: expected terminator as last byte")
		}
		if len(name) == 0 {
			if len(rest) != 0 {
				return nil, protocolViolation("invalid startup packet layout: expected terminator as last byte")
			}
			return params, nil
		}
		value, rest, ok := bytes.Cut(rest, []byte{0})
		if !ok {
			return nil, protocolViolation("invalid startup packet layout: expected terminator as last byte")
		}
		params[string(name)] = string(value)
		b = rest
	}
}
