package lock

import "testing"

func TestDowngrade(t *testing.T) {
	change := func(fromPkg, from, toPkg, to string) Change {
		return Change{Namespace: "ops", Subscription: "s", From: fromPkg + ".v" + from, To: toPkg + ".v" + to,
			FromPackage: fromPkg, ToPackage: toPkg, FromVersion: from, ToVersion: to}
	}
	tests := []struct {
		name string
		c    Change
		want bool
	}{
		{"older", change("etcd", "0.9.4", "etcd", "0.9.2"), true},
		{"newer", change("etcd", "0.9.2", "etcd", "0.9.4"), false},
		{"same version, new content", change("etcd", "0.9.2", "etcd", "0.9.2"), false},
		{"a prerelease of the same version", change("etcd", "1.0.0", "etcd", "1.0.0-rc.1"), true},
		{"another package", change("etcd", "0.9.4", "etcd-fork", "0.1.0"), false},
		{"added", Change{To: "etcd.v0.9.2", ToPackage: "etcd", ToVersion: "0.9.2"}, false},
		{"removed", Change{From: "etcd.v0.9.2", FromPackage: "etcd", FromVersion: "0.9.2"}, false},
		{"unparseable", change("etcd", "latest", "etcd", "0.9.2"), false},
		{"a catalog pin", Change{Catalog: "olm/c", From: "a@sha256:1", To: "a@sha256:0"}, false},
	}
	for _, tt := range tests {
		if got := tt.c.Downgrade(); got != tt.want {
			t.Errorf("%s: Downgrade() = %v, want %v", tt.name, got, tt.want)
		}
	}
	err := RefuseDowngrades([]Change{change("etcd", "0.9.2", "etcd", "0.9.4"), change("etcd", "0.9.4", "etcd", "0.9.2")})
	if err == nil || err.Error() == "" {
		t.Fatal("a downgrade among the changes was not refused")
	}
	if RefuseDowngrades([]Change{change("etcd", "0.9.2", "etcd", "0.9.4")}) != nil {
		t.Error("an upgrade was refused")
	}
}
