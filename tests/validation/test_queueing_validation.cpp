// Every queueing case of the selftest, at the quick lengths, over 10 seeds: each analytic value
// inside its family-wise confidence interval, each CI narrow enough to mean something, and the
// intervals shrinking as 1/sqrt(T). Plus negative controls: a model that is slightly wrong must
// be caught at these run lengths.
#include <catch2/catch.hpp>
#include <stdexcept>

#include "sim/time.hpp"
#include "validation/queueing_theory.hpp"
#include "validation/selftest.hpp"
#include "validation/semaphore_station.hpp"

using namespace skysim::validation;

TEST_CASE("queueing cases agree with theory over 10 seeds (quick lengths)") {
  SelftestOptions o;
  o.quick = true;
  o.jobs = 2;
  QueueingChecks q = run_queueing_checks(o);
  REQUIRE(q.checks.size() >= 25);
  const double confidence = bonferroni_confidence(static_cast<int>(q.checks.size()) + 1);
  for (const auto& c : q.checks) {
    CheckRow row = judge(c, confidence);
    INFO(row.claim << ": expected " << row.expected << ", simulated " << row.simulated);
    CHECK(row.pass);
  }
  std::vector<const ReplicatedCheck*> primary;
  for (std::size_t i : q.primary) primary.push_back(&q.checks[i]);
  CheckRow shrink = judge_shrinkage(primary, confidence);
  INFO(shrink.simulated << " vs " << shrink.expected);
  CHECK(shrink.pass);
  CHECK(q.fifo_violations == 0);
  CHECK(q.kernel_runs == 80);
  CHECK(q.scenario_invariants_hold);
}

namespace {

ReplicatedCheck mm1_wait_check(sim::Duration service_mean, double arrival_rate) {
  OpenStationConfig cfg;
  cfg.servers = 1;
  cfg.arrival_rate = arrival_rate;
  cfg.service_mean = service_mean;
  cfg.warmup = 20 * sim::kSecond;
  cfg.length = 400 * sim::kSecond;
  ReplicatedCheck c;
  c.claim = "M/M/1 Wq";
  c.expected = mmc_mean_wait(1, 70, 100);  // what a correct 10 ms, 70/s model gives
  c.resolution = 0.1 * c.expected;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    c.per_seed.push_back(run_open_station(cfg, seed).mean_wait_s);
  }
  return c;
}

}  // namespace

TEST_CASE("negative control: a 5 % error in the service time is caught") {
  // 10.5 ms instead of 10 ms raises rho from 0.700 to 0.735 and Wq by 17 %: the family-wise
  // interval at these lengths must exclude the analytic value of the correct model.
  const double confidence = bonferroni_confidence(40);
  CHECK(judge(mm1_wait_check(10 * sim::kMillisecond, 70), confidence).pass);
  CheckRow wrong = judge(mm1_wait_check(10'500'000, 70), confidence);
  INFO(wrong.simulated);
  CHECK_FALSE(wrong.pass);
  // So is a 5 % error in the arrival rate.
  CHECK_FALSE(judge(mm1_wait_check(10 * sim::kMillisecond, 73.5), confidence).pass);
}

TEST_CASE("stations reject impossible configurations with a message") {
  OpenStationConfig cfg;
  cfg.servers = 2;
  cfg.system_capacity = 1;  // fewer places than servers
  cfg.arrival_rate = 10;
  cfg.service_mean = sim::kMillisecond;
  cfg.length = sim::kSecond;
  CHECK_THROWS_AS(run_open_station(cfg, 1), std::invalid_argument);
  cfg.system_capacity = 0;
  cfg.length = 0;
  CHECK_THROWS_AS(run_open_station(cfg, 1), std::invalid_argument);
  ClosedNetworkConfig closed;
  closed.customers = 3;
  closed.think_time = sim::kSecond;
  closed.length = sim::kSecond;
  CHECK_THROWS_AS(run_closed_network(closed, 1), std::invalid_argument);  // no stations
}

TEST_CASE("a station run is a pure function of its seed") {
  OpenStationConfig cfg;
  cfg.servers = 2;
  cfg.arrival_rate = 150;
  cfg.service_mean = 10 * sim::kMillisecond;
  cfg.length = 20 * sim::kSecond;
  OpenStationResult a = run_open_station(cfg, 4);
  OpenStationResult b = run_open_station(cfg, 4);
  OpenStationResult c = run_open_station(cfg, 5);
  CHECK(a.mean_wait_s == b.mean_wait_s);
  CHECK(a.completed == b.completed);
  CHECK(a.mean_wait_s != c.mean_wait_s);
}
