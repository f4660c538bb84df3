// queue-server against queueing theory: with Poisson arrivals and exponential service, one
// host is M/M/c and its mean wait in queue must match Erlang C. The tolerance is a confidence
// interval from independent replications (seeds), not a hand-picked margin.
#include <catch2/catch.hpp>
#include <cmath>

#include "scenario_fixtures.hpp"
#include "scenarios/runner.hpp"

using namespace skysim::scenarios;

namespace {

// Erlang C: P(wait) for c servers at offered load a = lambda/mu.
double erlang_c(int c, double a) {
  double term = 1, sum = 0;  // a^k / k!
  for (int k = 0; k < c; ++k) {
    sum += term;
    term *= a / (k + 1);
  }
  double rho = a / c;
  double top = term / (1 - rho);
  return top / (sum + top);
}

std::string mmc(int c, double mean_ms, double rate, const std::string& duration,
                const std::string& capacity = "0") {
  return "name: mmc\nepoch: 2026-01-01\nduration: " + duration +
         "\ndatacenters:\n  dc:\n    services:\n      q:\n        kind: queue-server\n"
         "        params:\n          workers: " +
         std::to_string(c) + "\n          queue_capacity: " + capacity +
         "\n          service_time: {exponential: {mean: " + std::to_string(mean_ms) +
         "ms}}\nsources:\n  s:\n    from: dc\n    target: q.serve\n    rate: " +
         std::to_string(rate) + "/s\n";
}

struct Replications {
  double mean = 0, half_width = 0;
};

// Mean of per-seed mean waits and its 99% CI half-width (Student t, 7 degrees of freedom).
template <class F>
Replications replicate(const std::string& text, F&& value) {
  std::vector<double> x;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    LoadOptions o;
    o.seed = seed;
    Scenario s = load_scenario_text(text, "mmc.yaml", builtin_registry(), o);
    ScenarioRun run(s, builtin_registry());
    run.run();
    x.push_back(value(run));
  }
  double m = 0, v = 0;
  for (double e : x) m += e;
  m /= static_cast<double>(x.size());
  for (double e : x) v += (e - m) * (e - m);
  v /= static_cast<double>(x.size() - 1);
  return {m, 3.499 * std::sqrt(v / static_cast<double>(x.size()))};
}

}  // namespace

TEST_CASE("queue-server mean wait matches Erlang C (M/M/c)") {
  struct Point {
    int c;
    double mean_ms, rate;
  };
  for (Point p : {Point{4, 10, 300}, Point{1, 5, 150}, Point{8, 20, 340}}) {
    double mu = 1000.0 / p.mean_ms;
    double a = p.rate / mu;
    double expected_ms = erlang_c(p.c, a) / (p.c * mu - p.rate) * 1000;
    auto r = replicate(mmc(p.c, p.mean_ms, p.rate, "200s"), [](ScenarioRun& run) {
      return run.metrics().histogram("queue.wait_ns", {{"host", "dc/q/0"}}).mean() / 1e6;
    });
    INFO("c=" << p.c << " rho=" << a / p.c << " Erlang C Wq=" << expected_ms << "ms, simulated "
              << r.mean << " +- " << r.half_width);
    CHECK(std::fabs(r.mean - expected_ms) <= r.half_width);
    CHECK(r.half_width < 0.15 * expected_ms);  // the CI is tight enough to mean something
  }
}

TEST_CASE("queue-server with a capacity rejects at the M/M/c/K blocking rate") {
  // M/M/1/K with K = 1 in service + 2 queued = 3, rho = 1: blocking = 1/(K+1) = 0.25.
  auto r = replicate(mmc(1, 10, 100, "100s", "2"), [](ScenarioRun& run) {
    double rejected = run.metrics().value("queue.rejected{host=dc/q/0}");
    double arrivals = run.metrics().value("queue.arrivals{host=dc/q/0}");
    return rejected / arrivals;
  });
  INFO("blocking " << r.mean << " +- " << r.half_width);
  CHECK(std::fabs(r.mean - 0.25) <= r.half_width);
}

TEST_CASE("an internal client (user_facing: false) is counted per client, not as users") {
  const std::string text = testing::kValidScenario + std::string(R"(  batch:
    client: batch-job
    from: east
    target: web.serve
    rate: 50/s
    user_facing: false
)");
  Scenario s = load_scenario_text(text, "t.yaml", builtin_registry());
  ScenarioRun run(s, builtin_registry());
  run.run();
  auto& m = run.metrics();
  auto count = [&m](const std::string& name) { return m.contains(name) ? m.value(name) : 0.0; };
  const double users = count("user.requests.good{dc=east}") + count("user.requests.bad{dc=east}");
  const double readers = m.value("requests.issued{client=r,endpoint=serve}");
  const double batch = m.value("requests.issued{client=batch-job,endpoint=serve}");
  INFO("users " << users << " readers " << readers << " batch " << batch);
  REQUIRE(batch > 1000);  // ~50/s for a minute
  // Every user-facing request that completed is counted once; none of the batch job's.
  CHECK(users <= readers);
  CHECK(users >= readers - 20);  // a few may still be in flight at the end
}

TEST_CASE("first_arrival: at_start issues the first request at the source's start exactly") {
  // One request an hour: a drawn first arrival almost never comes within the first second.
  auto source = [](const std::string& first) {
    return testing::kValidScenario + std::string(R"(  once:
    from: east
    target: web.serve
    rate: 1/h
    start: +10s
)") + (first.empty() ? "" : "    first_arrival: " + first + "\n");
  };
  auto issued_by = [](const std::string& text, sim::Time t) {
    Scenario s = load_scenario_text(text, "t.yaml", builtin_registry());
    ScenarioRun run(s, builtin_registry());
    run.advance_to(t);
    const std::string name = "requests.issued{client=once,endpoint=serve}";
    return run.metrics().contains(name) ? run.metrics().value(name) : 0.0;
  };
  const sim::Time start = 10 * sim::kSecond;
  CHECK(issued_by(source("at_start"), start - 1) == 0);
  CHECK(issued_by(source("at_start"), start) == 1);
  CHECK(issued_by(source("at_start"), start + sim::kSecond) == 1);  // the next gap is drawn
  CHECK(issued_by(source("drawn"), start + sim::kSecond) == 0);
  CHECK(issued_by(source(""), start + sim::kSecond) == 0);  // drawn is the default
}
