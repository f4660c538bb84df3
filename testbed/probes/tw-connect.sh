#!/usr/bin/env bash
# Measures whether a connect(2) without bind can use an ephemeral port that TIME_WAIT holds,
# when that TIME_WAIT came from a bound socket on another local address (and the other cases;
# tw_connect.py). Root; a namespace of its own with a 16-port range, removed on exit.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ns=skysim-twprobe-$$
trap 'ip netns del "$ns" 2> /dev/null || true' EXIT
echo "kernel $(uname -r), net.ipv4.tcp_tw_reuse=$(sysctl -n net.ipv4.tcp_tw_reuse) (host)"
for how in bind connect; do
  ip netns add "$ns"
  nsenter --net=/run/netns/"$ns" ip link set lo up
  nsenter --net=/run/netns/"$ns" sysctl -q -w net.ipv4.ip_local_port_range="40000 40015"
  nsenter --net=/run/netns/"$ns" python3 "$here/tw_connect.py" "$how"
  ip netns del "$ns"
done
