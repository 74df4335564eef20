#!/usr/bin/env bash
# Ensure etcd + kube-apiserver for envtest exist; print the directory for KUBEBUILDER_ASSETS.
# Kept outside the work tree so a fresh clone (CI) on the same machine reuses it.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
K8S_VERSION="${K8S_VERSION:-v1.36.3}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"
DIR="${ENVTEST_ASSETS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/envtest-assets/k8s-${K8S_VERSION}_etcd-${ETCD_VERSION}}"
mkdir -p "$DIR"
# Each build goes to its own temporary directory and is renamed into place, so two runs sharing
# the cache never see a half-written binary (the later rename replaces an identical file).
build() { # build NAME SCRIPT VERSION
  local tmp; tmp="$(mktemp -d "$DIR.tmp.XXXXXX")"
  "$HERE/$2" "$3" "$tmp" >&2
  mv -f "$tmp/$1" "$DIR/$1"; rm -rf "$tmp"
}
if [ ! -x "$DIR/kube-apiserver" ]; then
  echo "building kube-apiserver ${K8S_VERSION} (takes ~3-4 min on 2 cores)..." >&2
  build kube-apiserver build-kube-apiserver.sh "$K8S_VERSION"
fi
if [ ! -x "$DIR/etcd" ]; then
  echo "building etcd ${ETCD_VERSION} (~1 min)..." >&2
  build etcd build-etcd.sh "$ETCD_VERSION"
fi
# kubectl is optional for envtest; link one if present (the go image ships /usr/bin/kubectl).
if [ ! -e "$DIR/kubectl" ] && command -v kubectl >/dev/null; then ln -s "$(command -v kubectl)" "$DIR/kubectl"; fi
echo "$DIR"
