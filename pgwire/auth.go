package pgwire

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net"
	"strconv"

	"github.com/jackc/pgx/v5/pgproto3"

	"freshet/scram"
	"freshet/sqlerr"
)

// AuthMethod is how a connecting user proves who they are.
type AuthMethod uint8

// The authentication methods.
const (
	// AuthTrust lets the user in on their word, as PostgreSQL's trust.
	AuthTrust AuthMethod = iota
	// AuthSCRAM asks for the user's password by SCRAM-SHA-256: the
	// password never crosses the wire, and the server holds only a
	// verifier.
	AuthSCRAM
)

// An Authenticator decides, for each session's startup, how its user
// must authenticate: the method for the user connecting from addr (over
// TLS or not) and, for SCRAM, the user's verifier. ok is false when the
// user cannot log in with a password (no such role, no password, no
// LOGIN): the exchange then runs against a made-up verifier and fails
// as a wrong password does, so that a client cannot tell which users
// exist.
type Authenticator interface {
	Authenticate(user string, addr net.Addr, tls bool) (method AuthMethod, v scram.Verifier, ok bool)
}

// scramMechanism is the one SASL mechanism offered.
const scramMechanism = "SCRAM-SHA-256"

// authenticate runs the authentication the server's Authenticator asks
// for user: nothing for trust, the SASL exchange of SCRAM-SHA-256
// otherwise (RFC 5802 as PostgreSQL speaks it, without channel
// binding). It returns the FATAL error that ends the connection.
func (c *conn) authenticate(user string) error {
	if c.srv.Auth == nil {
		return nil
	}
	method, v, ok := c.srv.Auth.Authenticate(user, c.nc.RemoteAddr(), c.tls)
	if method == AuthTrust {
		return nil
	}
	if !ok {
		v = madeUpVerifier(user)
	}
	failed := sqlerr.New(sqlerr.InvalidPassword, "password authentication failed for user %q", user)
	c.send(&pgproto3.AuthenticationSASL{AuthMechanisms: []string{scramMechanism}})
	if err := c.flush(); err != nil {
		return err
	}
	body, err := c.readAuthMessage()
	if err != nil {
		return err
	}
	var initial pgproto3.SASLInitialResponse
	if err := initial.Decode(body); err != nil {
		return protocolViolation("malformed SASLInitialResponse message")
	}
	if initial.AuthMechanism != scramMechanism {
		return protocolViolation("client selected an invalid SASL authentication mechanism")
	}
	first, err := scram.ParseClientFirst(string(initial.Data))
	if err != nil {
		return protocolViolation("%v", err)
	}
	var nonce [18]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return sqlerr.Wrapf(err, sqlerr.InternalError, "could not generate a SCRAM nonce")
	}
	b64 := base64.StdEncoding.EncodeToString
	serverNonce := first.Nonce + b64(nonce[:])
	serverFirst := "r=" + serverNonce + ",s=" + b64(v.Salt) + ",i=" + strconv.Itoa(v.Iterations)
	c.send(&pgproto3.AuthenticationSASLContinue{Data: []byte(serverFirst)})
	if err := c.flush(); err != nil {
		return err
	}
	if body, err = c.readAuthMessage(); err != nil {
		return err
	}
	var resp pgproto3.SASLResponse
	if err := resp.Decode(body); err != nil {
		return protocolViolation("malformed SASLResponse message")
	}
	final, err := scram.ParseClientFinal(string(resp.Data))
	if err != nil {
		return protocolViolation("%v", err)
	}
	if final.Nonce != serverNonce || final.Binding != b64([]byte(first.GS2Header)) {
		return protocolViolation("invalid SCRAM response: nonce or channel binding does not match")
	}
	authMessage := first.Bare + "," + serverFirst + "," + final.WithoutProof
	if !ok || !v.CheckProof(authMessage, final.Proof) {
		return failed
	}
	c.send(&pgproto3.AuthenticationSASLFinal{Data: []byte("v=" + b64(v.ServerSignature(authMessage)))})
	return nil
}

// readAuthMessage reads the client's next message during authentication,
// which must be a SASL response ('p').
func (c *conn) readAuthMessage() ([]byte, error) {
	f, err := readFrame(c.br, c.srv.maxMessageSize())
	if err != nil {
		return nil, err
	}
	if f.typ != 'p' {
		return nil, protocolViolation("expected SASL response, got message type %d", f.typ)
	}
	return f.body, nil
}

// madeUpVerifier is the verifier of a user who cannot log in with a
// password: its salt is the same at every attempt, as a real user's is,
// and no password matches its keys.
func madeUpVerifier(user string) scram.Verifier {
	salt := sha256.Sum256([]byte("freshet mock salt\x00" + user))
	var key [32]byte
	rand.Read(key[:])
	stored := sha256.Sum256(key[:])
	return scram.Verifier{Iterations: scram.Iterations, Salt: salt[:16], StoredKey: stored[:], ServerKey: key[:]}
}
