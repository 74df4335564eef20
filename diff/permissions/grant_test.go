package permissions

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCovers(t *testing.T) {
	const s = "ns/sa"
	url := func(ns, u, verb string) Grant { return Grant{Subject: s, Namespace: ns, NonResourceURL: u, Verb: verb} }
	named := func(gr Grant, name string) Grant { gr.ResourceName = name; return gr }
	tests := []struct {
		name string
		have Grant
		want Grant
		ok   bool
	}{
		{"same grant", g(s, "a", "", "pods", "get"), g(s, "a", "", "pods", "get"), true},
		{"other namespace", g(s, "a", "", "pods", "get"), g(s, "b", "", "pods", "get"), false},
		{"cluster-wide covers namespaced", g(s, "", "", "pods", "get"), g(s, "b", "", "pods", "get"), true},
		{"namespaced does not cover cluster-wide", g(s, "a", "", "pods", "get"), g(s, "", "", "pods", "get"), false},
		{"other subject", g("ns/other", "", "*", "*", "*"), g(s, "", "", "pods", "get"), false},
		{"wildcard verb", g(s, "a", "", "pods", "*"), g(s, "a", "", "pods", "delete"), true},
		{"wildcard group", g(s, "a", "*", "pods", "get"), g(s, "a", "", "pods", "get"), true},
		{"wildcard resource covers subresource", g(s, "a", "", "*", "get"), g(s, "a", "", "pods/log", "get"), true},
		{"subresource wildcard", g(s, "a", "apps", "*/scale", "update"), g(s, "a", "apps", "deployments/scale", "update"), true},
		{"subresource wildcard misses resource", g(s, "a", "apps", "*/scale", "update"), g(s, "a", "apps", "deployments", "update"), false},
		{"any name covers a name", g(s, "a", "", "secrets", "get"), named(g(s, "a", "", "secrets", "get"), "x"), true},
		{"a name does not cover any name", named(g(s, "a", "", "secrets", "get"), "x"), g(s, "a", "", "secrets", "get"), false},
		{"verb does not cover wildcard", g(s, "a", "", "pods", "get"), g(s, "a", "", "pods", "*"), false},
		{"url prefix", url("", "/apis*", "get"), url("", "/apis/apps", "get"), true},
		{"url prefix covers narrower prefix", url("", "/apis*", "get"), url("", "/apis/*", "get"), true},
		{"url prefix misses", url("", "/api/*", "get"), url("", "/apis", "get"), false},
		{"resource wildcard misses urls", g(s, "", "*", "*", "*"), url("", "/healthz", "get"), false},
		{"marker covers itself", unknownRole(s, "", "ClusterRole", "view"), unknownRole(s, "a", "ClusterRole", "view"), true},
		{"wildcards do not cover a marker", g(s, "", "*", "*", "*"), unknownRole(s, "a", "ClusterRole", "view"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := newGrantSet([]Grant{tt.have}).covers(tt.want); got != tt.ok {
				t.Errorf("%+v covers %+v = %v, want %v", tt.have, tt.want, got, tt.ok)
			}
		})
	}
}

func TestReasons(t *testing.T) {
	const s = "ns/sa"
	tests := []struct {
		grant Grant
		want  []string
	}{
		{g(s, "a", "", "pods", "get"), nil},
		{g(s, "a", "", "secrets", "list"), []string{"secrets: list"}},
		{g(s, "a", "example.com", "secrets", "list"), nil},
		{g(s, "a", "*", "*", "*"), []string{"wildcard verb", "wildcard apiGroup", "wildcard resource"}},
		{g(s, "a", "", "serviceaccounts", "impersonate"), []string{"impersonate"}},
		{g(s, "a", "", "serviceaccounts/token", "create"), []string{"create serviceaccounts/token"}},
		{g(s, "", "rbac.authorization.k8s.io", "rolebindings", "patch"), []string{"patch rolebindings"}},
		{g(s, "", "iam.example.com", "rolebindings", "patch"), nil},
		{g(s, "", "rbac.authorization.k8s.io", "rolebindings", "get"), nil},
		{g(s, "", "admissionregistration.k8s.io", "mutatingwebhookconfigurations", "update"),
			[]string{"update mutatingwebhookconfigurations"}},
		{g(s, "", "apiextensions.k8s.io", "customresourcedefinitions", "create"), []string{"create customresourcedefinitions"}},
		{g(s, "", "", "nodes/proxy", "get"), []string{"nodes/proxy"}},
		{Grant{Subject: s, NonResourceURL: "*", Verb: "get"}, []string{"wildcard non-resource URL"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, reasons(tt.grant)); diff != "" {
			t.Errorf("reasons(%+v) (-want +got):\n%s", tt.grant, diff)
		}
	}
}
