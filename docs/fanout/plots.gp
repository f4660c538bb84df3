# Figures of docs/fanout.md. Data: build/<dir>/models/fanout/test_fanout "[.figures]"
# writes docs/fanout/*.csv; then: cd docs/fanout && gnuplot plots.gp
set terminal pngcairo size 900,560 font ",11"
set grid

set output "sweep_page_p99.png"
set title "P99 of one page of fan-out (10,000 followers, 1,000 in flight), 2M-follower post"
set xlabel "writes/s into each of 6 hyper-following timelines (300k follows)"
set ylabel "ms"
set logscale y
set key top left
plot "< grep ' full ' sweep.csv" using 1:8 with linespoints lw 2 title "page P99, full fan-out", \
     "< grep ' lossy ' sweep.csv" using 1:8 with linespoints lw 2 title "page P99, lossy (limit 2,000)", \
     "< grep ' full ' sweep.csv" using 1:4 with linespoints lw 1 dt 2 title "steady write P99 (before the post)", \
     "< grep ' full ' sweep.csv" using 1:5 with linespoints lw 1 dt 3 title "steady write P99.9"

set output "sweep_post.png"
set title "Duration of the whole 2M-follower fan-out"
set ylabel "post fan-out (s)"
plot "< grep ' full ' sweep.csv" using 1:9 with linespoints lw 2 title "full fan-out", \
     "< grep ' lossy ' sweep.csv" using 1:9 with linespoints lw 2 title "lossy (limit 2,000)"

set output "page_cdf.png"
set title "Page fan-out time, bots at 2,250 writes/s (flare; same seed and workload)"
set xlabel "page duration (ms)"
set ylabel "fraction of pages <= x"
set logscale x
unset logscale y
set key bottom right
plot "page_cdf_full.csv" using 1:2 with steps lw 2 title "full fan-out", \
     "page_cdf_lossy.csv" using 1:2 with steps lw 2 title "lossy"

set output "utilisation.png"
set title "Shard offered load over the whole fan-out, busiest first (384 shards, flare)"
set xlabel "shard rank"
set ylabel "utilisation"
unset logscale x
set yrange [0:1.2]
set arrow from 0,0.8 to 383,0.8 nohead dt 2
set label "hot (>= 0.8)" at 300,0.84
plot "utilisation_full.csv" using 1:2 with lines lw 2 title "full fan-out", \
     "utilisation_lossy.csv" using 1:2 with lines lw 2 title "lossy"

set output "pages_over_time.png"
set title "Each page of the full fan-out, bots at 1,530 writes/s: compaction per shard vs one grid"
set xlabel "seconds since the post"
set ylabel "page duration (ms)"
set logscale y
unset yrange
unset arrow
unset label
set key top right
plot "pages_per_shard.csv" using 1:2 with points pt 7 ps 0.5 title "per-shard compaction phases (model now)", \
     "pages_aligned.csv" using 1:2 with points pt 5 ps 0.5 title "one global 60 s grid (earlier model)"
