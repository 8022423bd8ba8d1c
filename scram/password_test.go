package scram

import "testing"

func TestFromPassword(t *testing.T) {
	v, err := FromPassword("pencil")
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Salt) != saltLen || v.Iterations != Iterations {
		t.Fatalf("verifier %s", v)
	}
	kept, err := FromPassword(v.String())
	if err != nil || kept.String() != v.String() {
		t.Fatalf("a verifier given as the password was not kept: %s", kept)
	}
	w, _ := FromPassword("pencil")
	if w.String() == v.String() {
		t.Fatal("two verifiers of one password share a salt")
	}
}
