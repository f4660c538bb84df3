# Figures of docs/fanout.md. Data: build/<dir>/models/fanout/test_fanout "[.figures]"
# writes docs/fanout/*.csv; then: cd docs/fanout && gnuplot plots.gp
set terminal pngcairo size 900,560 font ",11"
set grid

set output "sweep_page_p99.png"
set title "P99 of one page of fan-out (10,000 followers, 1,000 in flight), 2M-follower post"
set xlabel "writes/s into each of 6 hyper-following timelines (300k follows)"
set ylabel "page P99 (ms)"
set logscale y
set key top left
plot "< grep ' full ' sweep.csv" using 1:4 with linespoints lw 2 title "full fan-out", \
     "< grep ' lossy ' sweep.csv" using 1:4 with linespoints lw 2 title "lossy (limit 2,000)"

set output "sweep_post.png"
set title "Duration of the whole 2M-follower fan-out"
set ylabel "post fan-out (s)"
plot "< grep ' full ' sweep.csv" using 1:5 with linespoints lw 2 title "full fan-out", \
     "< grep ' lossy ' sweep.csv" using 1:5 with linespoints lw 2 title "lossy (limit 2,000)"

set output "page_cdf.png"
set title "Page fan-out time, bots at 1,500 writes/s (same seed and workload)"
set xlabel "page duration (ms)"
set ylabel "fraction of pages <= x"
set logscale x
unset logscale y
set key bottom right
plot "page_cdf_full.csv" using 1:2 with steps lw 2 title "full fan-out", \
     "page_cdf_lossy.csv" using 1:2 with steps lw 2 title "lossy"

set output "utilisation.png"
set title "Shard utilisation during the fan-out, busiest first (384 shards)"
set xlabel "shard rank"
set ylabel "utilisation"
unset logscale x
set yrange [0:1.05]
set arrow from 0,0.8 to 383,0.8 nohead dt 2
set label "hot (>= 0.8)" at 300,0.84
plot "utilisation_full.csv" using 1:2 with lines lw 2 title "full fan-out", \
     "utilisation_lossy.csv" using 1:2 with lines lw 2 title "lossy"
