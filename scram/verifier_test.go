package scram

import (
	"bytes"
	"crypto/sha256"
	"testing"
)

func TestVerifierRoundTrip(t *testing.T) {
	v, err := NewVerifier("pencil", []byte("fixed salt 16 by"), Iterations)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(v.String())
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != v.String() {
		t.Fatalf("round trip: %s != %s", got, v)
	}
	again, _ := NewVerifier("pencil", []byte("fixed salt 16 by"), Iterations)
	if !bytes.Equal(again.StoredKey, v.StoredKey) || !bytes.Equal(again.ServerKey, v.ServerKey) {
		t.Fatal("same password and salt gave different keys")
	}
	other, _ := NewVerifier("pencils", []byte("fixed salt 16 by"), Iterations)
	if bytes.Equal(other.StoredKey, v.StoredKey) {
		t.Fatal("different passwords gave the same StoredKey")
	}
	if len(v.StoredKey) != sha256.Size {
		t.Fatal("StoredKey has the wrong size")
	}
}

func TestParseRejects(t *testing.T) {
	for _, s := range []string{
		"", "pencil", "SCRAM-SHA-256$", "SCRAM-SHA-256$4096:c2FsdA==",
		"SCRAM-SHA-256$x:c2FsdA==$AAAA:AAAA", "SCRAM-SHA-256$4096:c2FsdA==$AAAA:AAAA",
		"md5abcdef",
	} {
		if IsVerifier(s) {
			t.Errorf("IsVerifier(%q) = true", s)
		}
	}
}
