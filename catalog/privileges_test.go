package catalog

import (
	"slices"
	"testing"
)

// A record keeps its owner and its grants across Encode and Decode, and
// tells default privileges (no ACL) from none at all (an empty one).
func TestPrivilegesRoundTrip(t *testing.T) {
	sch := &Object{ID: 3, Kind: Schema, Name: "public", Database: "d"}
	if got := sch.PrivilegesOf("alice"); got != PrivUsage {
		t.Fatalf("default privileges on a schema: %s", got.Letters())
	}
	none := sch.WithGrant(Public, PrivUsage, true)
	if none.ACL == nil || len(none.ACL) != 0 {
		t.Fatalf("REVOKE USAGE FROM PUBLIC left %#v", none.ACL)
	}
	back, err := Decode(Encode(none))
	if err != nil {
		t.Fatal(err)
	}
	if back.ACL == nil || back.PrivilegesOf("alice") != 0 {
		t.Fatalf("an empty ACL came back as %#v", back.ACL)
	}
	if back, err = Decode(Encode(sch)); err != nil || back.ACL != nil {
		t.Fatalf("default privileges came back as %#v (%v)", back.ACL, err)
	}

	tb := &Object{ID: 4, Kind: Table, Name: "t", Database: "d", Schema: "public", Owner: "alice"}
	tb = tb.WithGrant("bob", PrivSelect|PrivInsert, false).WithGrant(Public, PrivSelect, false).WithGrant("bob", PrivInsert, true)
	back, err = Decode(Encode(tb))
	if err != nil {
		t.Fatal(err)
	}
	if back.Owner != "alice" || !slices.Equal(back.ACL, tb.ACL) {
		t.Fatalf("decoded %q %#v, want alice %#v", back.Owner, back.ACL, tb.ACL)
	}
	if got, want := back.ACLItems(), []string{"alice=arwdD/alice", "=r/alice", "bob=r/alice"}; !slices.Equal(got, want) {
		t.Fatalf("ACL items %q, want %q", got, want)
	}
	if back.PrivilegesOf("alice") != AllPrivileges(Table) || back.PrivilegesOf("bob") != PrivSelect || back.PrivilegesOf("carol") != PrivSelect {
		t.Fatalf("privileges: alice %s, bob %s, carol %s", back.PrivilegesOf("alice").Letters(), back.PrivilegesOf("bob").Letters(), back.PrivilegesOf("carol").Letters())
	}
}
