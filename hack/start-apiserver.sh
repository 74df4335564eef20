#!/usr/bin/env bash
# Start etcd + kube-apiserver on 127.0.0.1 for kubectl-based checks.
# Usage: hack/start-apiserver.sh ASSETS_DIR STATE_DIR
#   writes STATE_DIR/kubeconfig, STATE_DIR/{etcd,apiserver}.pid, *.log; stop with hack/stop-apiserver.sh STATE_DIR
set -euo pipefail
BIN="$(cd "$1" && pwd)"; mkdir -p "$2"; ST="$(cd "$2" && pwd)"
free_port() { # random free port on loopback
  local p; while :; do p=$(( 20000 + RANDOM % 40000 ))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }; done; }
EP=$(free_port); PP=$(free_port); AP=$(free_port)
mkdir -p "$ST/etcd" "$ST/certs"
"$BIN/etcd" --name e2e --data-dir "$ST/etcd" --unsafe-no-fsync \
  --listen-client-urls "http://127.0.0.1:$EP" --advertise-client-urls "http://127.0.0.1:$EP" \
  --listen-peer-urls "http://127.0.0.1:$PP" --initial-advertise-peer-urls "http://127.0.0.1:$PP" \
  --initial-cluster "e2e=http://127.0.0.1:$PP" >"$ST/etcd.log" 2>&1 &
echo $! > "$ST/etcd.pid"
openssl genrsa -out "$ST/certs/sa.key" 2048 2>/dev/null
openssl rsa -in "$ST/certs/sa.key" -pubout -out "$ST/certs/sa.pub" 2>/dev/null
TOKEN="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
echo "$TOKEN,admin,admin,system:masters" > "$ST/tokens.csv"
"$BIN/kube-apiserver" \
  --etcd-servers "http://127.0.0.1:$EP" \
  --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$AP" \
  --cert-dir "$ST/certs" --service-cluster-ip-range 10.0.0.0/24 \
  --service-account-issuer "https://127.0.0.1:$AP" \
  --service-account-key-file "$ST/certs/sa.pub" \
  --service-account-signing-key-file "$ST/certs/sa.key" \
  --token-auth-file "$ST/tokens.csv" --authorization-mode RBAC \
  --disable-admission-plugins ServiceAccount --allow-privileged=true \
  >"$ST/apiserver.log" 2>&1 &
echo $! > "$ST/apiserver.pid"
cat > "$ST/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster: {server: "https://127.0.0.1:$AP", insecure-skip-tls-verify: true}
users:
- name: admin
  user: {token: "$TOKEN"}
contexts:
- name: e2e
  context: {cluster: e2e, user: admin}
current-context: e2e
KC
for _ in $(seq 1 120); do
  if kubectl --kubeconfig "$ST/kubeconfig" get --raw /readyz >/dev/null 2>&1; then
    echo "kube-apiserver ready: https://127.0.0.1:$AP (KUBECONFIG=$ST/kubeconfig)"; exit 0; fi
  sleep 0.5
done
echo "kube-apiserver not ready after 60s" >&2; tail -30 "$ST/apiserver.log" >&2; exit 1
