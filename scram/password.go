package scram

import "crypto/rand"

// saltLen is the length of a new salt in bytes, PostgreSQL's choice.
const saltLen = 16

// FromPassword returns the verifier to store for password: password
// itself when it already is a verifier in text form (as pg_dump writes
// it), otherwise one derived with a fresh random salt and Iterations.
func FromPassword(password string) (Verifier, error) {
	if v, err := Parse(password); err == nil {
		return v, nil
	}
	salt := make([]byte, saltLen)
	rand.Read(salt)
	return NewVerifier(password, salt, Iterations)
}
