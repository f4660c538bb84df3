// The Seastar reactor model against what its rules imply (docs/models/scylla.md, "Seastar
// scheduling"): shares divide a saturated CPU, the task quota bounds how long short work waits
// behind long work, idle groups bank no credit.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "models/scylla/reactor.hpp"

using namespace scylla;
using sim::kMicrosecond;
using sim::kMillisecond;
using sim::kSecond;

namespace {
struct Done {
  std::vector<std::pair<std::uint64_t, sim::Time>> at;
  void operator()(std::uint64_t c, sim::Time t) { at.emplace_back(c, t); }
  sim::Time of(std::uint64_t c) const {
    for (auto& [k, t] : at) {
      if (k == c) return t;
    }
    return sim::kTimeMax;
  }
};
}  // namespace

TEST_CASE("two saturated groups with shares 1000:200 get the CPU 5:1") {
  ReactorConfig rc;
  rc.shares = {1000.0, 200.0, 200.0};
  Reactor r(&rc);
  // Both queues always full: many 100 us statement tasks, one long compaction.
  for (int i = 0; i < 20000; ++i) r.submit(0, Group::Statement, 100 * kMicrosecond, 0);
  r.submit(0, Group::Compaction, 10 * kSecond, 0);
  Done d;
  r.run_until(1 * kSecond, d);
  const double st = static_cast<double>(r.ran(Group::Statement));
  const double co = static_cast<double>(r.ran(Group::Compaction));
  CHECK(st + co == Approx(1e9));
  // Granularity is one quota (0.5 ms) per switch, so over 1 s the ratio is within ~1 %.
  CHECK(st / co == Approx(5.0).epsilon(0.02));
}

TEST_CASE("equal shares split a saturated CPU evenly, three groups by their shares") {
  ReactorConfig rc;
  rc.shares = {1000.0, 500.0, 250.0};
  Reactor r(&rc);
  r.submit(0, Group::Statement, 10 * kSecond, 0);
  r.submit(0, Group::Compaction, 10 * kSecond, 0);
  r.submit(0, Group::Streaming, 10 * kSecond, 0);
  Done d;
  r.run_until(7 * kSecond / 10, d);
  const double a = static_cast<double>(r.ran(Group::Statement));
  const double b = static_cast<double>(r.ran(Group::Compaction));
  const double c = static_cast<double>(r.ran(Group::Streaming));
  CHECK(a / 7e8 == Approx(4.0 / 7).epsilon(0.01));
  CHECK(b / 7e8 == Approx(2.0 / 7).epsilon(0.01));
  CHECK(c / 7e8 == Approx(1.0 / 7).epsilon(0.02));
}

TEST_CASE("a 20 us write behind a long compaction waits at most about one quota") {
  ReactorConfig rc;  // 0.5 ms quota, statement 1000, compaction 1000
  Reactor r(&rc);
  Done d;
  r.submit(0, Group::Compaction, 200 * kMillisecond, 1);
  r.run_until(3 * kMillisecond + 100 * kMicrosecond, d);  // mid-quota of the compaction
  const sim::Time arrive = r.now();
  r.submit(arrive, Group::Statement, 20 * kMicrosecond, 2);
  r.run_until(1 * kSecond, d);
  const sim::Duration waited = d.of(2) - arrive - 20 * kMicrosecond;
  CHECK(waited <= rc.task_quota);
  CHECK(waited == 400 * kMicrosecond);  // the compaction's quota ends at 3.5 ms
  // The compaction still gets all the rest of the CPU: it ends 20 us later than alone.
  CHECK(d.of(1) == 200 * kMillisecond + 20 * kMicrosecond);
}

TEST_CASE("a write behind a long trim in its own group waits one quota, not the trim") {
  ReactorConfig rc;
  Reactor r(&rc);
  Done d;
  r.submit(0, Group::Statement, 80 * kMillisecond, 1);  // a trim scanning 80k rows
  r.run_until(10 * kMicrosecond, d);
  r.submit(10 * kMicrosecond, Group::Statement, 20 * kMicrosecond, 2);
  r.run_until(1 * kSecond, d);
  // The trim yields at 0.5 ms to the back of the queue; the write runs next.
  CHECK(d.of(2) == 500 * kMicrosecond + 20 * kMicrosecond);
  CHECK(d.of(1) == 80 * kMillisecond + 20 * kMicrosecond);
  // The FIFO shard of the earlier model would have answered the write after the whole trim.
  CHECK(d.of(2) < 80 * kMillisecond / 100);
}

TEST_CASE("short tasks of one group run in arrival order; the quota does not reorder them") {
  ReactorConfig rc;
  Reactor r(&rc);
  Done d;
  for (std::uint64_t i = 1; i <= 50; ++i) r.submit(0, Group::Statement, 30 * kMicrosecond, i);
  r.run_until(kSecond, d);
  REQUIRE(d.at.size() == 50);
  for (std::uint64_t i = 0; i < 50; ++i) {
    CHECK(d.at[i].first == i + 1);
  }
  // Work-conserving: the last ends when all the work is done (tasks this short are never
  // cut: preemption is checked between tasks).
  CHECK(d.at.back().second == 50 * 30 * kMicrosecond);
}

TEST_CASE("a group idle for a long time banks no credit when it wakes") {
  ReactorConfig rc;
  Reactor r(&rc);
  Done d;
  r.submit(0, Group::Compaction, 10 * kSecond, 0);
  r.run_until(kSecond, d);  // the statement group was idle all along
  for (int i = 0; i < 10000; ++i) r.submit(kSecond, Group::Statement, 100 * kMicrosecond, 0);
  const sim::Duration c0 = r.ran(Group::Compaction);
  r.run_until(kSecond + 100 * kMillisecond, d);
  // Without the clamp the statement group would own the next second; with it, equal shares.
  const double share =
      static_cast<double>(r.ran(Group::Compaction) - c0) / static_cast<double>(100 * kMillisecond);
  CHECK(share == Approx(0.5).margin(0.02));
}

TEST_CASE("certain_completion is exact when it answers and declines otherwise") {
  ReactorConfig rc;
  Reactor r(&rc);
  Done d;
  // The compaction below arrives at 10 us: the caller knows it (the cluster's next trigger).
  const sim::Time c = r.certain_completion(5 * kMicrosecond, Group::Statement, 40 * kMicrosecond,
                                           10 * kMicrosecond);
  r.submit(5 * kMicrosecond, Group::Statement, 40 * kMicrosecond, 7);
  r.run_until(10 * kMicrosecond, d);
  // Other work arriving later cannot delay it: it fits in the quota that started with it.
  r.submit(10 * kMicrosecond, Group::Compaction, 5 * kMillisecond, 0);
  r.run_until(kSecond, d);
  CHECK(c == 45 * kMicrosecond);
  CHECK(d.of(7) == c);
  CHECK(r.certain_completion(kSecond, Group::Statement, 2 * kMillisecond, sim::kTimeMax) ==
        sim::kTimeMax);  // > one quota
  r.run_until(kSecond, d);
  r.submit(kSecond, Group::Statement, kMillisecond, 0);
  // Busy with a 1 ms task that will yield at the quota: not certain in its group, even with
  // no other group's work ever to come (the long task goes behind it at the quota's end)...
  CHECK(r.certain_completion(kSecond, Group::Statement, 10 * kMicrosecond, sim::kTimeMax) ==
        sim::kTimeMax);
  CHECK(r.certain_completion(kSecond, Group::Compaction, 10 * kMicrosecond, sim::kTimeMax) ==
        sim::kTimeMax);
  CHECK(r.next_decision() == kSecond + 500 * kMicrosecond);  // 1 ms > a quota: it yields
}

TEST_CASE("a smaller task quota bounds the wait behind long work more tightly") {
  for (sim::Duration quota : {100 * kMicrosecond, 500 * kMicrosecond, 2 * kMillisecond}) {
    ReactorConfig rc;
    rc.task_quota = quota;
    Reactor r(&rc);
    Done d;
    r.submit(0, Group::Compaction, 50 * kMillisecond, 0);
    r.run_until(1, d);
    r.submit(1, Group::Statement, 20 * kMicrosecond, 1);
    r.run_until(kSecond, d);
    CHECK(d.of(1) == quota + 20 * kMicrosecond);
  }
}

TEST_CASE("certain_completion behind short work of the running group, within the quota") {
  ReactorConfig rc;
  Reactor r(&rc);
  Done d;
  r.submit(0, Group::Statement, 100 * kMicrosecond, 1);
  r.run_until(10 * kMicrosecond, d);
  r.submit(10 * kMicrosecond, Group::Statement, 100 * kMicrosecond, 2);
  // Behind 90 + 100 us of statement work: ends at 220 us, inside the 500 us quota.
  // The compaction below arrives at 10 us, as the caller knows.
  const sim::Time quiet = 10 * kMicrosecond;
  const sim::Time c =
      r.certain_completion(10 * kMicrosecond, Group::Statement, 20 * kMicrosecond, quiet);
  CHECK(c == 220 * kMicrosecond);
  // Another group is not running: its task's end depends on the vruntimes.
  CHECK(r.certain_completion(10 * kMicrosecond, Group::Compaction, 20 * kMicrosecond, quiet) ==
        sim::kTimeMax);
  // Past the quota's end it is not certain either, with other work due before it would end
  // (a group switch may come first); with none due it would be.
  CHECK(r.certain_completion(10 * kMicrosecond, Group::Statement, 400 * kMicrosecond, quiet) ==
        sim::kTimeMax);
  CHECK(r.certain_completion(10 * kMicrosecond, Group::Statement, 400 * kMicrosecond,
                             sim::kTimeMax) == 600 * kMicrosecond);
  r.submit(10 * kMicrosecond, Group::Statement, 20 * kMicrosecond, 3);
  r.submit(10 * kMicrosecond, Group::Compaction, 50 * kMillisecond, 0);  // cannot cut in
  r.run_until(kSecond, d);
  CHECK(d.of(3) == c);
}

// The cluster answers a read's reply at the instant certain_completion gives, without waking
// the shard: any answer it gives must be the instant the task really ends, whatever arrives
// after it. Random bursts of statement work (some longer than a quota), with compactions
// arriving at instants the caller knows in advance, as the cluster knows its next trigger.
TEST_CASE("certain_completion's answers past the quota hold against what arrives later") {
  ReactorConfig rc;
  Reactor r(&rc);
  Done d;
  std::uint64_t state = 12345;
  auto next = [&state](std::uint64_t n) {  // a small LCG: the test's own script
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  std::vector<sim::Time> compactions;
  for (sim::Time t = 3 * kMillisecond; t < kSecond; t += (10 + next(60)) * kMillisecond) {
    compactions.push_back(t);
  }
  std::size_t next_compaction = 0;
  std::vector<std::pair<std::uint64_t, sim::Time>> predicted;
  std::size_t past_quota = 0;  // answers the quota rule alone could not give
  std::uint64_t cookie = 1;
  sim::Time t = 0;
  while (t < kSecond - 10 * kMillisecond) {
    t += next(400) * kMicrosecond;
    // Arrivals in time order: a compaction due by t first, as the cluster's advance() does.
    while (next_compaction < compactions.size() && compactions[next_compaction] <= t) {
      r.run_until(compactions[next_compaction], d);
      r.submit(compactions[next_compaction], Group::Compaction,
               (1 + next(1500)) * kMicrosecond, 0);
      ++next_compaction;
    }
    r.run_until(t, d);
    const sim::Time quiet =
        next_compaction < compactions.size() ? compactions[next_compaction] : sim::kTimeMax;
    const int burst = 1 + static_cast<int>(next(6));
    for (int i = 0; i < burst; ++i) {
      const sim::Duration work =
          next(200) == 0 ? (600 + next(2000)) * kMicrosecond : (5 + next(80)) * kMicrosecond;
      const sim::Time c = r.certain_completion(t, Group::Statement, work, quiet);
      if (c != sim::kTimeMax) {
        predicted.emplace_back(cookie, c);
        if (c > t + rc.task_quota) ++past_quota;
      }
      r.submit(t, Group::Statement, work, cookie++);
    }
  }
  r.run_until(10 * kSecond, d);
  REQUIRE(std::string(r.conservation_error()).empty());
  REQUIRE(predicted.size() > 100);
  CHECK(past_quota > 50);
  for (const auto& [c, at] : predicted) {
    INFO("task " << c);
    CHECK(d.of(c) == at);
  }
}

TEST_CASE("a queue runs its tasks in submission order while it grows and wraps (ring storage)") {
  ReactorConfig rc;
  Reactor r(&rc);
  // Bursts of 1..40 short tasks, each burst queued while the last ones still run, so the ring
  // behind the front task fills, wraps and doubles with tasks in it.
  std::vector<std::uint64_t> order;
  std::vector<sim::Time> expected;
  sim::Time t = 0;
  sim::Time busy_until = 0;
  std::uint64_t cookie = 1;
  Done d;
  for (int burst = 1; burst <= 40; ++burst) {
    for (int i = 0; i < burst; ++i) {
      const sim::Duration work = (1 + (cookie % 7)) * kMicrosecond;
      r.submit(t, Group::Statement, work, cookie);
      busy_until = std::max(busy_until, t) + work;
      order.push_back(cookie);
      expected.push_back(busy_until);
      ++cookie;
    }
    t += 10 * kMicrosecond * burst / 2;  // part of the burst is still queued at the next
    r.run_until(t, d);
    CHECK(r.queued(Group::Statement) ==
          static_cast<std::size_t>(std::count_if(expected.begin(), expected.end(),
                                                 [&](sim::Time e) { return e > t; })));
  }
  r.run_until(busy_until, d);
  REQUIRE(d.at.size() == order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    CHECK(d.at[i].first == order[i]);
    CHECK(d.at[i].second == expected[i]);
  }
  CHECK(std::string(r.conservation_error()).empty());
}
