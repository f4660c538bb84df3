// The statistics the verdicts rest on, checked on inputs with known answers — including inputs
// that must FAIL, so a check that can never fail would show up here.
#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "sim/simulation.hpp"
#include "validation/check.hpp"
#include "validation/confidence.hpp"
#include "validation/time_average.hpp"

using namespace skysim::validation;

TEST_CASE("replication interval uses Student t with n - 1 degrees of freedom") {
  std::vector<double> x{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  Interval i = replication_interval(x, 0.95);
  CHECK(i.mean == Approx(5.5));
  CHECK(i.sd == Approx(3.0276503540974917));
  CHECK(i.half_width == Approx(2.2621571627982 * 3.0276503540974917 / std::sqrt(10.0)));
  CHECK(i.contains(5.5 + 0.99 * i.half_width));
  CHECK_FALSE(i.contains(5.5 + 1.01 * i.half_width));
  CHECK_THROWS_AS(replication_interval(std::vector<double>{1.0}, 0.95), std::invalid_argument);
  CHECK_THROWS_AS(replication_interval(x, 1.0), std::invalid_argument);
  CHECK_THROWS_AS(replication_interval(std::vector<double>{1.0, NAN}, 0.95),
                  std::invalid_argument);
}

TEST_CASE("batch means cut one series into consecutive batches") {
  std::vector<double> series{1, 1, 3, 3, 5, 5, 7, 7};
  Interval i = batch_means_interval(series, 4, 0.95);
  CHECK(i.n == 4);
  CHECK(i.mean == Approx(4));
  CHECK_THROWS_AS(batch_means_interval(series, 1, 0.95), std::invalid_argument);
}

TEST_CASE("chi-square and KS accept true distributions and reject wrong ones") {
  std::vector<long> fair(10, 10'000);
  fair[0] += 50;
  fair[1] -= 50;
  CHECK(chi_square_uniform_p(fair) > 0.5);
  std::vector<long> biased(10, 10'000);
  biased[0] += 500;  // a 5 % excess in one cell of 100k draws
  biased[9] -= 500;
  CHECK(chi_square_uniform_p(biased) < 1e-6);

  sim::Simulation sim(3);
  sim::Rng& rng = sim.stream("test/ks");
  std::vector<double> right, wrong;
  for (int i = 0; i < 20'000; ++i) {
    right.push_back(rng.exponential(2.0));
    wrong.push_back(rng.exponential(2.1));  // 5 % off in the mean
  }
  CHECK(ks_exponential(right, 2.0).p > 0.01);
  CHECK(ks_exponential(wrong, 2.0).p < 1e-4);
}

TEST_CASE("a replicated check fails outside its interval and when its CI is too wide") {
  ReplicatedCheck c;
  c.claim = "x";
  c.per_seed = {9.9, 10.1, 10.0, 9.95, 10.05};
  c.resolution = 1;
  c.expected = 10;
  CHECK(judge(c, 0.99).pass);
  c.expected = 11;
  CheckRow outside = judge(c, 0.99);
  CHECK_FALSE(outside.pass);
  CHECK(outside.verdict == "FAIL (outside CI)");
  c.expected = 10;
  c.resolution = 0.01;  // the run cannot resolve 1 %: inconclusive counts as a failure
  CHECK_FALSE(judge(c, 0.99).pass);
}

TEST_CASE("the table lists every row and counts what holds") {
  std::vector<CheckRow> rows{{"a", "s", "1", "1", "PASS", true},
                             {"b", "s", "1", "2", "FAIL", false}};
  std::string t = format_table(rows);
  CHECK(t.find("1/2 checks hold") != std::string::npos);
  CHECK(bonferroni_confidence(50) == Approx(0.999));
  CHECK_THROWS_AS(bonferroni_confidence(0), std::invalid_argument);
}

TEST_CASE("a known departure is judged like any band line, shown, and not a failure") {
  BandCheck c;
  c.claim = "threads grow about tenfold";
  c.low = 5;
  c.high = 20;
  c.per_seed = {180, 190, 200, 185};
  c.known_departure = "docs/april-2026.md";
  CheckRow departs = judge(c);
  CHECK_FALSE(departs.pass);
  CHECK(departs.known_departure);
  CHECK(departs.holds());
  CHECK(departs.verdict == "DEPARTS (known: docs/april-2026.md)");
  c.per_seed = {9, 10, 11, 10};  // the model now reproduces it: say so
  CheckRow holds_now = judge(c);
  CHECK(holds_now.pass);
  CHECK(holds_now.verdict.starts_with("PASS (no longer departs"));
  c.known_departure.clear();  // an unlisted failure is a failure
  c.per_seed = {180, 190, 200, 185};
  CHECK_FALSE(judge(c).holds());
  std::string t = format_table({departs, judge(c)});
  CHECK(t.find("0/2 checks hold; 1 known departure") != std::string::npos);
}

TEST_CASE("a direct line may depart too: shown as DEPARTS, and PASS says when it holds again") {
  DirectCheck c;
  c.claim = "no hot shards under lossy";
  c.simulated = "3 hot";
  c.pass = false;
  CHECK_FALSE(judge(c).holds());  // an unlisted failure is a failure
  CHECK(judge(c).verdict == "FAIL");
  c.known_departure = "docs/fanout.md";
  CHECK(judge(c).holds());
  CHECK(judge(c).known_departure);
  CHECK(judge(c).verdict == "DEPARTS (known: docs/fanout.md)");
  c.pass = true;
  CHECK(judge(c).verdict.starts_with("PASS (no longer departs"));
  CHECK_FALSE(judge(c).known_departure);
}

TEST_CASE("TimeAverage integrates a level over its window only") {
  TimeAverage a(10, 30);
  a.set(0, 5);   // before the window: only sets the level
  a.set(20, 1);  // 5 for [10, 20)
  a.set(40, 7);  // 1 for [20, 30); [30, 40) is after the window
  a.advance(50);
  CHECK(a.mean() == Approx(3.0));
  CHECK(a.fraction_at(5) == Approx(0.5));
  CHECK(a.fraction_at(1) == Approx(0.5));
  CHECK(a.fraction_at(7) == 0);
}
