# GC CPU fraction vs GOMEMLIMIT / (live heap + non-heap memory), from the goruntime model.
# Regenerate the data and the plot (from the repository root):
#   SKYSIM_GC_CURVE_CSV=docs/models/goruntime_gc_curve.csv \
#     build/<dir>/models/goruntime/test_goruntime "[.gc-curve]"
#   gnuplot docs/models/goruntime_gc_curve.gp
set datafile separator ","
set terminal pngcairo size 900,560 font "sans,11" noenhanced
set output "docs/models/goruntime_gc_curve.png"
set title "Go GC CPU share vs GOMEMLIMIT headroom (GOGC=100, 4 Ps, 256 MiB live, ~200 MB/s garbage)"
set xlabel "GOMEMLIMIT / (live heap + non-heap runtime memory)"
set ylabel "fraction of GOMAXPROCS CPU"
set xrange [1:3.05]
set yrange [0:0.7]
set grid
set key top right
nolimit = system("awk -F, '$1==0 {print $2}' docs/models/goruntime_gc_curve.csv")
set arrow from 1,0.5 to 3.05,0.5 nohead dt 2 lc rgb "#aa0000"
set label "limiter cap (~50 %)" at 2.3,0.52 tc rgb "#aa0000"
plot "docs/models/goruntime_gc_curve.csv" using ($1>0?$1:1/0):2 with linespoints lw 2 pt 7 \
       title "GC CPU fraction (mark workers + assists + STW)", \
     "" using ($1>0?$1:1/0):($5/10) with linespoints lw 1 pt 6 dt 3 \
       title "heap peak / live heap (÷10)", \
     nolimit + 0 with lines dt 4 lc rgb "#555555" title "no GOMEMLIMIT"
