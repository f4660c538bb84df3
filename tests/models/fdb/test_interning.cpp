// The interning experiments' claims (issue 7 "Must show"; domain.md §6, §10), each asserted on
// the simulated mechanism rather than on a fitted number.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <cstdio>

#include "components/uidalloc/birthday.hpp"
#include "models/fdb/interning_workload.hpp"

using namespace fdb;
using uidalloc::AllocatorKind;

namespace {

InterningConfig config_for(AllocatorKind kind, int workers, std::int64_t requests,
                           std::uint64_t seed = 1) {
  InterningConfig c;
  c.allocator.kind = kind;
  c.workers = workers;
  c.requests = requests;
  c.seed = seed;
  return c;
}

}  // namespace

TEST_CASE("single counter, sequential: throughput is 1 / transaction latency") {
  InterningResults r = run_interning_experiment(config_for(AllocatorKind::single_counter, 1, 2000));
  REQUIRE(r.check.ok());
  CHECK(r.not_committed == 0);
  double latency_s = r.latency_ns.mean() / 1e9;
  CHECK(r.throughput_per_s() * latency_s == Approx(1.0).epsilon(0.02));
  // GRV + 2 reads + batch wait + commit with the docs' latencies: ~4-5 ms per UID.
  CHECK(latency_s > 0.004);
  CHECK(latency_s < 0.0055);

  // Bluesky's figure (~5-10 ms per UID => 100-200/s, domain.md §10.1): a cluster whose commit
  // takes 5 ms and GRV 1-2 ms lands in that band by the same 1/latency law.
  InterningConfig slow = config_for(AllocatorKind::single_counter, 1, 1000);
  slow.database.grv_latency_min = 1 * sim::kMillisecond;
  slow.database.grv_latency_max = 2 * sim::kMillisecond;
  slow.database.commit_latency_min = 4 * sim::kMillisecond;
  slow.database.commit_latency_max = 6 * sim::kMillisecond;
  InterningResults s = run_interning_experiment(slow);
  CHECK(s.throughput_per_s() > 100);
  CHECK(s.throughput_per_s() < 200);
  CHECK(s.throughput_per_s() * s.latency_ns.mean() / 1e9 == Approx(1.0).epsilon(0.02));
}

TEST_CASE("single counter under concurrency: conflicts and retries rise, throughput does not") {
  double base = 0;
  double previous_retries = -1;
  for (int workers : {1, 4, 16, 64}) {
    InterningResults r =
        run_interning_experiment(config_for(AllocatorKind::single_counter, workers, 1500));
    REQUIRE(r.check.ok());
    if (workers == 1) {
      base = r.throughput_per_s();
      CHECK(r.retries_per_request() == 0);
    } else {
      CHECK(r.retries_per_request() > previous_retries);
      CHECK(r.conflict_rate() > 0.15);
    }
    // 64x the workers buy at most ~1.3x (one winner per commit batch).
    CHECK(r.throughput_per_s() < 1.35 * base);
    previous_retries = r.retries_per_request();
  }
}

TEST_CASE("sharded sequences scale with workers up to the commit pipeline's capacity") {
  InterningConfig c = config_for(AllocatorKind::sharded_sequences, 1, 400);
  c.database.commit_capacity_per_s = 5'000;  // small, so saturation shows in a short run
  double one = run_interning_experiment(c).throughput_per_s();
  c.workers = 16;
  c.requests = 4000;
  InterningResults sixteen = run_interning_experiment(c);
  CHECK(sixteen.throughput_per_s() > 12 * one);  // near-linear below capacity
  CHECK(sixteen.conflict_rate() < 0.01);
  c.workers = 256;
  c.requests = 20000;
  InterningResults many = run_interning_experiment(c);
  REQUIRE(many.check.ok());
  CHECK(many.throughput_per_s() < 5'000 * 1.01);  // capped by the pipeline...
  CHECK(many.throughput_per_s() > 5'000 * 0.9);   // ...and reaching it
}

TEST_CASE("sharded conflict rate follows 1 - (1 - 1/S)^(tries * others) for S = 2^k") {
  for (int bits : {8, 10, 12}) {
    InterningConfig c = config_for(AllocatorKind::sharded_sequences, 64, 6000);
    c.allocator.prefix_bits = bits;
    InterningResults r = run_interning_experiment(c);
    REQUIRE(r.check.ok());
    // k = allocations committing inside one transaction's (RV, CV] window = commit rate x the
    // measured mean window (versions are microseconds).
    double window_s = r.database.conflict_window_versions.mean() / 1e6;
    double others = static_cast<double>(r.database.committed) / r.sim_seconds * window_s;
    double expected = uidalloc::sequence_conflict_probability(bits, 5, others);
    INFO("bits " << bits << " measured " << r.conflict_rate() << " expected " << expected);
    CHECK(r.conflict_rate() == Approx(expected).epsilon(0.15));
  }
}

TEST_CASE("HCA and xxHash on the same workload: both unique, hashing needs no coordination") {
  InterningConfig c = config_for(AllocatorKind::high_contention, 64, 6000);
  c.repeat_fraction = 0.3;
  InterningResults hca = run_interning_experiment(c);
  c.allocator.kind = AllocatorKind::xxhash;
  InterningResults hash = run_interning_experiment(c);
  REQUIRE(hca.check.ok());
  REQUIRE(hash.check.ok());
  CHECK(hca.created == hash.created);  // the same string stream
  CHECK(hash.not_committed < hca.not_committed);
  CHECK(hca.conflict_rate() > 0.02);  // same-candidate picks and window moves
  CHECK(hash.throughput_per_s() > hca.throughput_per_s());
}

TEST_CASE("narrow hashes collide as the birthday bound says; the checker catches them") {
  // 64 bits: 50 % at ~5.06e9 keys (domain.md §10.1).
  CHECK(uidalloc::keys_for_collision_probability(0.5, 64) == Approx(5.06e9).epsilon(0.01));
  InterningConfig c = config_for(AllocatorKind::xxhash, 8, 1500);
  c.allocator.hash_bits = 16;
  c.allocator.collision_check = true;
  InterningResults checked = run_interning_experiment(c);
  CHECK(checked.check.ok());  // the collision check refuses colliding strings...
  double expected = uidalloc::expected_collision_pairs(1500, 16);  // ~17
  CHECK(checked.collisions_rejected > expected * 0.5);
  CHECK(checked.collisions_rejected < expected * 1.5);

  c.allocator.collision_check = false;  // ...without it, two strings share a UID
  InterningResults unchecked = run_interning_experiment(c);
  CHECK_FALSE(unchecked.check.ok());
  CHECK_THAT(unchecked.check.summary(), Catch::Contains("two strings"));
}

TEST_CASE("the planted snapshot-read counter bug is caught within 100 seeds") {
  int caught_at = 0;
  for (std::uint64_t seed = 1; seed <= 100 && caught_at == 0; ++seed) {
    InterningResults r =
        run_interning_experiment(config_for(AllocatorKind::snapshot_counter_bug, 4, 20, seed));
    if (!r.check.ok()) {
      caught_at = static_cast<int>(seed);
    }
  }
  CHECK(caught_at >= 1);
}

TEST_CASE("the real allocators stay quiet over 1,000 seeds with injected 1021 faults") {
  const AllocatorKind kinds[] = {AllocatorKind::single_counter, AllocatorKind::sharded_sequences,
                                 AllocatorKind::high_contention, AllocatorKind::xxhash};
  std::uint64_t unknown = 0;
  std::uint64_t unknown_applied = 0;
  for (std::uint64_t seed = 1; seed <= 1000; ++seed) {
    AllocatorKind kind = kinds[seed % 4];
    InterningConfig c = config_for(kind, 4, 16, seed);
    c.repeat_fraction = 0.3;
    c.allocator.prefix_bits = 4;  // few sequences: concurrent allocators meet on them
    c.database.commit_unknown_probability = 0.1;
    InterningResults r = run_interning_experiment(c);
    unknown += r.unknown_results;
    unknown_applied += r.database.unknown_applied;
    if (!r.check.ok() || r.gave_up) {
      FAIL("seed " << seed << " allocator " << uidalloc::allocator_kind_name(kind) << ": "
                   << r.check.summary());
    }
  }
  CHECK(unknown > 500);         // the faults fired...
  CHECK(unknown_applied > 100);  // ...including commits that applied but were not acknowledged
}

TEST_CASE("KVDB's shift 32 with a 48-bit counter can overlap: scaled-down demonstration") {
  uidalloc::AllocatorConfig kvdb;
  kvdb.prefix_bits = 16;
  kvdb.counter_bits = 48;
  kvdb.shift = 32;
  CHECK(kvdb.ids_may_overlap());
  // Same shape at toy scale: 2 sequences, 12-bit counters assembled with shift 8.
  InterningConfig c = config_for(AllocatorKind::sharded_sequences, 1, 800);
  c.allocator.prefix_bits = 1;
  c.allocator.counter_bits = 12;
  c.allocator.shift = 8;
  c.allocator.break_on_success = true;
  InterningResults r = run_interning_experiment(c);
  CHECK_FALSE(r.check.ok());
  c.allocator.shift = 0;  // shift = counter width: no overlap
  CHECK(run_interning_experiment(c).check.ok());
}

TEST_CASE("same seed, same run; another seed, another run") {
  InterningConfig c = config_for(AllocatorKind::high_contention, 16, 500);
  c.database.commit_unknown_probability = 0.05;
  InterningResults a = run_interning_experiment(c);
  InterningResults b = run_interning_experiment(c);
  CHECK(a.fingerprint == b.fingerprint);
  CHECK(a.attempts == b.attempts);
  c.seed = 2;
  CHECK(run_interning_experiment(c).fingerprint != a.fingerprint);
}

TEST_CASE("interning config errors name the field") {
  InterningConfig c;
  c.workers = 0;
  CHECK_THROWS_WITH(run_interning_experiment(c), Catch::Contains("workers"));
  c = InterningConfig{};
  c.allocator.prefix_bits = 40;
  CHECK_THROWS_WITH(run_interning_experiment(c), Catch::Contains("prefix_bits"));
  CHECK_THROWS_WITH(uidalloc::parse_allocator_kind("snowflake"), Catch::Contains("known:"));
  c = InterningConfig{};
  c.duration = -1;
  CHECK_THROWS_WITH(run_interning_experiment(c), Catch::Contains("duration"));
}

TEST_CASE("a run with a duration stops there: what is still running is not counted") {
  // One sequential worker on the single counter: ~4.7 ms per interning, so 1 s serves ~210.
  InterningConfig c = config_for(AllocatorKind::single_counter, 1, 1'000'000);
  c.duration = sim::kSecond;
  InterningResults r = run_interning_experiment(c);
  REQUIRE(r.check.ok());
  CHECK(r.sim_seconds == 1.0);
  CHECK(r.requests == r.acknowledged + 1);  // the one in flight at 1 s
  CHECK(r.throughput_per_s() * r.latency_ns.mean() / 1e9 == Approx(1.0).epsilon(0.03));
  // The same run to completion of as many requests takes as long, give or take the last one.
  InterningResults all =
      run_interning_experiment(config_for(AllocatorKind::single_counter, 1, r.acknowledged));
  CHECK(all.acknowledged == r.acknowledged);
  CHECK(all.sim_seconds <= 1.0);
  CHECK(all.sim_seconds > 1.0 - 0.01);
}

// The docs/benchmarks.md figure: `test_fdb "[.bench]"` (N=... to change the count).
TEST_CASE("benchmark: one million interning transactions", "[.bench]") {
  InterningConfig c = config_for(AllocatorKind::sharded_sequences, 256, 1'000'000);
  if (const char* n = std::getenv("N")) {
    c.requests = std::atoll(n);
  }
  c.repeat_fraction = 0.5;
  c.check = false;
  InterningResults r = run_interning_experiment(c);
  std::printf("%lld interning transactions (%llu new UIDs), %llu events, %.1f s simulated, "
              "%.0f/s, conflict rate %.4f\n",
              static_cast<long long>(c.requests), static_cast<unsigned long long>(r.created),
              static_cast<unsigned long long>(r.events), r.sim_seconds, r.throughput_per_s(),
              r.conflict_rate());
  CHECK(r.acknowledged == static_cast<std::uint64_t>(c.requests));
}
