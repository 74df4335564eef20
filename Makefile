# olm-render — every target works on a fresh machine with only Go and the module proxy.
GO        ?= go
BIN       := bin/olm-render
TOOLS     := $(CURDIR)/bin/tools
KUSTOMIZE_VERSION := v5.8.1
# goreleaser for `make lint` (goreleaser check), as .github/workflows/release.yaml pins it.
GORELEASER_VERSION := v2.15.1
# The API server of the end-to-end suite, built from the module proxy and cached outside the
# work tree (hack/envtest-assets.sh): v1.36 matches our k8s.io libraries (v0.36).
K8S_VERSION  ?= v1.36.3
ETCD_VERSION ?= v3.6.16
ENVTEST      := K8S_VERSION=$(K8S_VERSION) ETCD_VERSION=$(ETCD_VERSION) hack/envtest-assets.sh
FUZZTIME  ?= 10s
FUZZMINIMIZE ?= 10x
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
LDFLAGS   := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)

.PHONY: all build demo install test test-short test-oracle test-live test-e2e envtest-assets fuzz bench lint tools clean

all: build

## build: write bin/olm-render
build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/olm-render

## demo: build, then render the bundled example: the objects on stdout, a summary on stderr
demo: build
	$(BIN) render --summary examples/quickstart/input

## install: install olm-render into $(GOBIN) (or $(GOPATH)/bin)
install:
	$(GO) install -trimpath -ldflags '$(LDFLAGS)' ./cmd/olm-render

## test: vet, then every test (unit, golden, CLI, kustomize and API server end-to-end)
test: tools
	$(GO) vet ./...
	@assets="$$($(ENVTEST))" && echo "KUBEBUILDER_ASSETS=$$assets" && \
	  KUBEBUILDER_ASSETS="$$assets" PATH="$(TOOLS):$$PATH" $(GO) test -timeout 30m ./...

## test-oracle: differential tests against OLM v0.46.0's own code (test/oracle, a separate module):
## in process on a fake cluster, and live (its olm-operator and catalog-operator binaries, built once
## into ~/.cache/olm-render-test, against kube-apiserver and etcd)
test-oracle:
	@assets="$$($(ENVTEST))" && cd test/oracle && KUBEBUILDER_ASSETS="$$assets" $(GO) test -timeout 90m ./...

## test-live: the live differentials alone (OLM v0's and OLM v1's own controllers on a real API server; OLM v1's build cached in ~/.cache/olm-render-test)
test-live:
	@assets="$$($(ENVTEST))" && cd test/oracle && KUBEBUILDER_ASSETS="$$assets" $(GO) test -timeout 90m -count=1 -v -run 'TestLive' .

## test-e2e: the API server suite alone (the first run builds kube-apiserver and etcd, ~6 min)
test-e2e:
	@assets="$$($(ENVTEST))" && KUBEBUILDER_ASSETS="$$assets" $(GO) test -count=1 -v ./test/apiserver/...

## envtest-assets: build (once) and print the kube-apiserver + etcd directory
envtest-assets:
	@$(ENVTEST)

## test-short: the fast tests only
test-short:
	$(GO) test -short ./...

## fuzz: run every fuzz target for $(FUZZTIME) (minimizing new inputs at most $(FUZZMINIMIZE): the pipeline's coverage is noisy)
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) $$pkg; \
	  done; \
	done

## bench: every benchmark, with allocations
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## lint: formatting, vet, and the release configuration (goreleaser check)
lint: $(TOOLS)/goreleaser
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	$(TOOLS)/goreleaser check

## tools: install kustomize (for the end-to-end tests) into bin/tools with the Go toolchain
tools: $(TOOLS)/kustomize

$(TOOLS)/kustomize:
	GOBIN=$(TOOLS) $(GO) install sigs.k8s.io/kustomize/kustomize/v5@$(KUSTOMIZE_VERSION)

# goreleaser from the module proxy (a large first build: a few minutes on 2 cores).
$(TOOLS)/goreleaser:
	GOBIN=$(TOOLS) $(GO) install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)

clean:
	rm -rf bin dist
