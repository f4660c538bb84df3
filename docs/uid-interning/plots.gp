# Plots for docs/uid-interning.md. Regenerate the data, then the PNGs:
#   PLOT_DIR=docs/uid-interning build/<dir>/models/fdb/test_fdb "[.plots]"
#   cd docs/uid-interning && gnuplot plots.gp
set datafile separator ","
set terminal pngcairo size 900,560 font "DejaVu Sans,11"
set key top left
set grid

# 1. Throughput and retries vs concurrency, every allocator.
set output "throughput_vs_workers.png"
set title "Interning throughput vs concurrent workers (30% repeats, default cluster: 50k commits/s)"
set logscale x 2
set logscale y 10
set xlabel "concurrent interning workers"
set ylabel "acknowledged internings / s (simulated)"
plot "allocators_vs_workers.csv" using 2:(strcol(1) eq "single-counter" ? $3 : 1/0) \
       with linespoints title "single counter", \
     "" using 2:(strcol(1) eq "sharded-sequences" ? $3 : 1/0) \
       with linespoints title "sharded sequences (32-bit prefix, 5 tries)", \
     "" using 2:(strcol(1) eq "hca" ? $3 : 1/0) with linespoints title "FDB HighContentionAllocator", \
     "" using 2:(strcol(1) eq "xxhash" ? $3 : 1/0) with linespoints title "xxHash64"

set output "retries_vs_workers.png"
set title "Retries per interning vs concurrent workers"
set ylabel "retries per request"
set logscale y 10
set yrange [1e-4:10]
plot "allocators_vs_workers.csv" using 2:(strcol(1) eq "single-counter" ? $5 : 1/0) \
       with linespoints title "single counter", \
     "" using 2:(strcol(1) eq "sharded-sequences" ? $5 : 1/0) with linespoints title "sharded sequences", \
     "" using 2:(strcol(1) eq "hca" ? $5 : 1/0) with linespoints title "HCA", \
     "" using 2:(strcol(1) eq "xxhash" ? $5 : 1/0) with linespoints title "xxHash64"
unset yrange

# 2. Conflict rate vs prefix width, simulated vs 1 - (1 - 1/S)^(tries k).
set output "prefix_conflicts.png"
set title "Sharded sequences: not\\_committed rate vs prefix width (5 tries, no break)"
unset logscale x
set logscale y 10
set xlabel "prefix bits k (S = 2^k sequences)"
set ylabel "share of commits rejected (1020)"
set key top right
plot "prefix_conflicts.csv" using 1:($2==64 ? $3 : 1/0) with points pt 7 title "simulated, 64 workers", \
     "" using 1:($2==64 ? $4 : 1/0) with lines title "1-(1-1/S)^{5k}, 64 workers", \
     "" using 1:($2==256 ? $3 : 1/0) with points pt 5 title "simulated, 256 workers", \
     "" using 1:($2==256 ? $4 : 1/0) with lines title "1-(1-1/S)^{5k}, 256 workers"

# 3. Birthday bound and simulated narrow-hash collisions.
set output "birthday.png"
set title "P(at least one collision) = 1 - exp(-n(n-1)/2^{b+1})"
set logscale x 10
unset logscale y
set xlabel "keys n"
set ylabel "probability"
set key top left
set arrow from 5.06e9,0 to 5.06e9,0.5 nohead dashtype 2
set label "5.06e9 keys: 50% (64 bits)" at 6e9,0.45
plot "birthday.csv" using 1:5 with lines title "16 bits", \
     "" using 1:4 with lines title "24 bits", \
     "" using 1:3 with lines title "32 bits", \
     "" using 1:2 with lines lw 2 title "64 bits (xxHash64)"
unset arrow
unset label

set output "narrow_hash.png"
set title "Narrow xxHash: collisions rejected by the check vs expected pairs n(n-1)/2^{b+1}"
set logscale xy 10
set xlabel "strings interned"
set ylabel "collisions"
plot "narrow_hash.csv" using 2:($1==16 ? $3 : 1/0) with points pt 7 title "16 bits, rejected (simulated)", \
     "" using 2:($1==16 ? $4 : 1/0) with lines title "16 bits, expected", \
     "" using 2:($1==20 ? $3 : 1/0) with points pt 5 title "20 bits, rejected (simulated)", \
     "" using 2:($1==20 ? $4 : 1/0) with lines title "20 bits, expected"
