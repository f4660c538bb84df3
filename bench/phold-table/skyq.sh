#!/usr/bin/env bash
# skysim's PHOLD command line over the driver, so side-by-side.sh can run it in skysim's place:
#   skyq.sh DRIVER bench phold --lps N --init 16 --until T --seed 42 --path P
set -eu
B=$1
shift 3
while [ $# -gt 0 ]; do
  case $1 in --lps) N=$2 ;; --until) T=$2 ;; --path) P=$2 ;; esac
  shift 2
done
exec "$B" "$N" "$T" "$P"
