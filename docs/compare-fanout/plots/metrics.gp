set terminal svg size 760,420 noenhanced font 'sans,11' background rgb 'white'
set grid ytics lc rgb '#dddddd'
set border 3
set tics nomirror
set output 'docs/compare-fanout/plots/metric-fanout.cache_hits_per_read_host_east_timelines_0_.svg'
set title 'fanout.cache_hits_per_read{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.cache_hits_per_read{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.cache_hits_per_read_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.db_reads_per_read_host_east_timelines_0_.svg'
set title 'fanout.db_reads_per_read{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.db_reads_per_read{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.db_reads_per_read_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.delivered_fraction_hyper_host_east_timelines_0_.svg'
set title 'fanout.delivered_fraction_hyper{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.delivered_fraction_hyper{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.delivered_fraction_hyper_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.delivered_fraction_ordinary_host_east_timelines_0_.svg'
set title 'fanout.delivered_fraction_ordinary{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.delivered_fraction_ordinary{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.delivered_fraction_ordinary_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.delivered_fraction_host_east_timelines_0_.svg'
set title 'fanout.delivered_fraction{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.delivered_fraction{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.delivered_fraction_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.detect_bots_flagged_host_east_timelines_0_.svg'
set title 'fanout.detect_bots_flagged{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.detect_bots_flagged{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.detect_bots_flagged_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.detect_delay_max_ns_host_east_timelines_0_.svg'
set title 'fanout.detect_delay_max_ns{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.detect_delay_max_ns{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.detect_delay_max_ns_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.detect_delay_mean_ns_host_east_timelines_0_.svg'
set title 'fanout.detect_delay_mean_ns{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.detect_delay_mean_ns{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.detect_delay_mean_ns_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.detect_dropped_host_east_timelines_0_.svg'
set title 'fanout.detect_dropped{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.detect_dropped{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.detect_dropped_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.detect_false_positives_host_east_timelines_0_.svg'
set title 'fanout.detect_false_positives{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.detect_false_positives{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.detect_false_positives_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.detect_flagged_host_east_timelines_0_.svg'
set title 'fanout.detect_flagged{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.detect_flagged{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.detect_flagged_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.follows_made_host_east_timelines_0_.svg'
set title 'fanout.follows_made{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.follows_made{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.follows_made_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.graph_edges_host_east_timelines_0_.svg'
set title 'fanout.graph_edges{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.graph_edges{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.graph_edges_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.grower_delivered_fraction_host_east_timelines_0_.svg'
set title 'fanout.grower_delivered_fraction{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.grower_delivered_fraction{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.grower_delivered_fraction_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.grower_exact_fraction_host_east_timelines_0_.svg'
set title 'fanout.grower_exact_fraction{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.grower_exact_fraction{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.grower_exact_fraction_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.hot_shards_distinct_host_east_timelines_0_.svg'
set title 'fanout.hot_shards_distinct{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.hot_shards_distinct{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.hot_shards_distinct_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.hot_shards_max_host_east_timelines_0_.svg'
set title 'fanout.hot_shards_max{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.hot_shards_max{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.hot_shards_max_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.hot_shards_mean_host_east_timelines_0_.svg'
set title 'fanout.hot_shards_mean{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.hot_shards_mean{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.hot_shards_mean_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.hotkey_batches_host_east_timelines_0_.svg'
set title 'fanout.hotkey_batches{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.hotkey_batches{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.hotkey_batches_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.hotkey_bot_flag_mean_ns_host_east_timelines_0_.svg'
set title 'fanout.hotkey_bot_flag_mean_ns{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.hotkey_bot_flag_mean_ns{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.hotkey_bot_flag_mean_ns_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.hotkey_bots_flagged_host_east_timelines_0_.svg'
set title 'fanout.hotkey_bots_flagged{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.hotkey_bots_flagged{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.hotkey_bots_flagged_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.hotkey_coalesce_delay_mean_ns_host_east_timelines_0_.svg'
set title 'fanout.hotkey_coalesce_delay_mean_ns{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.hotkey_coalesce_delay_mean_ns{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.hotkey_coalesce_delay_mean_ns_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.hotkey_coalesce_delay_p99_ns_host_east_timelines_0_.svg'
set title 'fanout.hotkey_coalesce_delay_p99_ns{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.hotkey_coalesce_delay_p99_ns{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.hotkey_coalesce_delay_p99_ns_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.hotkey_coalesced_rows_host_east_timelines_0_.svg'
set title 'fanout.hotkey_coalesced_rows{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.hotkey_coalesced_rows{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.hotkey_coalesced_rows_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.hotkey_direct_rows_host_east_timelines_0_.svg'
set title 'fanout.hotkey_direct_rows{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.hotkey_direct_rows{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.hotkey_direct_rows_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.hotkey_false_positives_host_east_timelines_0_.svg'
set title 'fanout.hotkey_false_positives{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.hotkey_false_positives{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.hotkey_false_positives_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.hotkey_keys_flagged_host_east_timelines_0_.svg'
set title 'fanout.hotkey_keys_flagged{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.hotkey_keys_flagged{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.hotkey_keys_flagged_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.hotkey_stale_reads_host_east_timelines_0_.svg'
set title 'fanout.hotkey_stale_reads{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.hotkey_stale_reads{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.hotkey_stale_reads_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.hotkey_stale_rows_host_east_timelines_0_.svg'
set title 'fanout.hotkey_stale_rows{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.hotkey_stale_rows{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.hotkey_stale_rows_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.list_writes_host_east_timelines_0_.svg'
set title 'fanout.list_writes{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.list_writes{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.list_writes_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.mean_factor_error_class_grower_host_east_timelines_0_.svg'
set title 'fanout.mean_factor_error{class=grower,host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.mean_factor_error{class=grower,host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.mean_factor_error_class_grower_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.mean_factor_error_class_heavy_host_east_timelines_0_.svg'
set title 'fanout.mean_factor_error{class=heavy,host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.mean_factor_error{class=heavy,host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.mean_factor_error_class_heavy_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.mean_factor_error_class_ordinary_host_east_timelines_0_.svg'
set title 'fanout.mean_factor_error{class=ordinary,host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.mean_factor_error{class=ordinary,host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.mean_factor_error_class_ordinary_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.merges_per_read_host_east_timelines_0_.svg'
set title 'fanout.merges_per_read{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.merges_per_read{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.merges_per_read_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.page_p99_ns_host_east_timelines_0_.svg'
set title 'fanout.page_p99_ns{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.page_p99_ns{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.page_p99_ns_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.post_duration_host_east_timelines_0_.count.svg'
set title 'fanout.post_duration{host=east/timelines/0}.count by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.post_duration{host=east/timelines/0}.count'
plot 'docs/compare-fanout/plots/metric-fanout.post_duration_host_east_timelines_0_.count.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.post_duration_host_east_timelines_0_.max.svg'
set title 'fanout.post_duration{host=east/timelines/0}.max by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.post_duration{host=east/timelines/0}.max'
plot 'docs/compare-fanout/plots/metric-fanout.post_duration_host_east_timelines_0_.max.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.post_duration_host_east_timelines_0_.mean.svg'
set title 'fanout.post_duration{host=east/timelines/0}.mean by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.post_duration{host=east/timelines/0}.mean'
plot 'docs/compare-fanout/plots/metric-fanout.post_duration_host_east_timelines_0_.mean.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.post_duration_host_east_timelines_0_.min.svg'
set title 'fanout.post_duration{host=east/timelines/0}.min by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.post_duration{host=east/timelines/0}.min'
plot 'docs/compare-fanout/plots/metric-fanout.post_duration_host_east_timelines_0_.min.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.post_duration_host_east_timelines_0_.p50.svg'
set title 'fanout.post_duration{host=east/timelines/0}.p50 by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.post_duration{host=east/timelines/0}.p50'
plot 'docs/compare-fanout/plots/metric-fanout.post_duration_host_east_timelines_0_.p50.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.post_duration_host_east_timelines_0_.p90.svg'
set title 'fanout.post_duration{host=east/timelines/0}.p90 by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.post_duration{host=east/timelines/0}.p90'
plot 'docs/compare-fanout/plots/metric-fanout.post_duration_host_east_timelines_0_.p90.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.post_duration_host_east_timelines_0_.p99.svg'
set title 'fanout.post_duration{host=east/timelines/0}.p99 by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.post_duration{host=east/timelines/0}.p99'
plot 'docs/compare-fanout/plots/metric-fanout.post_duration_host_east_timelines_0_.p99.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.post_duration_host_east_timelines_0_.p999.svg'
set title 'fanout.post_duration{host=east/timelines/0}.p999 by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.post_duration{host=east/timelines/0}.p999'
plot 'docs/compare-fanout/plots/metric-fanout.post_duration_host_east_timelines_0_.p999.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.queue_delay_mean_ns_host_east_timelines_0_.svg'
set title 'fanout.queue_delay_mean_ns{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.queue_delay_mean_ns{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.queue_delay_mean_ns_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.queue_delay_p99_ns_host_east_timelines_0_.svg'
set title 'fanout.queue_delay_p99_ns{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.queue_delay_p99_ns{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.queue_delay_p99_ns_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.queue_max_depth_host_east_timelines_0_.svg'
set title 'fanout.queue_max_depth{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.queue_max_depth{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.queue_max_depth_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.read_latency_host_east_timelines_0_.count.svg'
set title 'fanout.read_latency{host=east/timelines/0}.count by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.read_latency{host=east/timelines/0}.count'
plot 'docs/compare-fanout/plots/metric-fanout.read_latency_host_east_timelines_0_.count.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.read_latency_host_east_timelines_0_.max.svg'
set title 'fanout.read_latency{host=east/timelines/0}.max by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.read_latency{host=east/timelines/0}.max'
plot 'docs/compare-fanout/plots/metric-fanout.read_latency_host_east_timelines_0_.max.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.read_latency_host_east_timelines_0_.mean.svg'
set title 'fanout.read_latency{host=east/timelines/0}.mean by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.read_latency{host=east/timelines/0}.mean'
plot 'docs/compare-fanout/plots/metric-fanout.read_latency_host_east_timelines_0_.mean.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.read_latency_host_east_timelines_0_.min.svg'
set title 'fanout.read_latency{host=east/timelines/0}.min by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.read_latency{host=east/timelines/0}.min'
plot 'docs/compare-fanout/plots/metric-fanout.read_latency_host_east_timelines_0_.min.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.read_latency_host_east_timelines_0_.p50.svg'
set title 'fanout.read_latency{host=east/timelines/0}.p50 by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.read_latency{host=east/timelines/0}.p50'
plot 'docs/compare-fanout/plots/metric-fanout.read_latency_host_east_timelines_0_.p50.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.read_latency_host_east_timelines_0_.p90.svg'
set title 'fanout.read_latency{host=east/timelines/0}.p90 by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.read_latency{host=east/timelines/0}.p90'
plot 'docs/compare-fanout/plots/metric-fanout.read_latency_host_east_timelines_0_.p90.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.read_latency_host_east_timelines_0_.p99.svg'
set title 'fanout.read_latency{host=east/timelines/0}.p99 by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.read_latency{host=east/timelines/0}.p99'
plot 'docs/compare-fanout/plots/metric-fanout.read_latency_host_east_timelines_0_.p99.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.read_latency_host_east_timelines_0_.p999.svg'
set title 'fanout.read_latency{host=east/timelines/0}.p999 by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.read_latency{host=east/timelines/0}.p999'
plot 'docs/compare-fanout/plots/metric-fanout.read_latency_host_east_timelines_0_.p999.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.retries_per_read_host_east_timelines_0_.svg'
set title 'fanout.retries_per_read{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.retries_per_read{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.retries_per_read_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.rows_read_per_read_host_east_timelines_0_.svg'
set title 'fanout.rows_read_per_read{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.rows_read_per_read{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.rows_read_per_read_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.stale_decisions_class_grower_host_east_timelines_0_.svg'
set title 'fanout.stale_decisions{class=grower,host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.stale_decisions{class=grower,host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.stale_decisions_class_grower_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.stale_decisions_class_heavy_host_east_timelines_0_.svg'
set title 'fanout.stale_decisions{class=heavy,host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.stale_decisions{class=heavy,host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.stale_decisions_class_heavy_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.stale_decisions_class_ordinary_host_east_timelines_0_.svg'
set title 'fanout.stale_decisions{class=ordinary,host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.stale_decisions{class=ordinary,host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.stale_decisions_class_ordinary_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.stale_writes_class_grower_host_east_timelines_0_.svg'
set title 'fanout.stale_writes{class=grower,host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.stale_writes{class=grower,host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.stale_writes_class_grower_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.stale_writes_class_heavy_host_east_timelines_0_.svg'
set title 'fanout.stale_writes{class=heavy,host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.stale_writes{class=heavy,host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.stale_writes_class_heavy_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.stale_writes_class_ordinary_host_east_timelines_0_.svg'
set title 'fanout.stale_writes{class=ordinary,host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.stale_writes{class=ordinary,host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.stale_writes_class_ordinary_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.storage_rows_host_east_timelines_0_.svg'
set title 'fanout.storage_rows{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.storage_rows{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.storage_rows_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.timeline_writes_host_east_timelines_0_.svg'
set title 'fanout.timeline_writes{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.timeline_writes{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.timeline_writes_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.worst_user_delivered_fraction_host_east_timelines_0_.svg'
set title 'fanout.worst_user_delivered_fraction{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.worst_user_delivered_fraction{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.worst_user_delivered_fraction_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.write_p99_ns_host_east_timelines_0_.svg'
set title 'fanout.write_p99_ns{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.write_p99_ns{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.write_p99_ns_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-fanout.write_timeouts_host_east_timelines_0_.svg'
set title 'fanout.write_timeouts{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'fanout.write_timeouts{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-fanout.write_timeouts_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.failed_client_app-readers_endpoint_read_.svg'
set title 'requests.failed{client=app-readers,endpoint=read} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.failed{client=app-readers,endpoint=read}'
plot 'docs/compare-fanout/plots/metric-requests.failed_client_app-readers_endpoint_read_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.failed_client_celebrity-posts_endpoint_post_.svg'
set title 'requests.failed{client=celebrity-posts,endpoint=post} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.failed{client=celebrity-posts,endpoint=post}'
plot 'docs/compare-fanout/plots/metric-requests.failed_client_celebrity-posts_endpoint_post_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.in_flight_client_app-readers_endpoint_read_.svg'
set title 'requests.in_flight{client=app-readers,endpoint=read} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.in_flight{client=app-readers,endpoint=read}'
plot 'docs/compare-fanout/plots/metric-requests.in_flight_client_app-readers_endpoint_read_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.in_flight_client_celebrity-posts_endpoint_post_.svg'
set title 'requests.in_flight{client=celebrity-posts,endpoint=post} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.in_flight{client=celebrity-posts,endpoint=post}'
plot 'docs/compare-fanout/plots/metric-requests.in_flight_client_celebrity-posts_endpoint_post_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.issued_client_app-readers_endpoint_read_.svg'
set title 'requests.issued{client=app-readers,endpoint=read} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.issued{client=app-readers,endpoint=read}'
plot 'docs/compare-fanout/plots/metric-requests.issued_client_app-readers_endpoint_read_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.issued_client_celebrity-posts_endpoint_post_.svg'
set title 'requests.issued{client=celebrity-posts,endpoint=post} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.issued{client=celebrity-posts,endpoint=post}'
plot 'docs/compare-fanout/plots/metric-requests.issued_client_celebrity-posts_endpoint_post_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.latency_ns_client_app-readers_endpoint_read_.count.svg'
set title 'requests.latency_ns{client=app-readers,endpoint=read}.count by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.latency_ns{client=app-readers,endpoint=read}.count'
plot 'docs/compare-fanout/plots/metric-requests.latency_ns_client_app-readers_endpoint_read_.count.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.latency_ns_client_app-readers_endpoint_read_.max.svg'
set title 'requests.latency_ns{client=app-readers,endpoint=read}.max by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.latency_ns{client=app-readers,endpoint=read}.max'
plot 'docs/compare-fanout/plots/metric-requests.latency_ns_client_app-readers_endpoint_read_.max.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.latency_ns_client_app-readers_endpoint_read_.mean.svg'
set title 'requests.latency_ns{client=app-readers,endpoint=read}.mean by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.latency_ns{client=app-readers,endpoint=read}.mean'
plot 'docs/compare-fanout/plots/metric-requests.latency_ns_client_app-readers_endpoint_read_.mean.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.latency_ns_client_app-readers_endpoint_read_.min.svg'
set title 'requests.latency_ns{client=app-readers,endpoint=read}.min by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.latency_ns{client=app-readers,endpoint=read}.min'
plot 'docs/compare-fanout/plots/metric-requests.latency_ns_client_app-readers_endpoint_read_.min.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.latency_ns_client_app-readers_endpoint_read_.p50.svg'
set title 'requests.latency_ns{client=app-readers,endpoint=read}.p50 by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.latency_ns{client=app-readers,endpoint=read}.p50'
plot 'docs/compare-fanout/plots/metric-requests.latency_ns_client_app-readers_endpoint_read_.p50.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.latency_ns_client_app-readers_endpoint_read_.p90.svg'
set title 'requests.latency_ns{client=app-readers,endpoint=read}.p90 by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.latency_ns{client=app-readers,endpoint=read}.p90'
plot 'docs/compare-fanout/plots/metric-requests.latency_ns_client_app-readers_endpoint_read_.p90.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.latency_ns_client_app-readers_endpoint_read_.p99.svg'
set title 'requests.latency_ns{client=app-readers,endpoint=read}.p99 by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.latency_ns{client=app-readers,endpoint=read}.p99'
plot 'docs/compare-fanout/plots/metric-requests.latency_ns_client_app-readers_endpoint_read_.p99.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.latency_ns_client_app-readers_endpoint_read_.p999.svg'
set title 'requests.latency_ns{client=app-readers,endpoint=read}.p999 by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.latency_ns{client=app-readers,endpoint=read}.p999'
plot 'docs/compare-fanout/plots/metric-requests.latency_ns_client_app-readers_endpoint_read_.p999.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.latency_ns_client_celebrity-posts_endpoint_post_.count.svg'
set title 'requests.latency_ns{client=celebrity-posts,endpoint=post}.count by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.latency_ns{client=celebrity-posts,endpoint=post}.count'
plot 'docs/compare-fanout/plots/metric-requests.latency_ns_client_celebrity-posts_endpoint_post_.count.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.latency_ns_client_celebrity-posts_endpoint_post_.max.svg'
set title 'requests.latency_ns{client=celebrity-posts,endpoint=post}.max by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.latency_ns{client=celebrity-posts,endpoint=post}.max'
plot 'docs/compare-fanout/plots/metric-requests.latency_ns_client_celebrity-posts_endpoint_post_.max.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.latency_ns_client_celebrity-posts_endpoint_post_.mean.svg'
set title 'requests.latency_ns{client=celebrity-posts,endpoint=post}.mean by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.latency_ns{client=celebrity-posts,endpoint=post}.mean'
plot 'docs/compare-fanout/plots/metric-requests.latency_ns_client_celebrity-posts_endpoint_post_.mean.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.latency_ns_client_celebrity-posts_endpoint_post_.min.svg'
set title 'requests.latency_ns{client=celebrity-posts,endpoint=post}.min by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.latency_ns{client=celebrity-posts,endpoint=post}.min'
plot 'docs/compare-fanout/plots/metric-requests.latency_ns_client_celebrity-posts_endpoint_post_.min.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.latency_ns_client_celebrity-posts_endpoint_post_.p50.svg'
set title 'requests.latency_ns{client=celebrity-posts,endpoint=post}.p50 by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.latency_ns{client=celebrity-posts,endpoint=post}.p50'
plot 'docs/compare-fanout/plots/metric-requests.latency_ns_client_celebrity-posts_endpoint_post_.p50.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.latency_ns_client_celebrity-posts_endpoint_post_.p90.svg'
set title 'requests.latency_ns{client=celebrity-posts,endpoint=post}.p90 by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.latency_ns{client=celebrity-posts,endpoint=post}.p90'
plot 'docs/compare-fanout/plots/metric-requests.latency_ns_client_celebrity-posts_endpoint_post_.p90.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.latency_ns_client_celebrity-posts_endpoint_post_.p99.svg'
set title 'requests.latency_ns{client=celebrity-posts,endpoint=post}.p99 by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.latency_ns{client=celebrity-posts,endpoint=post}.p99'
plot 'docs/compare-fanout/plots/metric-requests.latency_ns_client_celebrity-posts_endpoint_post_.p99.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.latency_ns_client_celebrity-posts_endpoint_post_.p999.svg'
set title 'requests.latency_ns{client=celebrity-posts,endpoint=post}.p999 by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.latency_ns{client=celebrity-posts,endpoint=post}.p999'
plot 'docs/compare-fanout/plots/metric-requests.latency_ns_client_celebrity-posts_endpoint_post_.p999.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.late_client_app-readers_endpoint_read_.svg'
set title 'requests.late{client=app-readers,endpoint=read} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.late{client=app-readers,endpoint=read}'
plot 'docs/compare-fanout/plots/metric-requests.late_client_app-readers_endpoint_read_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.late_client_celebrity-posts_endpoint_post_.svg'
set title 'requests.late{client=celebrity-posts,endpoint=post} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.late{client=celebrity-posts,endpoint=post}'
plot 'docs/compare-fanout/plots/metric-requests.late_client_celebrity-posts_endpoint_post_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.ok_client_app-readers_endpoint_read_.svg'
set title 'requests.ok{client=app-readers,endpoint=read} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.ok{client=app-readers,endpoint=read}'
plot 'docs/compare-fanout/plots/metric-requests.ok_client_app-readers_endpoint_read_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-requests.ok_client_celebrity-posts_endpoint_post_.svg'
set title 'requests.ok{client=celebrity-posts,endpoint=post} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'requests.ok{client=celebrity-posts,endpoint=post}'
plot 'docs/compare-fanout/plots/metric-requests.ok_client_celebrity-posts_endpoint_post_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-scylla.degraded_host_east_timelines_0_.svg'
set title 'scylla.degraded{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'scylla.degraded{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-scylla.degraded_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-scylla.down_nodes_host_east_timelines_0_.svg'
set title 'scylla.down_nodes{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'scylla.down_nodes{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-scylla.down_nodes_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-scylla.max_shard_ops_host_east_timelines_0_.svg'
set title 'scylla.max_shard_ops{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'scylla.max_shard_ops{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-scylla.max_shard_ops_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-scylla.read_timeouts_host_east_timelines_0_.svg'
set title 'scylla.read_timeouts{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'scylla.read_timeouts{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-scylla.read_timeouts_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-scylla.unavailable_host_east_timelines_0_.svg'
set title 'scylla.unavailable{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'scylla.unavailable{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-scylla.unavailable_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-scylla.write_timeouts_host_east_timelines_0_.svg'
set title 'scylla.write_timeouts{host=east/timelines/0} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'scylla.write_timeouts{host=east/timelines/0}'
plot 'docs/compare-fanout/plots/metric-scylla.write_timeouts_host_east_timelines_0_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-user.requests.bad_dc_east_.svg'
set title 'user.requests.bad{dc=east} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'user.requests.bad{dc=east}'
plot 'docs/compare-fanout/plots/metric-user.requests.bad_dc_east_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
set output 'docs/compare-fanout/plots/metric-user.requests.good_dc_east_.svg'
set title 'user.requests.good{dc=east} by variant (mean, 95% CI over seeds)'
set xrange [-0.5:33-0.5]
set xtics rotate by -15
set ylabel 'user.requests.good{dc=east}'
plot 'docs/compare-fanout/plots/metric-user.requests.good_dc_east_.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' notitle
unset output
