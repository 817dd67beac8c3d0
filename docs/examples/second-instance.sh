#!/usr/bin/env bash
# second-instance.sh COMMAND [ARG...]
#
# Starts a second chain instance on the etcd and the PKI of the chain that $KUBECONFIG points at
# (its data dir is the kubeconfig's directory), runs COMMAND with KUBECONFIG set to the second
# instance's admin kubeconfig, then stops the instance (SIGTERM: a graceful stop, which deletes
# its identity lease). Used by docs/07-beyond-one-machine.md.
set -euo pipefail
first=$(dirname "$KUBECONFIG")
second=$(mktemp -d)
go build -o "$second/chain" ./cmd/chain
: >"$second/out"
"$second/chain" --data-dir "$second/data" --pki-dir "$first/pki" \
  --etcd-servers "$(paste -sd, "$first/etcd-endpoints")" \
  --secure-port 0 --metrics off >"$second/out" 2>"$second/log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid || true; rm -rf "$second"' EXIT
# Wait for the line the chain prints once /readyz is ok.
until grep -q '^export KUBECONFIG=' "$second/out"; do
  kill -0 $pid 2>/dev/null || { cat "$second/out" "$second/log" >&2; exit 1; }
  sleep 0.2
done
KUBECONFIG="$second/data/admin.kubeconfig" "$@"
