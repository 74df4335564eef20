#!/usr/bin/env bash
# Build kube-apiserver (and optionally kubectl) from the Go module proxy.
# Usage: hack/build-kube-apiserver.sh [K8S_VERSION] [OUT_DIR]
#   CMDS="kube-apiserver kubectl" to build more than one command.
set -euo pipefail
K8S_VERSION="${1:-v1.36.3}"            # a k8s.io/kubernetes tag
OUT_DIR="${2:-$PWD/bin/k8s}"
CMDS="${CMDS:-kube-apiserver}"
STAGING_VERSION="v0.${K8S_VERSION#v1.}" # v1.32.13 -> v0.32.13 (k8s.io/api, client-go, ...)
MINOR="$(echo "$K8S_VERSION" | cut -d. -f2)"
mkdir -p "$OUT_DIR"; OUT_DIR="$(cd "$OUT_DIR" && pwd)"
WORK="$(mktemp -d /tmp/kube-apiserver-build.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}" GOFLAGS="${GOFLAGS:-} -mod=mod"

# 1. Download k8s.io/kubernetes once, to read its go.mod (staging modules, go line).
if ! dl="$(go mod download -json "k8s.io/kubernetes@${K8S_VERSION}")"; then
  echo "$dl" >&2; echo "k8s.io/kubernetes@${K8S_VERSION} is not downloadable from the module proxy" >&2; exit 1
fi
modfile="$(printf '%s\n' "$dl" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"

# 2. Scratch main module: same go/godebug lines; every staging module
#    (k8s.io/X => ./staging/src/k8s.io/X) replaced by its published twin k8s.io/X v0.MINOR.PATCH.
{
  echo "module kube-apiserver-build"
  grep -m1 '^go ' "$modfile"
  grep '^godebug ' "$modfile" || true
  echo "replace ("
  sed -n 's#^[[:space:]]*\(k8s\.io/[a-z0-9-]*\) => \./staging/src/k8s\.io/.*#\t\1 => \1 '"${STAGING_VERSION}"'#p' "$modfile"
  echo ")"
} > go.mod

# 3. Resolve and build. ldflags mirror hack/lib/version.sh so /version reports the real version.
VFLAGS=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  VFLAGS+=" -X $pkg.gitVersion=${K8S_VERSION} -X $pkg.gitMajor=1 -X $pkg.gitMinor=${MINOR} -X $pkg.gitTreeState=clean"
done
for c in $CMDS; do
  go get "k8s.io/kubernetes/cmd/$c@${K8S_VERSION}"
  CGO_ENABLED=0 go build -trimpath -ldflags "-s -w${VFLAGS}" -o "$OUT_DIR/$c" "k8s.io/kubernetes/cmd/$c"
done
ls -l "$OUT_DIR"
