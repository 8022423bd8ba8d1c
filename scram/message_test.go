package scram

import "testing"

func TestParseMessages(t *testing.T) {
	f, err := ParseClientFirst("n,,n=user,r=rOprNGfwEbeRWgbNEkqO")
	if err != nil || f.GS2Header != "n,," || f.Bare != "n=user,r=rOprNGfwEbeRWgbNEkqO" || f.Nonce != "rOprNGfwEbeRWgbNEkqO" {
		t.Fatalf("%+v %v", f, err)
	}
	if _, err := ParseClientFirst("p=tls-server-end-point,,n=,r=x"); err != ErrChannelBinding {
		t.Fatalf("channel binding: %v", err)
	}
	for _, bad := range []string{"", "x,,n=,r=a", "n,,n=user"} {
		if _, err := ParseClientFirst(bad); err == nil {
			t.Errorf("ParseClientFirst(%q) accepted", bad)
		}
	}
	c, err := ParseClientFinal("c=biws,r=abc,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
	if err != nil || c.WithoutProof != "c=biws,r=abc" || c.Binding != "biws" || c.Nonce != "abc" || len(c.Proof) != 32 {
		t.Fatalf("%+v %v", c, err)
	}
	for _, bad := range []string{"", "c=biws,r=abc", "c=biws,r=abc,p=!!", "r=abc,p=AAAA"} {
		if _, err := ParseClientFinal(bad); err == nil {
			t.Errorf("ParseClientFinal(%q) accepted", bad)
		}
	}
}
