// Determinism is tested, not assumed: a small randomized workload that exercises streams,
// a weighted semaphore, a bounded channel, metrics and the sampler must give bit-identical
// results when run twice, different results for different seeds, and must not notice an
// unrelated random stream being added.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sim/metrics.hpp"
#include "sim/sync.hpp"

using namespace sim;

namespace {

struct Job {
  int client;
  Time start_ns;
  Duration service_ns;
};

struct Outcome {
  std::uint64_t fingerprint;
  std::uint64_t events;
  std::string metrics_json;
  std::string timeseries_csv;
};

struct World {
  Semaphore pool{4};      // connection budget shared by all clients
  Channel<Job> queue{8};  // work queue in front of the workers
  MetricsRegistry metrics;
};

Process client(World& w, Rng& rng, int id, int requests) {
  Counter& sent = w.metrics.counter("client.requests", {{"client", std::to_string(id)}});
  for (int i = 0; i < requests; ++i) {
    co_await sim::sleep(rng.exponential_duration(kMillisecond));
    auto weight = rng.uniform_int(1, 3);
    if (!co_await w.pool.acquire_for(weight, 2 * kMillisecond)) {
      w.metrics.counter("client.pool_timeouts", {{"client", std::to_string(id)}}).add(1);
      continue;
    }
    ProcState& me = co_await this_process();
    auto service = static_cast<Duration>(rng.lognormal(12.0, 0.8));  // median ~160 us
    co_await w.queue.send(Job{id, me.sim->now(), service});
    sent.add(1);
    co_await sim::sleep(rng.exponential_duration(200 * kMicrosecond));
    w.pool.release(weight);
  }
}

Process worker(World& w, int id) {
  Counter& served = w.metrics.counter("worker.served", {{"worker", std::to_string(id)}});
  for (;;) {
    std::optional<Job> job = co_await w.queue.recv();
    if (!job) co_return;
    co_await sim::sleep(job->service_ns);
    ProcState& me = co_await this_process();
    w.metrics.histogram("job.latency_ns", {{"client", std::to_string(job->client)}})
        .record(me.sim->now() - job->start_ns);
    served.add(1);
  }
}

Process closer(World& w, std::vector<ProcessHandle> clients) {
  for (ProcessHandle& c : clients) co_await c.join();
  w.queue.close();
}

Outcome run_workload(std::uint64_t seed, bool add_unrelated_stream) {
  Simulation sim(seed);
  World w;
  if (add_unrelated_stream) {
    Rng& probe = sim.stream("a/unrelated/probe");  // sorts before every other stream name
    for (int i = 0; i < 1000; ++i) probe.uniform01();
  }
  w.metrics.gauge_fn("pool.available", {}, [&] { return double(w.pool.available()); });
  w.metrics.gauge_fn("queue.depth", {}, [&] { return double(w.queue.size()); });
  TimeSeriesSampler sampler(sim, w.metrics, 5 * kMillisecond);
  sampler.start();
  std::vector<ProcessHandle> clients;
  for (int i = 0; i < 5; ++i) {
    Rng& rng = sim.stream("client/" + std::to_string(i));
    clients.push_back(sim.spawn(client(w, rng, i, 40), "client"));
  }
  for (int k = 0; k < 3; ++k) sim.spawn(worker(w, k), "worker");
  sim.spawn(closer(w, clients), "closer");
  sim.run_until(kSecond);
  sampler.stop();
  for (const ProcessHandle& c : clients) CHECK(c.done());
  clients.clear();
  CHECK(sim.live_processes() == 0);  // the workload ends on its own
  std::ostringstream csv;
  sampler.write_csv(csv);
  Outcome out{sim.fingerprint(), sim.events_executed(), w.metrics.to_json(), csv.str()};
  sim.shutdown();
  return out;
}

}  // namespace

TEST_CASE("determinism: same seed, same fingerprint and metrics; other seeds differ") {
  Outcome a = run_workload(42, false);
  Outcome b = run_workload(42, false);
  CHECK(a.events > 1000);
  CHECK(a.fingerprint == b.fingerprint);
  CHECK(a.events == b.events);
  CHECK(a.metrics_json == b.metrics_json);
  CHECK(a.timeseries_csv == b.timeseries_csv);
  // The workload really used what it claims to exercise.
  CHECK(a.metrics_json.find("job.latency_ns{client=4}") != std::string::npos);
  CHECK(a.metrics_json.find("worker.served{worker=2}") != std::string::npos);

  std::set<std::uint64_t> prints{a.fingerprint};
  for (std::uint64_t seed : {1, 2, 3, 4}) {
    Outcome o = run_workload(seed, false);
    prints.insert(o.fingerprint);
    CHECK(o.metrics_json != a.metrics_json);
  }
  CHECK(prints.size() == 5);
}

TEST_CASE("determinism: adding an unrelated stream changes no other stream's draws") {
  Simulation plain(7), extra(7);
  Rng& other = extra.stream("aaa/new");  // created first, drawn from heavily
  for (int i = 0; i < 10'000; ++i) other.next_u64();
  Rng& p = plain.stream("client/0");
  Rng& e = extra.stream("client/0");
  for (int i = 0; i < 1000; ++i) {
    REQUIRE(p.next_u64() == e.next_u64());
    REQUIRE(p.exponential(3.0) == e.exponential(3.0));
  }
  CHECK(plain.stream("client/1").next_u64() != plain.stream("client/2").next_u64());

  // And a whole workload does not notice it.
  Outcome a = run_workload(42, false);
  Outcome b = run_workload(42, true);
  CHECK(a.fingerprint == b.fingerprint);
  CHECK(a.metrics_json == b.metrics_json);
}

// Run by the test below in a fresh process (hidden tag: not part of a normal run).
TEST_CASE("determinism child: print the workload's outcome", "[.kprim_determinism_child]") {
  const char* out_path = std::getenv("SKYSIM_DETERMINISM_OUT");
  if (out_path == nullptr) return;  // selected by hand without the parent test: nothing to do
  Outcome o = run_workload(42, false);
  std::ofstream out(out_path);
  out << o.fingerprint << '\n' << o.metrics_json << '\n';
}

TEST_CASE("determinism: another process (other address layout) gets the same outcome") {
  // A fresh process has a different heap and ASLR layout, so any dependence on pointer order
  // or on allocation addresses would show up here and not in the in-process test.
  std::string path = "kprim_determinism_child.out";
  std::remove(path.c_str());
  std::error_code ec;
  std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  REQUIRE_FALSE(ec);
  std::string cmd = "SKYSIM_DETERMINISM_OUT=" + path + " '" + self +
                    "' '[.kprim_determinism_child]' > /dev/null 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream in(path);
  std::uint64_t child_print = 0;
  std::string child_json;
  in >> child_print;
  in.ignore(1);
  std::getline(in, child_json);
  Outcome here = run_workload(42, false);
  CHECK(child_print == here.fingerprint);
  CHECK(child_json == here.metrics_json);
  std::remove(path.c_str());
}
