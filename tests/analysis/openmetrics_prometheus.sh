#!/usr/bin/env bash
# OpenMetrics out of skysim, into a real Prometheus (Debian 12's prometheus package), and back
# through its HTTP API. Two short runs (the demo, and a 10-minute window of the April outage):
# `run --openmetrics` and `skysim openmetrics RUN_DIR` must write the same bytes; promtool must
# import every sample; then Prometheus, started over the imported blocks, must answer at the
# simulated time what the run's own files say:
#   counter    its last value = summary.json's final value; increase() over the run = the rises
#              row to row in timeseries.csv, a drop being a reset (for counters sampled from
#              the first row)
#   gauge      its last value = summary.json's; max_over_time() over the run = the column's
#              maximum in timeseries.csv (the April one: the east data plane's thread peak)
#   histogram  NAME_count = summary.json's count; max_over_time(quantile="1") = its max
#   April      the success-rate panel's PromQL per datacenter = the ratio from the CSV, and
#              every expression of docs/grafana/april-2026.json finds series
# Missing tools or a Prometheus that does not start FAIL the test (they are build dependencies,
# scripts/setup-debian.sh). Usage: openmetrics_prometheus.sh SKYSIM
set -euo pipefail
skysim=$(realpath "${1:?usage: openmetrics_prometheus.sh PATH/TO/skysim}")
src=$(cd "$(dirname "$0")/../.." && pwd)

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
for tool in prometheus promtool curl jq; do
  command -v "$tool" > /dev/null ||
    fail "$tool is not installed (Debian 12 packages prometheus, curl, jq: run scripts/setup-debian.sh as root)"
done

work=$(mktemp -d)
prom_pid=
cleanup() {
  if [[ -n $prom_pid ]] && kill -0 "$prom_pid" 2> /dev/null; then
    kill "$prom_pid"
    wait "$prom_pid" 2> /dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"

# ---- runs, the two writers, the import -----------------------------------------------------
export_run() {  # export_run NAME SCENARIO [--set ...]: run dir NAME/, NAME.om
  local name=$1
  shift
  "$skysim" run "$@" --quiet --out "$name" --openmetrics "$name.om" > /dev/null
  "$skysim" openmetrics "$name" --out "$name.converted.om" > /dev/null
  cmp -s "$name.om" "$name.converted.om" ||
    fail "$name: run --openmetrics and skysim openmetrics wrote different files"
  [[ $(tail -n 1 "$name.om") == "# EOF" ]] || fail "$name.om does not end with # EOF"
  promtool tsdb create-blocks-from openmetrics "$name.om" blocks > "$name.import.txt" ||
    fail "promtool refused $name.om: $(cat "$name.import.txt")"
  local imported written
  imported=$(awk 'NR > 1 { n += $5 } END { print n + 0 }' "$name.import.txt")
  written=$(grep -vc '^#' "$name.om")
  [[ $imported -eq $written ]] || fail "$name: promtool imported $imported of $written samples"
  echo "$name: $written samples written, all imported"
}
export_run demo "$src/scenarios/demo.yaml"
# A run directory the converter cannot write faithfully: one clear line, exit 2, nothing written.
refused() {  # refused WHAT EXPECTED_TEXT: run the converter on ./broken
  local rc=0
  "$skysim" openmetrics broken --out broken.om > broken.txt 2>&1 || rc=$?
  [[ $rc -eq 2 && $(wc -l < broken.txt) -eq 1 && ! -e broken.om ]] && grep -qF "$2" broken.txt ||
    fail "converter on $1: want exit 2 and one line with '$2', got exit $rc: $(cat broken.txt)"
}
cp -r demo broken
sed -i '1s/queue.length{host=east\/web\/0}/queue.lenght{host=east\/web\/0}/' broken/timeseries.csv
refused "a column summary.json does not know" "column 'queue.lenght{host=east/web/0}' belongs to no series"
cp demo/timeseries.csv broken/ && head -c 200 demo/summary.json > broken/summary.json
refused "a truncated summary.json" "broken/summary.json:"
# The April scenario cut to a 10-minute window that still has the batch client's load.
export_run april "$src/scenarios/april-2026-outage.yaml" --set epoch=2026-04-06T08:00:00Z \
  --set duration=10m --set 'timeline=[]' --set sources.batch-service.start=2026-04-06T08:00:00Z \
  --set sources.batch-service.rate=0.05/s

# ---- Prometheus over the blocks ------------------------------------------------------------
# No scrape targets: everything it serves comes from the imported blocks.
printf 'scrape_configs: []\n' > prometheus.yml
free_port() {
  local p
  for _ in $(seq 1 50); do
    p=$((20000 + RANDOM % 40000))
    if ! (exec 3<> "/dev/tcp/127.0.0.1/$p") 2> /dev/null; then
      echo "$p"
      return
    fi
  done
  fail "no free port on 127.0.0.1 after 50 tries"
}
ready=0
for attempt in 1 2 3; do  # another process may take the port between the probe and the bind
  port=$(free_port)
  # A retention far longer than any run: the blocks are dated 2026 whatever today is.
  prometheus --config.file=prometheus.yml --storage.tsdb.path=blocks \
    --storage.tsdb.retention.time=100y --web.listen-address="127.0.0.1:$port" \
    > prometheus.log 2>&1 &
  prom_pid=$!
  for _ in $(seq 1 150); do  # 30 s at most
    if curl -sf --max-time 2 "http://127.0.0.1:$port/-/ready" > /dev/null; then
      ready=1
      break
    fi
    kill -0 "$prom_pid" 2> /dev/null || break
    sleep 0.2
  done
  ((ready)) && break
  kill "$prom_pid" 2> /dev/null || true
  wait "$prom_pid" 2> /dev/null || true
  prom_pid=
done
if ((!ready)); then
  tail -n 20 prometheus.log >&2
  fail "prometheus did not become ready on 127.0.0.1 (3 attempts; its log above)"
fi
echo "prometheus $(prometheus --version 2>&1 | head -n 1 | awk '{print $3}') ready on 127.0.0.1:$port"

# ---- checks --------------------------------------------------------------------------------
query() {  # query PROMQL TIME: the result vector as compact JSON
  curl -sf --max-time 10 "http://127.0.0.1:$port/api/v1/query" --data-urlencode "query=$1" \
    --data-urlencode "time=$2" | jq -c '.data.result' || fail "query failed: $1"
}
only_value() {  # only_value PROMQL TIME: the value of a one-element result
  local r
  r=$(query "$1" "$2")
  [[ $(jq length <<< "$r") -eq 1 ]] || fail "$1 at $2: expected one series, got $r"
  jq -r '.[0].value[1]' <<< "$r"
}
same() {  # same A B: equal as numbers
  [[ $(jq -n --arg a "$1" --arg b "$2" '($a | tonumber) == ($b | tonumber)') == true ]]
}
close() {  # close A B: equal within 1e-12 relative
  [[ $(jq -n --arg a "$1" --arg b "$2" \
    '($a | tonumber) as $x | ($b | tonumber) as $y |
     (($x - $y) | fabs) <= 1e-12 * ([($x | fabs), ($y | fabs), 1e-300] | max)') == true ]]
}
csv_stats() {  # csv_stats RUN KEY: "first last max increase" of the column, first "-" if it starts empty
  # The header quotes keys that hold a comma (RFC 4180): read it with a real CSV reader.
  python3 - "$1/timeseries.csv" "$2" <<'PY'
import csv, sys
rows = csv.reader(open(sys.argv[1], newline=""))
header = next(rows)
if sys.argv[2] not in header:
    sys.exit(1)
c = header.index(sys.argv[2])
values, empty_first = [], False
for n, row in enumerate(rows):
    if row[c] == "":
        empty_first = empty_first or n == 0
        continue
    values.append(float(row[c]))
if not values:
    sys.exit(1)
first = "-" if empty_first else "%.17g" % values[0]
# A counter's increase as Prometheus takes it: a drop is a reset (a restarted process counts
# again from 0), after which the new value is all increase.
increase = sum(b - a if b >= a else b for a, b in zip(values, values[1:]))
print(first, "%.17g" % values[-1], "%.17g" % max(values), "%.17g" % increase)
PY
}
bad=0
mismatch() {
  echo "MISMATCH: $*"
  bad=$((bad + 1))
}

check_run() {  # check_run NAME
  local run=$1 end first_ns last_ns span epoch
  end=$(date -u -d "$(jq -r .simulated_end "$run/summary.json")" +%s)
  first_ns=$(awk -F, 'NR == 2 { print $1 }' "$run/timeseries.csv")
  last_ns=$(tail -n 1 "$run/timeseries.csv" | cut -d, -f1)
  epoch=$(date -u -d "$(jq -r .epoch "$run/summary.json")" +%s)
  [[ $((epoch + last_ns / 1000000000)) -eq $end ]] || fail "$run: the last row is not at the end"
  # increase() over exactly [first row, last row] needs no extrapolation (Prometheus 2.x
  # includes a sample at the range's start): it is last - first.
  span="$(((last_ns - first_ns) / 1000000))ms"
  local counters=0 gauges=0 histograms=0 increases=0
  while IFS=$'\t' read -r key type name labels value max; do
    local sel="$name{$labels}" stats got
    case $type in
      counter)
        got=$(only_value "${name}_total{$labels}" "$end")
        same "$got" "$value" || mismatch "$run $key: last ${name}_total $got, summary.json $value"
        read -r f l _ inc <<< "$(csv_stats "$run" "$key")"
        if [[ $f != - ]]; then
          got=$(only_value "increase(${name}_total{$labels}[$span])" "$end")
          same "$got" "${inc%.*}" ||
            mismatch "$run $key: increase over $span $got, timeseries.csv $inc (first $f, last $l, resets counted)"
          increases=$((increases + 1))
        fi
        counters=$((counters + 1))
        ;;
      gauge)
        got=$(only_value "$sel" "$end")
        same "$got" "$value" || mismatch "$run $key: last value $got, summary.json $value"
        read -r _ _ m _ <<< "$(csv_stats "$run" "$key")"
        got=$(only_value "max_over_time($sel[$span])" "$end")
        same "$got" "$m" || mismatch "$run $key: max_over_time $got, timeseries.csv max $m"
        gauges=$((gauges + 1))
        ;;
      histogram)
        got=$(only_value "${name}_count{$labels}" "$end")
        same "$got" "$value" || mismatch "$run $key: ${name}_count $got, summary.json $value"
        if ((value > 0)); then
          got=$(only_value "max_over_time($name{${labels:+$labels,}quantile=\"1\"}[$span])" "$end")
          same "$got" "$max" || mismatch "$run $key: max_over_time of quantile 1 $got, max $max"
        fi
        histograms=$((histograms + 1))
        ;;
      *) fail "$run: $key has unknown type $type" ;;
    esac
  done < <(jq -r '.metrics | to_entries[] | [.key, .value.type,
      ("skysim_" + (.value.name | gsub("[^A-Za-z0-9_]"; "_"))),
      (.value.labels | to_entries | map("\(.key | gsub("[^A-Za-z0-9_]"; "_"))=\"\(.value)\"")
        | join(",")),
      (if .value.type == "histogram" then .value.count else .value.value end),
      (.value.max // "")] | @tsv' "$run/summary.json")
  ((counters > 0 && gauges > 0 && histograms > 0 && increases > 0)) ||
    fail "$run: checked $counters counters ($increases increases), $gauges gauges, $histograms histograms: one kind is missing"
  echo "$run: $counters counters ($increases increases), $gauges gauges, $histograms histograms checked at $end ($span)"
  last_end=$end last_span=$span
}

check_run demo
check_run april
# The April panels' headline figures, as docs/observability.md queries them.
peak=$(only_value "max_over_time(skysim_go_threads{host=\"east/dataplane/0\"}[$last_span])" "$last_end")
echo "april: east data plane thread peak $peak"
for dc in east west; do
  read -r gf gl _ <<< "$(csv_stats april "user.requests.good{dc=$dc}")"
  read -r bf bl _ <<< "$(csv_stats april "user.requests.bad{dc=$dc}")"
  want=$(jq -n "($gl - $gf) / (($gl - $gf) + ($bl - $bf))")
  got=$(only_value "sum by (dc) (increase(skysim_user_requests_good_total{dc=\"$dc\"}[$last_span])) / (sum by (dc) (increase(skysim_user_requests_good_total{dc=\"$dc\"}[$last_span])) + sum by (dc) (increase(skysim_user_requests_bad_total{dc=\"$dc\"}[$last_span])))" "$last_end")
  close "$got" "$want" || mismatch "april $dc success rate $got, timeseries.csv $want"
  echo "april: $dc success rate $got"
done
# Every PromQL expression of the Grafana dashboard (Grafana itself is not packaged for Debian
# 12, so its rendering is untested) must be valid and find series in the April window.
scale=$(jq -r .scale april/summary.json)
exprs=0
while read -r expr; do
  n=$(query "${expr//\$scale/$scale}" "$last_end" | jq length)
  ((n > 0)) || mismatch "docs/grafana/april-2026.json: '$expr' finds no series"
  exprs=$((exprs + 1))
done < <(jq -r '.panels[].targets[].expr' "$src/docs/grafana/april-2026.json")
((exprs > 0)) || fail "docs/grafana/april-2026.json has no PromQL expression"
echo "april: the dashboard's $exprs expressions all find series"
((bad == 0)) || fail "$bad answers from Prometheus differ from the run's files"
echo "all answers match"
