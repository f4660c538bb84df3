#!/bin/bash
# Counts the OS threads a real Go process ends with after a burst of failed dials over a full
# ephemeral range in TIME_WAIT (burst_probe.go), on this machine's kernel — the experiment the
# replay's thread models predict (docs/april-2026.md, "Which thread mechanism"; the model's
# figures for the same burst: docs/benchmarks.md). Each run fills a fresh 127.x.y.z.
# Needs root (bind_probe sets net.ipv4.ip_local_port_range to the default 28,232 ports; the
# old range is restored at the end) and Debian's golang-go. Not part of the build or the suite.
# Usage: bench/port-search/burst.sh [GOROUTINES] [RUNS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
old_range=$(cat /proc/sys/net/ipv4/ip_local_port_range)  # bind_probe sets it; restored at exit
trap 'echo "$old_range" > /proc/sys/net/ipv4/ip_local_port_range; rm -rf "$work"' EXIT
n=${1:-400}
runs=${2:-5}
g++ -O2 -std=c++20 -Wall -o "$work/bind_probe" "$here/bind_probe.cpp"
cp "$here/burst_probe.go" "$here/probe_args.go" "$work/"
(cd "$work" && go mod init burstprobe >/dev/null 2>&1 && go build -o burst_probe burst_probe.go probe_args.go)
salt=$((RANDOM % 200 + 20))
uname -r
nproc
for i in $(seq 1 "$runs"); do
  "$work/bind_probe" 28232 "127.$salt.4.$i" 5 >/dev/null  # fill the range (TIME_WAIT, 60 s)
  "$work/burst_probe" "127.$salt.4.$i" "$n"
done
