package hash

import "testing"

// The vectors come from olm-render-spec.md, computed by importing OLM v0.46.0.
func TestVectors(t *testing.T) {
	if got := GenerateName("myname", []string{"something"}); got != "myname-5L9sNXi3Y6mcOevFzYY3WOLIukKOeZwz1pfUlT" {
		t.Errorf("GenerateName = %s", got)
	}
	if got := "olm.og.og.admin-" + String("ns/og/admin"); got != "olm.og.og.admin-7hdvs1pJiMS8ikuUkvThunsWUnvSLPNYPbr0ec" {
		t.Errorf("og role = %s", got)
	}
}

func TestGenerateNameLength(t *testing.T) {
	long := "a-very-long-cluster-service-version-name.v1.2.3-with-a-service-account-name"
	if got := GenerateName(long, "x"); len(got) > 63 {
		t.Errorf("%d characters: %s", len(got), got)
	}
}
