#!/usr/bin/env bash
# Installs what skysim needs on Debian 12, as root. Idempotent: installs only what is missing.
# Why each package is here: docs/dependencies.md.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache       # compiler, build system, rebuild cache
  libboost-dev libboost-graph-dev                # Boost.Random (RNG), Boost.Graph (follow graph)
  libeigen3-dev                                  # linear algebra for statistics and CTMC solves
  catch2                                         # Catch2 v2 unit tests
  libcli11-dev                                   # command line
  libyaml-cpp-dev                                # scenario files
  nlohmann-json3-dev                             # JSON reader: summaries, shards; trace-event checks
  libxxhash-dev                                  # xxHash64: stream seeds, the UID hashing allocator
  gnuplot-nox                                    # PNG/SVG plots
  clang libclang-rt-14-dev                       # libFuzzer harness for the scenario loader
  parallel                                       # multi-process sweeps (docs/distributed.md)
  chromium                                       # renders `skysim report` pages headless in tests
  prometheus curl jq                             # OpenMetrics round trip: promtool import, queries
  python3                                        # test helpers that read CSV and PNG (report, OpenMetrics)
  golang-go                                      # the testbed's Go programs (docs/testbed.md)
  golang-golang-x-sync-dev                       # errgroup (SetLimit) for the testbed, offline
  memcached                                      # the real cache the testbed's data plane dials
  iproute2                                       # `ip netns`: the testbed's own network namespace
  util-linux                                     # nsenter: enter that namespace, /sys untouched
  procps                                         # sysctl: the namespace's ephemeral port range
  etcd-server etcd-client                        # real optimistic-concurrency backend (backends/etcd)
  libcurl4-openssl-dev                           # HTTP client of etcd's v3 gateway
  redis-server libhiredis-dev                    # the high-follow cache's real source (backends/redis)
  libns3-dev libsimgrid-dev python3-simpy        # PHOLD anchors beside the kernel (docs/kernel.md)
  slurm-wlm munge                                # fuzz/compare as Slurm job arrays (docs/distributed.md)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup: missing packages: ${missing[*]} (run as root, or: sudo $0)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "setup: all build dependencies present"
