// Host process tracks, lanes, spans, args, counters and the selection options of sim::Tracer,
// each checked through the file it writes (trace_check.hpp: the Chrome trace-event format and
// Perfetto's nesting rule).
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "sim/process.hpp"
#include "sim/trace.hpp"
#include "sim/trace_span.hpp"
#include "trace_check.hpp"

using namespace sim;

namespace {

tracecheck::Report check(const Tracer& t) {
  std::ostringstream out;
  t.write_json(out);
  return tracecheck::check_text(out.str());
}

// A goroutine-like actor: a lane for its lifetime, an outer span, an inner span, then a gap.
Process actor(Simulation& sim, std::uint32_t pid, Duration inner, bool end_early = false) {
  ProcState& me = co_await this_process();
  if (Tracer* t = sim.tracer()) t->bind_lane(me.id, pid, "worker", "life", "goroutine");
  {
    TraceSpan outer = co_await trace_span(sim, "request", "rpc");
    co_await sim::sleep(100);
    {
      TraceSpan in = co_await trace_span(sim, "read", "scylla");
      co_await sim::sleep(inner);
      in.end({{"key", "post/7"}, {"bytes", std::int64_t{1024}}, {"error", ""}});
    }
    co_await sim::sleep(50);
  }
  co_await sim::sleep(10);
  if (end_early) co_return;  // leaves its lane open: the file closes it as unfinished
  if (Tracer* t = sim.tracer()) t->unbind_lane(me.id, {{"ok", 1}});
}

}  // namespace

TEST_CASE("trace: concurrent actors get lanes of their own, and slices nest on each") {
  Simulation sim(3);
  Tracer tracer(sim);
  std::uint32_t pid = tracer.process("east/dataplane/0");
  CHECK(tracer.process("east/dataplane/0") == pid);  // interned
  CHECK(pid >= 2);                                    // 1 is the run itself
  for (int i = 0; i < 3; ++i) sim.spawn(actor(sim, pid, 200 + 100 * i), "actor");
  sim.run();
  // All three overlapped: three lanes. A later actor reuses the lowest free one.
  sim.spawn(actor(sim, pid, 5), "actor");
  sim.run();

  tracecheck::Report r = check(tracer);
  INFO((r.errors.empty() ? std::string() : r.errors.front()));
  CHECK(r.error_count == 0);
  CHECK(r.process_names.at(pid) == "east/dataplane/0");
  std::size_t lanes = 0;
  for (const auto& [track, name] : r.thread_names) lanes += name.rfind("worker ", 0) == 0;
  CHECK(lanes == 3);
  CHECK(r.slices_by_name.at("life") == 4);
  CHECK(r.slices_by_name.at("request") == 4);
  CHECK(r.slices_by_name.at("read") == 4);
  CHECK(r.max_depth.at(pid) == 3);  // life > request > read
  CHECK(r.arg_keys.at("key") == 4);
  CHECK(r.arg_keys.at("ok") == 4);
}

TEST_CASE("trace: the nesting check fails on a partial overlap and on a missing field") {
  auto bad = tracecheck::check_text(
      R"({"traceEvents":[{"name":"a","ph":"X","ts":0,"dur":10,"pid":2,"tid":1},)"
      R"({"name":"b","ph":"X","ts":5,"dur":10,"pid":2,"tid":1}]})");
  CHECK(bad.error_count == 1);
  CHECK_THAT(bad.errors.front(), Catch::Contains("ends after it"));
  // The same two on different tracks are fine.
  auto ok = tracecheck::check_text(
      R"({"traceEvents":[{"name":"a","ph":"X","ts":0,"dur":10,"pid":2,"tid":1},)"
      R"({"name":"b","ph":"X","ts":5,"dur":10,"pid":2,"tid":2}]})");
  CHECK(ok.error_count == 0);
  auto no_dur = tracecheck::check_text(
      R"({"traceEvents":[{"name":"a","ph":"X","ts":0,"pid":2,"tid":1,"args":[]}]})");
  CHECK(no_dur.error_count == 1);
}

TEST_CASE("trace: slices still open at the end are closed and counted as unfinished") {
  Simulation sim(3);
  Tracer tracer(sim);
  std::uint32_t pid = tracer.process("h");
  sim.spawn(actor(sim, pid, 10, /*end_early=*/true), "actor");
  sim.run_until(1000);
  auto r = check(tracer);
  CHECK(r.error_count == 0);
  CHECK(r.slices_by_name.at("life") == 1);
  CHECK(r.other_data.at("unfinished_slices") == 1);
}

TEST_CASE("trace: a host's lanes are bounded, the surplus is untraced and counted") {
  Simulation sim(3);
  Tracer::Options o;
  o.max_lanes = 2;
  Tracer tracer(sim, o);
  std::uint32_t pid = tracer.process("h");
  for (int i = 0; i < 5; ++i) sim.spawn(actor(sim, pid, 100), "actor");
  sim.run();
  CHECK(tracer.untraced_actors() == 3);
  auto r = check(tracer);
  CHECK(r.error_count == 0);
  CHECK(r.slices_by_name.at("life") == 2);
  CHECK(r.other_data.at("untraced_actors") == 3);
}

TEST_CASE("trace: categories, host prefixes and the window select what is recorded") {
  Simulation sim(3);
  Tracer::Options o;
  o.categories = {"goroutine", "scylla", "counter"};
  o.host_prefixes = {"east/"};
  o.from = 150;
  o.until = 300;
  Tracer tracer(sim, o);
  std::uint32_t east = tracer.process("east/dataplane/0");
  CHECK(tracer.process("west/dataplane/0") == 0);  // filtered: nothing of it is recorded
  sim.spawn(actor(sim, east, 100), "actor");
  sim.spawn(actor(sim, tracer.process("west/dataplane/0"), 100), "actor");
  double level = 0;
  tracer.add_probe(east, "level", [&] { return level; });
  sim.spawn([](Simulation& s, double& lv) -> Process {
    for (int i = 0; i < 10; ++i) {
      co_await sim::sleep(50);
      lv += 1;
    }
  }(sim, level), "ticker");
  sim.run();
  auto r = check(tracer);
  CHECK(r.error_count == 0);
  CHECK(r.slices_by_name.count("request") == 0);  // category rpc not selected
  CHECK(r.slices_by_name.at("read") == 1);        // [100, 200] overlaps [150, 300]
  CHECK(r.slices_by_name.at("life") == 1);        // east only
  CHECK(r.process_names.size() == 2);             // the run and east
  // The probe runs between events on a 10 ms grid from `from`: once here, inside the window.
  CHECK(r.counters_by_name.at("level") == 1);
  CHECK(r.by_phase.count("i") == 0);  // kernel instants are category "sim"
}

TEST_CASE("trace: without a tracer a span is empty and costs no suspension") {
  Simulation sim(3);
  bool empty = false;
  sim.spawn([](Simulation& s, bool& e) -> Process {
    TraceSpan span = co_await trace_span(s, "x", "rpc");
    e = !span;
  }(sim, empty), "p");
  sim.run();
  CHECK(empty);
  CHECK(sim.events_executed() == 1);  // the start only: the span scheduled nothing
}

TEST_CASE("trace: the tracer detaches from its simulation when destroyed") {
  Simulation sim(3);
  {
    Tracer t(sim);
    CHECK(sim.tracer() == &t);
  }
  CHECK(sim.tracer() == nullptr);
  sim.spawn([](Simulation& s) -> Process { co_await sim::sleep(1); }(sim), "p");
  sim.run();  // an observer left behind would crash here
  CHECK(sim.events_executed() == 2);
}
