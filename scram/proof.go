package scram

import (
	"crypto/hmac"
	"crypto/sha256"
)

// CheckProof reports whether proof, the client's ClientProof for
// authMessage (client-first-bare "," server-first "," client-final
// without proof), was made from the password that v verifies. It
// recovers ClientKey as proof XOR HMAC(StoredKey, authMessage) and
// compares its hash with StoredKey in constant time.
func (v Verifier) CheckProof(authMessage string, proof []byte) bool {
	if len(proof) != sha256.Size || len(v.StoredKey) != sha256.Size {
		return false
	}
	sig := mac(v.StoredKey, authMessage)
	clientKey := make([]byte, sha256.Size)
	for i := range clientKey {
		clientKey[i] = proof[i] ^ sig[i]
	}
	stored := sha256.Sum256(clientKey)
	return hmac.Equal(stored[:], v.StoredKey)
}

// ServerSignature is the signature the server sends in server-final so
// that the client knows the server holds the verifier.
func (v Verifier) ServerSignature(authMessage string) []byte {
	return mac(v.ServerKey, authMessage)
}
