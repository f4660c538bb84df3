#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>

#include "sim/json.hpp"
#include "sim/metrics.hpp"
#include "sim/process.hpp"

using namespace sim;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

// Every 10 ns: one request served, queue depth set to the time, one latency recorded
// (latency = 100 before t=50, 10000 after: a latency spike the interval view must show).
Process load(MetricsRegistry& m, int steps) {
  Counter& served = m.counter("http.requests", {{"host", "h1"}});
  Gauge& depth = m.gauge("queue.depth");
  Histogram& latency = m.histogram("http.latency_ns", {{"host", "h1"}});
  for (int i = 0; i < steps; ++i) {
    co_await sim::sleep(10);
    ProcState& me = co_await this_process();
    served.add(1);
    depth.set(static_cast<double>(me.sim->now()));
    latency.record(me.sim->now() < 50 ? 100 : 10000);
  }
}

}  // namespace

TEST_CASE("metrics: labels are canonical, references stable, order deterministic") {
  MetricsRegistry m;
  Counter& a = m.counter("req", {{"host", "h2"}, {"client", "c1"}});
  Counter& b = m.counter("req", {{"client", "c1"}, {"host", "h2"}});
  CHECK(&a == &b);
  CHECK(m.contains("req{client=c1,host=h2}"));
  a.add(3);
  // Registering many more series never moves an existing one.
  for (int i = 0; i < 1000; ++i) m.counter("req", {{"host", "h" + std::to_string(i)}});
  CHECK(&m.counter("req", {{"host", "h2"}, {"client", "c1"}}) == &a);
  CHECK(m.value("req{client=c1,host=h2}") == 3);

  MetricsRegistry order;
  order.gauge("b");
  order.counter("a", {{"z", "1"}});
  order.counter("a");
  order.histogram("a", {{"y", "2"}});
  std::vector<std::string> keys;
  order.for_each([&](const SeriesView& s) { keys.push_back(s.key); });
  CHECK(keys == std::vector<std::string>{"a", "a{y=2}", "a{z=1}", "b"});
}

TEST_CASE("metrics: bad names, labels and types are rejected with clear messages") {
  MetricsRegistry m;
  m.counter("x");
  CHECK_THROWS_WITH(m.gauge("x"), Catch::Contains("already registered as a counter"));
  CHECK_THROWS_WITH(m.counter(""), Catch::Contains("bad metric name"));
  CHECK_THROWS_WITH(m.counter("a b"), Catch::Contains("bad metric name 'a b'"));
  CHECK_THROWS_WITH(m.counter("x", {{"k", "1"}, {"k", "2"}}), Catch::Contains("given twice"));
  CHECK_THROWS_WITH(m.counter("x", {{"k", "a,b"}}), Catch::Contains("label value 'a,b'"));
  CHECK_THROWS_WITH(m.counter("x", {{"", "v"}}), Catch::Contains("bad label key"));
  CHECK_THROWS_AS(m.counter("x").add(-1), std::invalid_argument);
  CHECK_THROWS_AS(m.value("nope"), std::out_of_range);
  m.histogram("h");
  CHECK_THROWS_WITH(m.value("h"), Catch::Contains("is a histogram"));
  CHECK_THROWS_AS(m.gauge_fn("f", {}, nullptr), std::invalid_argument);
  Simulation sim(1);
  CHECK_THROWS_WITH(TimeSeriesSampler(sim, m, 0), Catch::Contains("interval must be positive"));
}

TEST_CASE("metrics: the sampler records rows of every series and writes a sorted CSV") {
  Simulation sim(1);
  MetricsRegistry m;
  double table_size = 0;
  m.gauge_fn("tcp.timewait", {{"host", "h1"}}, [&] { return table_size; });
  TimeSeriesSampler sampler(sim, m, 20);
  sampler.start();  // samples at 20, 40, 60, 80, 100
  sim.spawn(load(m, 10));
  sim.call_at(35, 0, [&] { table_size = 7; });
  sim.run_until(100);
  REQUIRE(sampler.rows() == 5);

  // Samples at time t run before the load process's events at t (registered earlier in the
  // queue), so the row at 20 has seen the request at 10 only.
  auto served = sampler.column("http.requests{host=h1}");
  CHECK(served ==
        std::vector<std::pair<Time, double>>{{20, 1}, {40, 3}, {60, 5}, {80, 7}, {100, 9}});
  auto tw = sampler.column("tcp.timewait{host=h1}");
  REQUIRE(tw.size() == 5);
  CHECK(tw[0].second == 0);
  CHECK(tw[1].second == 7);
  // Interval histograms: the spike after t=50 shows in the row where it happened.
  auto p99 = sampler.column("http.latency_ns{host=h1}:p99");
  auto count = sampler.column("http.latency_ns{host=h1}:count");
  REQUIRE(p99.size() == 5);
  CHECK(count[0].second == 1);
  CHECK(count[1].second == 2);
  CHECK(p99[1].second == 100);
  CHECK(p99[2].second == Approx(10000).epsilon(Histogram::kRelativeError));
  CHECK(sampler.column("http.latency_ns{host=h1}:max")[2].second == 10000);  // exact new max
  CHECK(sampler.column("http.latency_ns{host=h1}:p50")[3].second ==
        Approx(10000).epsilon(Histogram::kRelativeError));

  std::ostringstream csv;
  sampler.write_csv(csv);
  auto lines = lines_of(csv.str());
  REQUIRE(lines.size() == 6);
  auto header = split(lines[0]);
  REQUIRE(header.size() == 3 + 1 + 1 + 6 + 1);
  CHECK(header[0] == "time_ns");
  CHECK(header[1] == "time_s");
  CHECK(header[2] == "time_utc");
  CHECK(std::is_sorted(header.begin() + 3, header.end()));
  CHECK(header[3] == "http.latency_ns{host=h1}:count");
  auto row2 = split(lines[2]);
  REQUIRE(row2.size() == header.size());
  CHECK(row2[0] == "40");
  CHECK(row2[1] == "4e-08");
  CHECK(row2[2] == "1970-01-01T00:00:00.000000040Z");
  for (std::size_t c = 0; c < header.size(); ++c) {
    if (header[c] == "http.requests{host=h1}") CHECK(row2[c] == "3");
    if (header[c] == "queue.depth") CHECK(row2[c] == "30");
  }
}

TEST_CASE("metrics: a series registered late gets empty cells in earlier rows") {
  Simulation sim(1);
  MetricsRegistry m;
  m.counter("early").add(1);
  TimeSeriesSampler sampler(sim, m, 10);
  sampler.start(0);
  sim.call_at(15, 0, [&] { m.counter("late").add(2); });
  sim.run_until(20);
  std::ostringstream csv;
  sampler.write_csv(csv);
  auto lines = lines_of(csv.str());
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] == "time_ns,time_s,time_utc,early,late");
  CHECK(lines[1] == "0,0,1970-01-01T00:00:00Z,1,");
  CHECK(lines[2] == "10,1e-08,1970-01-01T00:00:00.000000010Z,1,");
  CHECK(lines[3] == "20,2e-08,1970-01-01T00:00:00.000000020Z,1,2");
}

TEST_CASE("metrics: the sampler is bounded and may die before or after its simulation") {
  {
    Simulation sim(1);
    MetricsRegistry m;
    m.counter("a");
    m.counter("b");
    TimeSeriesSampler sampler(sim, m, 1, 7);
    sampler.start();
    sim.run_until(100);
    CHECK(sampler.truncated());
    CHECK(sampler.samples().size() == 7);
    CHECK(sim.idle());  // a full sampler stops ticking
  }
  MetricsRegistry m;
  m.gauge("g").set(1);
  {
    auto sim = std::make_unique<Simulation>(2);
    TimeSeriesSampler sampler(*sim, m, 5);
    sampler.start();
    sim->run_until(7);
    CHECK(sampler.rows() == 1);
    sim.reset();  // the simulation dies first, with the next tick pending
    CHECK(sampler.rows() == 1);
  }
  {
    Simulation sim(3);
    {
      TimeSeriesSampler sampler(sim, m, 5);
      sampler.start();
      sim.run_until(12);
      CHECK(sampler.rows() == 2);
    }  // sampler dies first; its pending tick is disowned
    sim.run_until(100);
    CHECK(sim.idle());
  }
}

TEST_CASE("metrics: the JSON snapshot is valid JSON with every series") {
  MetricsRegistry m;
  m.counter("req", {{"client", "bsky \\ app"}}).add(5);
  m.gauge("pool.idle", {{"host", "h1"}}).set(2.5);
  Histogram& h = m.histogram("lat_ns");
  for (int i = 1; i <= 1000; ++i) h.record(i * 1000);
  auto doc = nlohmann::json::parse(m.to_json());
  REQUIRE(doc.is_object());
  CHECK(doc.size() == 3);
  const auto& req = doc.at("req{client=bsky \\ app}");
  CHECK(req.at("type").get<std::string>() == "counter");
  CHECK(req.at("value").get<double>() == 5);
  CHECK(req.at("labels").at("client").get<std::string>() == "bsky \\ app");
  CHECK(doc.at("pool.idle{host=h1}").at("value").get<double>() == 2.5);
  const auto& lat = doc.at("lat_ns");
  CHECK(lat.at("count").get<double>() == 1000);
  CHECK(lat.at("p99").get<double>() == Approx(990000).epsilon(Histogram::kRelativeError));
  CHECK(lat.at("max").get<double>() == 1000000);
  double bucketed = 0;
  for (const auto& b : lat.at("buckets")) bucketed += b.at(1).get<double>();
  CHECK(bucketed == 1000);
}

TEST_CASE("json: strings are escaped and misuse is caught") {
  std::ostringstream out;
  JsonWriter w(out);
  std::string nasty = "quote\" backslash\\ newline\n tab\t bell\x07 del\x7f utf8 \xc3\xa9";
  w.begin_object().key(nasty).value(nasty).key("n").value(-0.1).key("inf").value(
      std::numeric_limits<double>::infinity());
  w.key("big").value(std::uint64_t{18446744073709551615ULL}).end_object();
  CHECK(w.complete());
  auto doc = nlohmann::json::parse(out.str());
  CHECK(doc.at(nasty).get<std::string>() == nasty);
  CHECK(doc.at("n").get<double>() == -0.1);
  CHECK(doc.at("inf").is_null());
  CHECK(doc.at("big").get<std::uint64_t>() == 18446744073709551615ULL);  // exact, not a double

  std::ostringstream bad;
  JsonWriter w2(bad);
  w2.begin_object();
  CHECK_THROWS_AS(w2.value(1), std::logic_error);
  CHECK_THROWS_AS(w2.end_array(), std::logic_error);
}

TEST_CASE("timeseries.csv separates labels with ';' so rows split on commas") {
  Simulation sim(1);
  MetricsRegistry m;
  m.gauge("go.threads", {{"host", "east/dataplane/0"}, {"dc", "east"}}).set(17);
  TimeSeriesSampler sampler(sim, m, 10);
  sampler.start();
  sim.run_until(10);
  std::ostringstream csv;
  sampler.write_csv(csv);
  std::string header = csv.str().substr(0, csv.str().find('\n'));
  // The column is the series key summary.json uses, quoted because it holds a comma.
  CHECK(header == "time_ns,time_s,time_utc,\"go.threads{dc=east,host=east/dataplane/0}\"");
}
