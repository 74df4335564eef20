#!/usr/bin/env bash
# Stop what hack/start-apiserver.sh started (by PID), then remove its state dir.
set -u
ST="$1"
for f in apiserver etcd; do
  [ -f "$ST/$f.pid" ] || continue
  pid="$(cat "$ST/$f.pid")"
  kill "$pid" 2>/dev/null && for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
done
rm -rf "$ST"
