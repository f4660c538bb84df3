// Data behind docs/uid-interning.md's plots. Hidden from the normal run:
//   PLOT_DIR=docs/uid-interning ./test_fdb "[.plots]" && gnuplot docs/uid-interning/plots.gp
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "components/uidalloc/birthday.hpp"
#include "models/fdb/interning_workload.hpp"

using namespace fdb;
using uidalloc::AllocatorKind;

namespace {

std::string plot_dir() {
  const char* d = std::getenv("PLOT_DIR");
  return d ? d : ".";
}

InterningResults run(AllocatorKind kind, int workers, std::int64_t requests, int prefix_bits = 32,
                     double repeat = 0.0) {
  InterningConfig c;
  c.allocator.kind = kind;
  c.allocator.prefix_bits = prefix_bits;
  c.workers = workers;
  c.requests = requests;
  c.repeat_fraction = repeat;
  InterningResults r = run_interning_experiment(c);
  REQUIRE(r.check.ok());
  return r;
}

}  // namespace

TEST_CASE("plot data: allocators vs concurrency", "[.plots]") {
  std::ofstream out(plot_dir() + "/allocators_vs_workers.csv");
  out << "allocator,workers,throughput_per_s,conflict_rate,retries_per_request,latency_mean_ms,"
         "latency_p99_ms\n";
  for (AllocatorKind kind : {AllocatorKind::single_counter, AllocatorKind::sharded_sequences,
                             AllocatorKind::high_contention, AllocatorKind::xxhash}) {
    for (int w : {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}) {
      if (kind == AllocatorKind::single_counter && w > 256) {
        continue;
      }
      std::int64_t requests = kind == AllocatorKind::single_counter ? 1500 : 40 * w + 2000;
      InterningResults r = run(kind, w, requests, 32, 0.3);
      out << uidalloc::allocator_kind_name(kind) << ',' << w << ',' << r.throughput_per_s() << ','
          << r.conflict_rate() << ',' << r.retries_per_request() << ','
          << r.latency_ns.mean() / 1e6 << ',' << r.latency_ns.quantile(0.99) / 1e6 << '\n';
    }
  }
}

TEST_CASE("plot data: conflict rate vs prefix width", "[.plots]") {
  std::ofstream out(plot_dir() + "/prefix_conflicts.csv");
  out << "prefix_bits,workers,measured_conflict_rate,expected_conflict_rate,others_in_window\n";
  for (int w : {64, 256}) {
    for (int bits = 6; bits <= 18; ++bits) {
      InterningResults r = run(AllocatorKind::sharded_sequences, w, 30 * w, bits);
      double window_s = r.database.conflict_window_versions.mean() / 1e6;
      double others = static_cast<double>(r.database.committed) / r.sim_seconds * window_s;
      out << bits << ',' << w << ',' << r.conflict_rate() << ','
          << uidalloc::sequence_conflict_probability(bits, 5, others) << ',' << others << '\n';
    }
  }
}

TEST_CASE("plot data: hash collisions vs the birthday bound", "[.plots]") {
  std::ofstream theory(plot_dir() + "/birthday.csv");
  theory << "keys,p64,p32,p24,p16\n";
  for (double n = 10; n <= 1e11; n *= 1.25) {
    theory << n << ',' << uidalloc::collision_probability(n, 64) << ','
           << uidalloc::collision_probability(n, 32) << ','
           << uidalloc::collision_probability(n, 24) << ','
           << uidalloc::collision_probability(n, 16) << '\n';
  }
  std::ofstream sim(plot_dir() + "/narrow_hash.csv");
  sim << "hash_bits,strings,collisions_rejected,expected_pairs,unchecked_violations\n";
  for (int bits : {16, 20}) {
    for (std::int64_t n : {250, 500, 1000, 2000, 4000, 8000}) {
      InterningConfig c;
      c.allocator.kind = AllocatorKind::xxhash;
      c.allocator.hash_bits = bits;
      c.workers = 16;
      c.requests = n;
      InterningResults checked = run_interning_experiment(c);
      c.allocator.collision_check = false;
      InterningResults unchecked = run_interning_experiment(c);
      sim << bits << ',' << n << ',' << checked.collisions_rejected << ','
          << uidalloc::expected_collision_pairs(static_cast<double>(n), bits) << ','
          << unchecked.check.violation_count << '\n';
    }
  }
}
