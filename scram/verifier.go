package scram

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
)

// Iterations is the PBKDF2 iteration count of new verifiers, PostgreSQL's
// default.
const Iterations = 4096

// Verifier is what a server stores to check a password. The zero value
// is not a valid verifier.
type Verifier struct {
	Iterations int
	Salt       []byte
	StoredKey  []byte
	ServerKey  []byte
}

// NewVerifier derives the verifier of password with the given salt and
// iteration count.
func NewVerifier(password string, salt []byte, iterations int) (Verifier, error) {
	salted, err := pbkdf2.Key(sha256.New, password, salt, iterations, sha256.Size)
	if err != nil {
		return Verifier{}, err
	}
	clientKey := mac(salted, "Client Key")
	stored := sha256.Sum256(clientKey)
	return Verifier{
		Iterations: iterations,
		Salt:       append([]byte(nil), salt...),
		StoredKey:  stored[:],
		ServerKey:  mac(salted, "Server Key"),
	}, nil
}

func mac(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

const prefix = "SCRAM-SHA-256$"

// String returns v in PostgreSQL's text form.
func (v Verifier) String() string {
	enc := base64.StdEncoding.EncodeToString
	return prefix + strconv.Itoa(v.Iterations) + ":" + enc(v.Salt) + "$" + enc(v.StoredKey) + ":" + enc(v.ServerKey)
}

// IsVerifier reports whether s looks like a verifier in text form, as
// opposed to a clear-text password.
func IsVerifier(s string) bool {
	_, err := Parse(s)
	return err == nil
}

var errMalformed = errors.New("malformed SCRAM-SHA-256 verifier")

// Parse reads a verifier in PostgreSQL's text form.
func Parse(s string) (Verifier, error) {
	rest, ok := strings.CutPrefix(s, prefix)
	if !ok {
		return Verifier{}, errMalformed
	}
	iterSalt, keys, ok := strings.Cut(rest, "$")
	if !ok {
		return Verifier{}, errMalformed
	}
	iterText, saltText, ok1 := strings.Cut(iterSalt, ":")
	storedText, serverText, ok2 := strings.Cut(keys, ":")
	if !ok1 || !ok2 {
		return Verifier{}, errMalformed
	}
	iter, err := strconv.Atoi(iterText)
	if err != nil || iter <= 0 {
		return Verifier{}, errMalformed
	}
	dec := base64.StdEncoding.DecodeString
	salt, err1 := dec(saltText)
	stored, err2 := dec(storedText)
	server, err3 := dec(serverText)
	if err1 != nil || err2 != nil || err3 != nil || len(salt) == 0 ||
		len(stored) != sha256.Size || len(server) != sha256.Size {
		return Verifier{}, errMalformed
	}
	return Verifier{Iterations: iter, Salt: salt, StoredKey: stored, ServerKey: server}, nil
}
