package live

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// TestRESTConfig: where RESTConfig finds the cluster, and what it says when there is none:
// never client-go's KUBERNETES_MASTER hint, always how to name one.
func TestRESTConfig(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	writeKubeconfig(t, good, "https://example.test:6443")
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	const howTo = "pass --kubeconfig FILE, set $KUBECONFIG, or run in a Pod with a service account"
	for _, tc := range []struct {
		name       string
		home       func(home string) // prepares the home directory
		kubeconfig string            // $KUBECONFIG
		path, ctx  string
		host       string
		noCluster  bool
		// wantErr holds phrases the error must contain.
		wantErr []string
	}{{
		name:      "nothing at all",
		noCluster: true,
		wantErr:   []string{"no cluster to connect to: no $KUBECONFIG, no kubeconfig at ", filepath.Join(".kube", "config"), howTo},
	}, {
		name: "~/.kube/config",
		home: func(home string) {
			writeKubeconfig(t, filepath.Join(home, ".kube", "config"), "https://home.test:6443")
		},
		host: "https://home.test:6443",
	}, {
		name:       "$KUBECONFIG",
		kubeconfig: good,
		host:       "https://example.test:6443",
	}, {
		name:       "$KUBECONFIG naming a file that does not exist",
		kubeconfig: filepath.Join(dir, "missing"),
		noCluster:  true,
		wantErr:    []string{"no cluster to connect to: $KUBECONFIG (" + filepath.Join(dir, "missing") + ") names no kubeconfig", howTo},
	}, {
		name:    "--kubeconfig naming a file that does not exist",
		path:    filepath.Join(dir, "missing"),
		wantErr: []string{"loading kubeconfig " + filepath.Join(dir, "missing") + ": ", "no such file or directory"},
	}, {
		name:      "--kubeconfig naming an empty file",
		path:      empty,
		noCluster: true,
		wantErr:   []string{"no cluster to connect to: kubeconfig " + empty + " is empty", howTo},
	}, {
		name:       "--kubeconfig before $KUBECONFIG",
		kubeconfig: filepath.Join(dir, "missing"),
		path:       good,
		host:       "https://example.test:6443",
	}, {
		name:    "--context that does not exist",
		path:    good,
		ctx:     "elsewhere",
		wantErr: []string{"loading kubeconfig " + good + ": ", `context "elsewhere" does not exist`},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("KUBECONFIG", tc.kubeconfig)
			t.Setenv("KUBERNETES_SERVICE_HOST", "")
			t.Setenv("KUBERNETES_SERVICE_PORT", "")
			if tc.home != nil {
				tc.home(home)
			}
			cfg, err := RESTConfig(tc.path, tc.ctx)
			if tc.wantErr == nil {
				if err != nil || cfg.Host != tc.host {
					t.Fatalf("RESTConfig = %v, %v; want host %s", cfg, err, tc.host)
				}
				return
			}
			if err == nil {
				t.Fatalf("RESTConfig = %s, want an error", cfg.Host)
			}
			if got := errors.Is(err, ErrNoCluster); got != tc.noCluster {
				t.Errorf("errors.Is(%v, ErrNoCluster) = %v, want %v", err, got, tc.noCluster)
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "KUBERNETES_MASTER") {
				t.Errorf("error %q gives client-go's KUBERNETES_MASTER hint", err)
			}
		})
	}
}

// writeKubeconfig writes a kubeconfig of one cluster at server, its directory created.
func writeKubeconfig(t *testing.T, path, server string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["c"] = &clientcmdapi.Cluster{Server: server}
	cfg.AuthInfos["u"] = &clientcmdapi.AuthInfo{Token: "t"}
	cfg.Contexts["c"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
	cfg.CurrentContext = "c"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
}
