package scram

import (
	"encoding/base64"
	"errors"
	"strings"
)

// ErrChannelBinding is returned for a client-first message that asks for
// channel binding (SCRAM-SHA-256-PLUS), which this server does not offer.
var ErrChannelBinding = errors.New("channel binding is not supported")

// ClientFirst is the client's first message.
type ClientFirst struct {
	// GS2Header is "n,," or "y,," and is echoed, base64, in client-final.
	GS2Header string
	// Bare is client-first-message-bare, part of the auth message.
	Bare  string
	Nonce string
}

// ParseClientFirst reads a client-first message. The user name in it is
// ignored: PostgreSQL takes the user from the startup message.
func ParseClientFirst(msg string) (ClientFirst, error) {
	var header string
	switch {
	case strings.HasPrefix(msg, "p="):
		return ClientFirst{}, ErrChannelBinding
	case strings.HasPrefix(msg, "n,"), strings.HasPrefix(msg, "y,"):
	default:
		return ClientFirst{}, errors.New("malformed SCRAM message: bad GS2 header")
	}
	i := strings.IndexByte(msg[2:], ',')
	if i < 0 {
		return ClientFirst{}, errors.New("malformed SCRAM message: bad GS2 header")
	}
	header = msg[:2+i+1]
	bare := msg[len(header):]
	var nonce string
	for _, attr := range strings.Split(bare, ",") {
		if v, ok := strings.CutPrefix(attr, "r="); ok {
			nonce = v
		}
	}
	if nonce == "" {
		return ClientFirst{}, errors.New("malformed SCRAM message: no nonce")
	}
	return ClientFirst{GS2Header: header, Bare: bare, Nonce: nonce}, nil
}

// ClientFinal is the client's final message.
type ClientFinal struct {
	// WithoutProof is client-final-message-without-proof, part of the
	// auth message.
	WithoutProof string
	Binding      string
	Nonce        string
	Proof        []byte
}

// ParseClientFinal reads a client-final message.
func ParseClientFinal(msg string) (ClientFinal, error) {
	i := strings.LastIndex(msg, ",p=")
	if i < 0 {
		return ClientFinal{}, errors.New("malformed SCRAM message: no proof")
	}
	proof, err := base64.StdEncoding.DecodeString(msg[i+3:])
	if err != nil {
		return ClientFinal{}, errors.New("malformed SCRAM message: bad proof")
	}
	f := ClientFinal{WithoutProof: msg[:i], Proof: proof}
	for _, attr := range strings.Split(f.WithoutProof, ",") {
		if v, ok := strings.CutPrefix(attr, "c="); ok {
			f.Binding = v
		} else if v, ok := strings.CutPrefix(attr, "r="); ok {
			f.Nonce = v
		}
	}
	if f.Binding == "" || f.Nonce == "" {
		return ClientFinal{}, errors.New("malformed SCRAM message: missing attribute")
	}
	return f, nil
}
