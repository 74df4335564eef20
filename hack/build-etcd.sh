#!/usr/bin/env bash
# Build the etcd server binary from the Go module proxy.
# Usage: hack/build-etcd.sh [ETCD_VERSION] [OUT_DIR]
set -euo pipefail
ETCD_VERSION="${1:-v3.6.16}"
OUT_DIR="${2:-$PWD/bin/k8s}"
mkdir -p "$OUT_DIR"; OUT_DIR="$(cd "$OUT_DIR" && pwd)"
WORK="$(mktemp -d /tmp/etcd-build.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}" GOFLAGS="${GOFLAGS:-} -mod=mod"
# go.etcd.io/etcd/server/v3 has its own main.go, but its go.mod carries replace
# directives, so `go install ...@version` refuses; a scratch module works.
go mod init etcd-build >/dev/null 2>&1
go get "go.etcd.io/etcd/server/v3@${ETCD_VERSION}"
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$OUT_DIR/etcd" go.etcd.io/etcd/server/v3
"$OUT_DIR/etcd" --version | sed -n 1p
