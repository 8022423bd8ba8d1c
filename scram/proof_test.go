package scram

import (
	"encoding/base64"
	"testing"
)

// TestRFC7677Example checks the example exchange of RFC 7677, section 3:
// user "user", password "pencil".
func TestRFC7677Example(t *testing.T) {
	salt, _ := base64.StdEncoding.DecodeString("W22ZaJ0SNY7soEsUEjb6gQ==")
	v, err := NewVerifier("pencil", salt, 4096)
	if err != nil {
		t.Fatal(err)
	}
	const nonce = "rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
	auth := "n=user,r=rOprNGfwEbeRWgbNEkqO," +
		"r=" + nonce + ",s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096," +
		"c=biws,r=" + nonce
	proof, _ := base64.StdEncoding.DecodeString("dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
	if !v.CheckProof(auth, proof) {
		t.Fatal("the RFC's proof was rejected")
	}
	if got := base64.StdEncoding.EncodeToString(v.ServerSignature(auth)); got != "6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=" {
		t.Fatalf("server signature %s", got)
	}
	wrong, _ := NewVerifier("pencils", salt, 4096)
	if wrong.CheckProof(auth, proof) {
		t.Fatal("a proof for another password was accepted")
	}
	if v.CheckProof(auth, proof[:5]) {
		t.Fatal("a short proof was accepted")
	}
}
