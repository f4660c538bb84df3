#!/usr/bin/env bash
# Plots of an April replay run against the simulated date: user success rate per datacenter,
# TIME_WAIT sockets, OS threads, heap and RSS, GC stop-the-world pause, error-log and bind-error
# rates. SVG (and PNG with --png) through gnuplot, from the run's timeseries.csv.
#
#   scripts/april-plots.sh runs/april-2026-outage-1 [OUT_DIR] [--png]
set -euo pipefail
run=${1:?usage: april-plots.sh RUN_DIR [OUT_DIR] [--png]}
out=${2:-$run/plots}
fmt=svg
[[ ${3:-} == --png || ${2:-} == --png ]] && fmt=png
[[ ${2:-} == --png ]] && out=$run/plots
csv=$run/timeseries.csv
summary=$run/summary.json
for f in "$csv" "$summary"; do
  [[ -f $f ]] || { echo "april-plots: $f not found (is $run a skysim run directory?)" >&2; exit 1; }
done
command -v gnuplot >/dev/null || { echo "april-plots: gnuplot not installed (scripts/setup-debian.sh)" >&2; exit 1; }
epoch=$(grep -o '"epoch": *"[^"]*"' "$summary" | head -1 | sed 's/.*"\([^"]*\)"$/\1/')
scale=$(grep -o '"scale": *[0-9.eE+-]*' "$summary" | head -1 | sed 's/.*: *//')
[[ -n $scale ]] || scale=1
epoch_s=$(date -u -d "$epoch" +%s) || { echo "april-plots: cannot read the epoch in $summary" >&2; exit 1; }
header=$(head -1 "$csv")
col() {  # 1-based column of a header name, or 0
  awk -v RS=, -v want="$1" '{ gsub(/\r|\n/, ""); if ($0 == want) { print NR; found = 1; exit } }
                             END { if (!found) print 0 }' <<<"$header"
}
t=$(col time_s)
need() { local c; c=$(col "$1"); [[ $c != 0 ]] || { echo "april-plots: column $1 missing in $csv" >&2; exit 1; }; echo "$c"; }
h() { echo "{dc=$1;host=$1/dataplane/0}"; }
mkdir -p "$out"
if [[ $fmt == svg ]]; then term='svg size 960,360 dynamic font "sans,11"'; else term='pngcairo size 960,360 font "sans,10"'; fi
gnuplot <<GP
set terminal $term
set datafile separator ","
set xdata time; set timefmt "%s"; set format x "%a %d\n%H:%M"
set grid; set key top left
x(s) = $epoch_s + s
# per-interval change of a cumulative column (the first row has no predecessor)
pe = NaN; pw = NaN; qe = NaN; qw = NaN
set output "$out/success-rate.$fmt"; set title "user requests answered within the deadline, per minute"
set ylabel "success (%)"; set yrange [0:105]
ge0=0; be0=0; gw0=0; bw0=0
plot "$csv" every ::1 using (x(\$$t)):(g=column($(need 'user.requests.good{dc=east}'))-ge0, b=column($(need 'user.requests.bad{dc=east}'))-be0, ge0=column($(need 'user.requests.good{dc=east}')), be0=column($(need 'user.requests.bad{dc=east}')), g+b > 0 ? 100.0*g/(g+b) : NaN) with lines lw 1.5 title "east (batch client here)", \
     "$csv" every ::1 using (x(\$$t)):(g=column($(need 'user.requests.good{dc=west}'))-gw0, b=column($(need 'user.requests.bad{dc=west}'))-bw0, gw0=column($(need 'user.requests.good{dc=west}')), bw0=column($(need 'user.requests.bad{dc=west}')), g+b > 0 ? 100.0*g/(g+b) : NaN) with lines lw 1.5 title "west"
set yrange [*:*]
set output "$out/time-wait.$fmt"; set title "TCP sockets in TIME_WAIT (simulated size)"; set ylabel "sockets"
plot "$csv" using (x(\$$t)):$(need "tcp.time_wait$(h east)") with lines title "east", "" using (x(\$$t)):$(need "tcp.time_wait$(h west)") with lines title "west"
set output "$out/threads.$fmt"; set title "OS threads of the data-plane process (Go Ms + sysmon), at full size = simulated / scale ($scale)"; set ylabel "threads (full size)"; set logscale y; set key right center noenhanced
plot "$csv" using (x(\$$t)):(column($(need "go.threads$(h east)"))/$scale) with lines title "east", "" using (x(\$$t)):(column($(need "go.threads$(h west)"))/$scale) with lines title "west", 150 with lines dt 3 lc rgb "gray" title "PM: 150 healthy", 1500 with lines dt 2 lc rgb "gray" title "PM: 1,500 in the spiral", 10000 with lines dt 4 lc rgb "red" title "Go: 10,000-thread limit"
unset logscale y; set key top left
set output "$out/memory.$fmt"; set title "east process memory (simulated size)"; set ylabel "MiB"
plot "$csv" using (x(\$$t)):(column($(need "go.rss_bytes$(h east)"))/1048576) with lines title "RSS", "" using (x(\$$t)):(column($(need "go.heap_bytes$(h east)"))/1048576) with lines title "heap", "" using (x(\$$t)):(column($(need "go.rss_bytes$(h west)"))/1048576) with lines dt 2 title "RSS west"
set output "$out/gc-pause.$fmt"; set title "last GC stop-the-world pause"; set ylabel "µs"; set logscale y
plot "$csv" using (x(\$$t)):(column($(need "go.stw_last_ns$(h east)"))/1000) with lines title "east", "" using (x(\$$t)):(column($(need "go.stw_last_ns$(h west)"))/1000) with lines title "west"
unset logscale y
set output "$out/error-logs.$fmt"; set title "error log lines written and memcached bind errors, per second"; set ylabel "per second"
l0=0; e0=0; dt0=0; tprev=0
plot "$csv" every ::1 using (x(\$$t)):(d=column($(need "log.lines_written$(h east)"))-l0, l0=column($(need "log.lines_written$(h east)")), w=\$$t-tprev, tprev=\$$t, w > 0 ? d/w : NaN) with lines title "log lines (east)", \
     "$csv" every ::1 using (x(\$$t)):(d=column($(need "memcached.bind_errors$(h east)"))-e0, e0=column($(need "memcached.bind_errors$(h east)")), w=\$$t-dt0, dt0=\$$t, w > 0 ? d/w : NaN) with lines title "bind errors (east)"
GP
echo "april-plots: wrote $(ls "$out"/*."$fmt" | wc -l) plots in $out"
