#!/bin/bash
# Measures, on this machine's kernel, what a failed dial costs when every ephemeral port of
# its source IP is in TIME_WAIT (the April 2026 data plane's `bind: address already in use`):
#   - bind_probe: the kernel's port search per failed bind(ip, 0), over the default range
#     (28,232 ports) and over the range the replay simulates at scale 0.05 (1,412 ports);
#   - dial_probe (Go, Debian's golang-go): the CPU of a whole failed net.Dialer dial, whose
#     excess over socket+bind+close is the Go code around the bind.
# Needs root in a network namespace whose net.ipv4.ip_local_port_range it may change (it is
# restored at the end). Each figure is printed for three runs, each on a fresh source IP so
# earlier runs' TIME_WAIT sockets (60 s) do not count. Not part of the build or the suite.
# Usage: bench/port-search/measure.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
old_range=$(cat /proc/sys/net/ipv4/ip_local_port_range)
trap 'echo "$old_range" > /proc/sys/net/ipv4/ip_local_port_range; rm -rf "$work"' EXIT
g++ -O2 -std=c++20 -Wall -o "$work/bind_probe" "$here/bind_probe.cpp"
salt=$((RANDOM % 200 + 20))  # third octet: a fresh 127.x.y.0/24 for this invocation

echo "# failed bind(2) over the default range (28,232 ports)"
for i in 1 2 3; do "$work/bind_probe" 28232 "127.$salt.1.$i" 100; done
echo "# failed bind(2) over the replay's range at scale 0.05 (1,412 ports)"
for i in 1 2 3; do "$work/bind_probe" 1412 "127.$salt.2.$i" 300; done

if ! command -v go >/dev/null; then
  echo "# no Go toolchain: apt-get install golang-go to measure the Go code of a dial"
  exit 0
fi
cp "$here/dial_probe.go" "$here/probe_args.go" "$work/"
(cd "$work" && go mod init dialprobe >/dev/null 2>&1 && go build -o dial_probe dial_probe.go probe_args.go)
echo "# Go: failed dials over a 100-port range (the search is short, so the Go code shows);"
echo "# compare cpu_us_per_dial with bind_probe's socket_bind_close_us on the same range"
for i in 1 2 3; do
  "$work/bind_probe" 100 "127.$salt.3.$i" 20000
  "$work/dial_probe" "127.$salt.3.$i" 20000
done
go version
