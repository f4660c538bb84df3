#!/usr/bin/env bash
# What a failing bind(127.32.0.1, 0) costs here once TIME_WAIT holds the range, and the threads
# a burst of failing dials makes (bindcost/main.go). Root; a namespace of its own with the
# testbed's 1,412-port range, removed on exit.
# Usage: bindcost.sh [GOMAXPROCS] [BURST] [FILL: true = failing dials, false = succeeding]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ns=skysim-bindcost-$$
bin=$(mktemp -d)
trap 'ip netns del "$ns" 2> /dev/null || true; rm -rf "$bin"' EXIT
(cd "$here/../" && GOFLAGS=-mod=mod GOPROXY=off GO111MODULE=on go build -o "$bin/" ./probes/bindcost)
ip netns add "$ns"
nsenter --net=/run/netns/"$ns" ip link set lo up
nsenter --net=/run/netns/"$ns" sysctl -q -w net.ipv4.ip_local_port_range="32768 34179"
echo "kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
GODEBUG=${GODEBUG:-} GOMAXPROCS=${1:-2} nsenter --net=/run/netns/"$ns" "$bin/bindcost" -burst "${2:-1000}" -fill="${3:-true}" ${TRACE:+-trace "$TRACE"}
