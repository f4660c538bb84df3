#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <nlohmann/json.hpp>

#include "sim/process.hpp"
#include "sim/trace.hpp"

using namespace sim;

namespace {

Process worker(Tracer& tracer, int steps) {
  ProcState& me = co_await this_process();
  for (int i = 0; i < steps; ++i) {
    Time start = me.sim->now();
    co_await sim::sleep(1500);  // 1.5 us: fractional microseconds in the file
    tracer.complete("request \"quoted\"", "http", me.id, start, me.sim->now() - start);
    tracer.counter("inflight", i + 0.5);
  }
}

Tracer::Options bounded(std::size_t max_events, Tracer::KernelEvents k) {
  Tracer::Options o;
  o.max_events = max_events;
  o.kernel_events = k;
  return o;
}

std::string to_string(const Tracer& t) {
  std::ostringstream out;
  t.write_json(out);
  return out.str();
}

}  // namespace

TEST_CASE("trace: output is trace-event JSON that Perfetto can open") {
  Simulation sim(9);
  Tracer tracer(sim);
  auto h = sim.spawn(worker(tracer, 3), "worker");
  tracer.name_actor(h.id(), "worker 1");
  sim.run();

  auto doc = nlohmann::json::parse(to_string(tracer));
  const auto& events = doc.at("traceEvents");
  // 2 metadata + 4 kernel instants (start + 3 wake-ups) + 3 spans + 3 counters.
  REQUIRE(events.size() == 2 + 4 + 3 + 3);
  CHECK(events[0].at("ph").get<std::string>() == "M");
  CHECK(events[1].at("args").at("name").get<std::string>() == "worker 1");
  int spans = 0, instants = 0, counters = 0;
  for (const auto& e : events) {
    const std::string ph = e.at("ph").get<std::string>();
    CHECK(e.at("pid").get<double>() == 1);
    if (ph == "X") {
      ++spans;
      CHECK(e.at("name").get<std::string>() == "request \"quoted\"");
      CHECK(e.at("dur").get<double>() == 1.5);
      CHECK(e.at("tid").get<double>() == h.id());
    } else if (ph == "i") {
      ++instants;
      CHECK(e.at("name").get<std::string>() == "worker");
    } else if (ph == "C") {
      ++counters;
      CHECK(e.contains("args"));
    }
  }
  CHECK(spans == 3);
  CHECK(instants == 4);
  CHECK(counters == 3);
  CHECK(events.back().at("ts").get<double>() == 4.5);  // the last counter, at 4500 ns
  CHECK(doc.at("otherData").at("dropped_events").get<double>() == 0);
  CHECK(doc.at("otherData").at("kernel_event_counts").at("worker").get<double>() == 4);
}

TEST_CASE("trace: the tracer is bounded and says how much it dropped") {
  Simulation sim(9);
  Tracer tracer(sim, bounded(10, Tracer::KernelEvents::kInstants));
  sim.spawn(worker(tracer, 100), "worker");
  sim.run();
  CHECK(tracer.recorded() == 10);
  // 101 kernel events + 100 spans + 100 counters were offered.
  CHECK(tracer.dropped() == 301 - 10);
  CHECK(tracer.kind_counts().at("worker") == sim.events_executed());
  auto doc = nlohmann::json::parse(to_string(tracer));
  CHECK(doc.at("traceEvents").size() == 1 + 10);
  CHECK(doc.at("otherData").at("dropped_events").get<double>() == 291);

  Simulation quiet(9);
  Tracer counting(quiet, bounded(10, Tracer::KernelEvents::kCountOnly));
  quiet.spawn(worker(counting, 2), "worker");
  quiet.run();
  CHECK(counting.recorded() == 4);  // only the model's spans and counters
  CHECK(counting.kind_counts().at("worker") == 3);
}

TEST_CASE("trace: bad input is refused; the file is written where asked") {
  Simulation sim(1);
  Tracer tracer(sim);
  CHECK_THROWS_WITH(tracer.complete("x", "c", 1, -5, 1), Catch::Contains("negative start"));
  CHECK_THROWS_WITH(tracer.complete("x", "c", 1, 0, -1), Catch::Contains("negative duration"));
  CHECK_THROWS_WITH(tracer.write_file("/nonexistent-dir/trace.json"),
                    Catch::Contains("cannot open trace file"));
  std::string path = "kprim_trace_test.json";
  tracer.instant("boot", "sim", 0, 0);
  tracer.write_file(path);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(nlohmann::json::parse(text.str()).at("traceEvents").size() == 2);
  std::remove(path.c_str());
}
