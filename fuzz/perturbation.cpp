#include "fuzz/perturbation.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <sstream>

#include "scenarios/loader.hpp"
#include "scenarios/model_registry.hpp"
#include "scenarios/units.hpp"
#include "sim/rng.hpp"

namespace skysim::fuzz {
namespace {

// Offsets and lengths are written in whole milliseconds so the YAML reads back exactly.
std::string ms_text(sim::Duration d) { return std::to_string(d / sim::kMillisecond) + "ms"; }
std::string offset_text(sim::Duration d) { return "+" + ms_text(d); }

sim::Duration round_ms(double seconds) {
  return static_cast<sim::Duration>(std::llround(seconds * 1e3)) * sim::kMillisecond;
}

// Knob ranges. assumption: chosen to stress the queue-server scenarios (service times of
// milliseconds, runs of minutes) — long enough to fill queues, short enough to recover.
constexpr double kCrashLengthMinS = 1, kCrashLengthMaxS = 60;
constexpr double kBurstFactorMin = 2, kBurstFactorMax = 10;
constexpr double kBurstLengthMinS = 5, kBurstLengthMaxS = 60;
constexpr double kBatchRateMinPerS = 20, kBatchRateMaxPerS = 400;
// assumption (h-fuzzfan): a huge batch is one client in a bulk mode (a backfill, a replay after
// an outage, a retry storm), so it runs at most a few tens of times that client's own rate:
// 2-50 x the source's rate, never above the absolute 20-400/s. One draw f in [0, 1] places
// both (rate = min(20 + 380 f, source rate x (2 + 48 f))), so a source of >= 10/s gets exactly
// the absolute rate it got before the bound. Why 50: on fuzz/fanout.yaml (then the fanout
// kind's; its composition keeps the author and graph, and test_fault_hooks checks the batch
// still overloads it) the 1/s `author`
// (5,000 followers a post) saturates the fan-out path at ~20-30 posts/s (measured, docs/
// fuzzing.md "h-fuzzfan": post P99 1.2 s at 20/s, 5 s and growing at 40/s), so the top ~40 %
// of draws overload it; the old absolute 20-400 posts/s was 20-400 x that source's rate and
// spent most of a campaign's CPU simulating a cluster 10 x past saturation.
constexpr double kBatchFactorMin = 2, kBatchFactorMax = 50;
constexpr std::int64_t kBatchSizeMin = 64 * 1024, kBatchSizeMax = 1024 * 1024;
// assumption: a delay spike adds tens of ms to seconds (a congested or rerouted path; a 2 s
// spike is longer than most client timeouts) for 1-30 s.
constexpr double kDelayMinMs = 20, kDelayMaxMs = 2000;
constexpr double kDelayLengthMinS = 1, kDelayLengthMaxS = 30;
// assumption: a clogged link (FoundationDB's simulator clogs for up to seconds) holds traffic
// 100 ms-10 s, after which it arrives in order.
constexpr double kClogLengthMinS = 0.1, kClogLengthMaxS = 10;
// assumption: stop-the-world pauses of 10 ms-2 s: the short end a large-heap GC, the long end a
// GC stopping thousands of threads (the April outage's thread growth, domain.md §3.3 gives no
// published pause numbers).
constexpr double kPauseLengthMinS = 0.01, kPauseLengthMaxS = 2;
// assumption: 1-30 % of commits end in commit_unknown_result for 1-10 s (a proxy or a
// transaction log failing over), far above the background rate so retries are exercised.
constexpr double kUnknownMin = 0.01, kUnknownMax = 0.30;
constexpr double kUnknownLengthMinS = 1, kUnknownLengthMaxS = 10;

// assumption: the memory limit drops to 25-125 % of the host's baseline live heap for 1-60 s
// (a tightened cgroup limit, or memory pressure from a neighbour): below the process's RSS it
// is an OOM kill at once, above it only if the load grows the heap, so both cases are drawn.
constexpr double kOomFractionMin = 0.25, kOomFractionMax = 1.25;
constexpr double kOomLengthMinS = 1, kOomLengthMaxS = 60;
// assumption: a memcached restart (systemd restart, no warm-up: the items are gone) leaves the
// port closed for 10 ms-5 s.
constexpr double kMcDownMinS = 0.01, kMcDownMaxS = 5;
// assumption: a Scylla node is down 0.1-10 s (a restart, a GC-like stall seen as down by
// gossip); 1..RF nodes, so some windows leave partitions short of CL.
constexpr double kScyllaDownMinS = 0.1, kScyllaDownMaxS = 10;

// assumption: partitions of 100 ms-10 s (a switch reboot, a flapping route; long enough that
// TCP's backoff outlasts them); 1-30 % segment loss for 1-30 s (a failing link or NIC).
constexpr double kPartitionMinS = 0.1, kPartitionMaxS = 10;
constexpr double kLossMin = 0.01, kLossMax = 0.30;
constexpr double kLossLengthMinS = 1, kLossLengthMaxS = 30;
// assumption: 10-100 % of SYNs to memcached lost for 100 ms-5 s (a full conntrack table, a
// DROP rule); memcached 1 ms-1 s slower per request for 100 ms-10 s (swapping, a noisy
// neighbour), the long end past gomemcache's 500 ms Timeout.
constexpr double kSynLossMin = 0.1, kSynLossMax = 1;
constexpr double kSynLengthMinS = 0.1, kSynLengthMaxS = 5;
constexpr double kMcSlowMinMs = 1, kMcSlowMaxMs = 1000;
constexpr double kMcSlowLengthMinS = 0.1, kMcSlowLengthMaxS = 10;
// assumption: a Scylla node 2-50 x slower for 1-10 s (compaction, a failing disk); a log
// collector stalled 100 ms-5 s (a log driver blocked on its disk).
constexpr double kScyllaSlowMin = 2, kScyllaSlowMax = 50;
constexpr double kScyllaSlowLengthMinS = 1, kScyllaSlowLengthMaxS = 10;
constexpr double kLogStallMinS = 0.1, kLogStallMaxS = 5;
// assumption: RLIMIT_NOFILE lowered to 20-2,000 descriptors at full scale (a container started
// with a low ulimit, a leak eating the rest) for 1-20 s.
constexpr double kFdLimitMin = 20, kFdLimitMax = 2000;
constexpr double kFdLimitLengthMinS = 1, kFdLimitLengthMaxS = 20;

struct Drawer {
  const scenarios::Scenario& base;
  sim::Rng& rng;
  Perturbation& p;

  sim::Duration when() { return round_ms(rng.uniform(0, 0.9 * sim::to_seconds(base.duration))); }
  sim::Duration fit(sim::Duration at, double seconds) {
    return std::max<sim::Duration>(sim::kMillisecond,
                                   std::min(round_ms(seconds), base.duration - at));
  }

  void crashes(const std::vector<std::string>& hosts) {
    for (std::int64_t n = rng.uniform_int(1, 3); n > 0; --n) {
      Fault f;
      f.kind = FaultKind::Crash;
      f.target = hosts[static_cast<std::size_t>(
          rng.uniform_int(0, static_cast<std::int64_t>(hosts.size()) - 1))];
      f.at = when();
      f.length = fit(f.at, rng.uniform(kCrashLengthMinS, kCrashLengthMaxS));
      p.faults.push_back(f);
    }
  }
  void bursts() {
    for (std::int64_t n = rng.uniform_int(1, 2); n > 0; --n) {
      Fault f;
      f.kind = FaultKind::Burst;
      f.target = pick_source().name;
      f.strength = rng.uniform(kBurstFactorMin, kBurstFactorMax);
      f.at = when();
      f.length = fit(f.at, rng.uniform(kBurstLengthMinS, kBurstLengthMaxS));
      p.faults.push_back(f);
    }
  }
  void huge_batch() {
    Fault f;
    f.kind = FaultKind::HugeBatch;
    const auto& src = pick_source();
    f.target = src.name;
    const double absolute = rng.uniform(kBatchRateMinPerS, kBatchRateMaxPerS);
    const double frac = (absolute - kBatchRateMinPerS) / (kBatchRateMaxPerS - kBatchRateMinPerS);
    const double relative =
        src.rate_per_s * (kBatchFactorMin + frac * (kBatchFactorMax - kBatchFactorMin));
    f.strength = std::max(1.0, std::round(std::min(absolute, relative)));
    f.size_bytes = rng.uniform_int(kBatchSizeMin, kBatchSizeMax);
    f.at = when();
    f.length = fit(f.at, rng.uniform(kBurstLengthMinS, kBurstLengthMaxS));
    p.faults.push_back(f);
  }
  // Every settable count parameter of every service is its own swarm knob: lowered to 5-50 %
  // of its base value (or to 1-100 when the base is 0, "unbounded"). Not the ephemeral port
  // range's ends: they are a range, not a capacity (halving the high end empties it).
  static bool flippable(const sim::ParamSpec& spec) {
    return spec.settable && spec.type == sim::ParamType::Count &&
           spec.name != "port_range_low" && spec.name != "port_range_high";
  }
  void param_flips() {
    for (const auto& dc : base.datacenters) {
      for (const auto& svc : dc.services) {
        const auto* kind = scenarios::builtin_registry().find(svc.kind);
        if (!kind) continue;
        for (const auto& spec : kind->params) {
          if (!flippable(spec)) continue;
          bool on = rng.bernoulli(0.5);
          p.swarm.push_back("flip:" + svc.name + "." + spec.name + (on ? "=on" : "=off"));
          if (!on) continue;
          Fault f;
          f.kind = FaultKind::ParamFlip;
          f.target = dc.name + "." + svc.name;
          f.param = spec.name;
          std::int64_t now = svc.host_params.at(0).count(spec.name);
          double v =
              now > 0 ? static_cast<double>(now) * rng.uniform(0.05, 0.5) : rng.uniform(1, 100);
          f.strength = std::max(spec.min.value_or(0), std::round(v));
          f.at = when();
          f.length = base.duration - f.at;
          p.faults.push_back(f);
        }
      }
    }
  }

  // One host-scoped window fault on a host of `hosts` (1-2 of them per seed).
  void host_windows(FaultKind kind, const std::vector<std::string>& hosts, double min_s,
                    double max_s) {
    for (std::int64_t n = rng.uniform_int(1, 2); n > 0; --n) {
      Fault f;
      f.kind = kind;
      f.target = hosts[static_cast<std::size_t>(
          rng.uniform_int(0, static_cast<std::int64_t>(hosts.size()) - 1))];
      if (kind == FaultKind::DelaySpike)
        f.strength = std::round(rng.uniform(kDelayMinMs, kDelayMaxMs));
      if (kind == FaultKind::PacketLoss)
        f.strength = std::round(rng.uniform(kLossMin, kLossMax) * 1000) / 1000;
      if (kind == FaultKind::SynDrop)
        f.strength = std::round(rng.uniform(kSynLossMin, kSynLossMax) * 1000) / 1000;
      if (kind == FaultKind::MemcachedSlow)
        f.strength = std::round(rng.uniform(kMcSlowMinMs, kMcSlowMaxMs));
      if (kind == FaultKind::FdLimit) f.strength = std::round(rng.uniform(kFdLimitMin, kFdLimitMax));
      if (kind == FaultKind::ScyllaSlow)
        f.strength = std::round(rng.uniform(kScyllaSlowMin, kScyllaSlowMax) * 10) / 10;
      if (kind == FaultKind::OomKill) {
        // The limit is drawn against the target host's own baseline heap (full scale).
        auto a = f.target.find('/'), b = f.target.rfind('/');
        const auto& hp = host_spec(f.target.substr(0, a), f.target.substr(a + 1, b - a - 1))
                             .host_params.at(std::stoul(f.target.substr(b + 1)));
        f.strength = std::round(static_cast<double>(hp.size_bytes("baseline_live_heap")) *
                                rng.uniform(kOomFractionMin, kOomFractionMax));
      }
      f.at = when();
      f.length = fit(f.at, rng.uniform(min_s, max_s));
      p.faults.push_back(f);
    }
  }
  void commit_unknown(const std::vector<std::string>& services) {
    Fault f;
    f.kind = FaultKind::CommitUnknown;
    f.target = services[static_cast<std::size_t>(
        rng.uniform_int(0, static_cast<std::int64_t>(services.size()) - 1))];
    f.strength = std::round(rng.uniform(kUnknownMin, kUnknownMax) * 1000) / 1000;
    f.at = when();
    f.length = fit(f.at, rng.uniform(kUnknownLengthMinS, kUnknownLengthMaxS));
    p.faults.push_back(f);
  }

  // 1..min(RF, nodes) Scylla nodes of a scylla service's cluster down for a window.
  void scylla_down(const std::vector<std::string>& services) {
    Fault f;
    f.kind = FaultKind::ScyllaDown;
    f.target = services[static_cast<std::size_t>(
        rng.uniform_int(0, static_cast<std::int64_t>(services.size()) - 1))];
    auto dot = f.target.find('.');
    const auto& hp = host_spec(f.target.substr(0, dot), f.target.substr(dot + 1)).host_params.at(0);
    std::int64_t most = std::min(hp.count("replication_factor"), hp.count("nodes"));
    f.strength = static_cast<double>(rng.uniform_int(1, most));
    f.at = when();
    f.length = fit(f.at, rng.uniform(kScyllaDownMinS, kScyllaDownMaxS));
    p.faults.push_back(f);
  }

  const scenarios::ServiceSpec& host_spec(const std::string& dc_name,
                                          const std::string& svc_name) {
    for (const auto& dc : base.datacenters) {
      for (const auto& svc : dc.services) {
        if (dc.name == dc_name && svc.name == svc_name) return svc;
      }
    }
    throw std::invalid_argument("fuzz: no service " + dc_name + "." + svc_name);
  }

  const scenarios::SourceSpec& pick_source() {
    return base.sources[static_cast<std::size_t>(
        rng.uniform_int(0, static_cast<std::int64_t>(base.sources.size()) - 1))];
  }
};

// Every host path, or only those of one service kind.
std::vector<std::string> host_paths(const scenarios::Scenario& s, const std::string& kind = "") {
  std::vector<std::string> out;
  for (const auto& dc : s.datacenters) {
    for (const auto& svc : dc.services) {
      if (!kind.empty() && svc.kind != kind) continue;
      for (int i = 0; i < svc.hosts; ++i) {
        out.push_back(dc.name + "/" + svc.name + "/" + std::to_string(i));
      }
    }
  }
  return out;
}

YAML::Node set_entry(sim::Duration at, const std::string& path, const std::string& value);

// "dc.service" of every service of one kind.
std::vector<std::string> services_of(const scenarios::Scenario& s, const std::string& kind) {
  std::vector<std::string> out;
  for (const auto& dc : s.datacenters) {
    for (const auto& svc : dc.services) {
      if (svc.kind == kind) out.push_back(dc.name + "." + svc.name);
    }
  }
  return out;
}

// `of(s, kind)` (services_of, host_paths) for each of `kinds` in turn: kind by kind, the order a
// seed's draws depend on.
template <class Of>
std::vector<std::string> of_kinds(const scenarios::Scenario& s,
                                  std::initializer_list<const char*> kinds, Of of) {
  std::vector<std::string> out;
  for (const char* k : kinds) {
    for (auto& each : of(s, k)) out.push_back(std::move(each));
  }
  return out;
}

const scenarios::SourceSpec& source(const scenarios::Scenario& s, const std::string& name) {
  for (const auto& src : s.sources) {
    if (src.name == name) return src;
  }
  throw std::invalid_argument("fuzz: scenario " + s.name + " has no source '" + name + "'");
}

// A window fault as a `faults:` entry; service-wide kinds name "dc/service".
YAML::Node fault_entry(const Fault& f, const std::string& strength) {
  YAML::Node e;
  e["type"] = fault_kind_name(f.kind);
  e["at"] = offset_text(f.at);
  e["duration"] = ms_text(f.length);
  std::string target = f.target;
  std::replace(target.begin(), target.end(), '.', '/');
  e["target"] = target;
  if (!strength.empty()) e["strength"] = strength;
  return e;
}

YAML::Node set_entry(sim::Duration at, const std::string& path, const std::string& value) {
  YAML::Node e;
  e["at"] = offset_text(at);
  e["set"][path] = value;
  return e;
}

// The loader wants entries sorted by date; base entries may be dates or offsets, so sort on the
// resolved time (stable: equal times keep their order). Entries at or past the end go.
YAML::Node in_time_order(const YAML::Node& entries, const scenarios::Scenario& base,
                         sim::Duration duration) {
  // Sort indices, never YAML::Node values: assigning a Node overwrites the node it refers to.
  std::vector<YAML::Node> nodes;
  std::vector<std::pair<sim::Duration, std::size_t>> order;
  for (const auto& e : entries) {
    sim::Duration at =
        scenarios::parse_date_or_offset(e["at"].as<std::string>(), base.epoch_unix_ns) -
        base.epoch_unix_ns;
    if (at >= duration) continue;
    order.emplace_back(at, nodes.size());
    nodes.push_back(e);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  YAML::Node out(YAML::NodeType::Sequence);
  for (const auto& [at, i] : order) out.push_back(nodes[i]);
  return out;
}

}  // namespace

const char* fault_kind_name(FaultKind k) {
  switch (k) {
    case FaultKind::Crash:
      return "crash";
    case FaultKind::Burst:
      return "burst";
    case FaultKind::HugeBatch:
      return "huge-batch";
    case FaultKind::ParamFlip:
      return "param-flip";
    case FaultKind::DelaySpike:
      return "delay-spike";
    case FaultKind::Clog:
      return "clog";
    case FaultKind::GcPause:
      return "gc-pause";
    case FaultKind::CommitUnknown:
      return "commit-unknown";
    case FaultKind::OomKill:
      return "oom";
    case FaultKind::MemcachedRestart:
      return "memcached-restart";
    case FaultKind::GoGcPause:
      return "go-gc-pause";
    case FaultKind::ScyllaDown:
      return "scylla-down";
    case FaultKind::Partition:
      return "partition";
    case FaultKind::PacketLoss:
      return "packet-loss";
    case FaultKind::SynDrop:
      return "syn-drop";
    case FaultKind::MemcachedSlow:
      return "memcached-slow";
    case FaultKind::ScyllaSlow:
      return "scylla-slow";
    case FaultKind::LogStall:
      return "log-stall";
    case FaultKind::FdLimit:
      return "fd-limit";
  }
  return "?";
}

std::string Fault::describe() const {
  std::ostringstream o;
  o << fault_kind_name(kind) << " " << target;
  if (kind == FaultKind::ParamFlip) o << "." << param << "=" << strength;
  if (kind == FaultKind::Burst) o << " x" << scenarios::format_real(strength);
  if (kind == FaultKind::DelaySpike) o << " +" << scenarios::format_real(strength) << "ms";
  if (kind == FaultKind::CommitUnknown) o << " p=" << scenarios::format_real(strength);
  if (kind == FaultKind::OomKill) o << " limit=" << scenarios::format_size(std::llround(strength));
  if (kind == FaultKind::ScyllaDown) o << " nodes=" << std::llround(strength);
  if (kind == FaultKind::PacketLoss || kind == FaultKind::SynDrop) {
    o << " p=" << scenarios::format_real(strength);
  }
  if (kind == FaultKind::MemcachedSlow) o << " +" << scenarios::format_real(strength) << "ms";
  if (kind == FaultKind::ScyllaSlow) o << " x" << scenarios::format_real(strength);
  if (kind == FaultKind::FdLimit) o << " nofile=" << std::llround(strength);
  if (kind == FaultKind::HugeBatch) {
    o << " " << scenarios::format_rate(strength) << " of " << scenarios::format_size(size_bytes);
  }
  o << " at " << offset_text(at) << " for " << ms_text(length);
  return o.str();
}

std::string Perturbation::describe() const {
  std::ostringstream o;
  o << "fuzz seed " << seed << " base " << base_file << " duration " << ms_text(duration)
    << " rate_factor " << scenarios::format_real(rate_factor) << "\n";
  o << "swarm";
  for (const auto& s : swarm) o << " " << s;
  o << "\n";
  for (const auto& f : faults) o << "knob " << f.describe() << "\n";
  return o.str();
}

Perturbation draw_perturbation(const scenarios::Scenario& base, std::uint64_t seed) {
  sim::Rng rng(sim::stream_seed(seed, "fuzz/" + base.name));
  Perturbation p;
  p.base_file = base.file;
  p.seed = seed;
  p.duration = base.duration;
  for (const auto& dc : base.datacenters) {
    for (const auto& svc : dc.services) {
      if (std::find(p.kinds.begin(), p.kinds.end(), svc.kind) == p.kinds.end()) {
        p.kinds.push_back(svc.kind);
      }
    }
  }
  Drawer d{base, rng, p};
  auto hosts = host_paths(base);
  // Each kind is on with probability 1/2 (swarm testing), drawn in a fixed order.
  bool crash = rng.bernoulli(0.5) && !hosts.empty();
  bool burst = rng.bernoulli(0.5) && !base.sources.empty();
  bool batch = rng.bernoulli(0.5) && !base.sources.empty();
  p.swarm = {std::string("crash=") + (crash ? "on" : "off"),
             std::string("burst=") + (burst ? "on" : "off"),
             std::string("huge-batch=") + (batch ? "on" : "off")};
  if (crash) d.crashes(hosts);
  if (burst) d.bursts();
  if (batch) d.huge_batch();
  d.param_flips();
  // Kinds added later are drawn after the original ones, so the original knobs of a seed (and
  // the seeds the planted-bug test finds) stay what they were. A kind whose hook no service of
  // the base has is not drawn at all (and not listed among the swarm knobs).
  auto queue_hosts = host_paths(base, "queue-server");
  if (!queue_hosts.empty()) {
    struct Window {
      FaultKind kind;
      double min_s, max_s;
    };
    for (const Window& w : {Window{FaultKind::DelaySpike, kDelayLengthMinS, kDelayLengthMaxS},
                            Window{FaultKind::Clog, kClogLengthMinS, kClogLengthMaxS},
                            Window{FaultKind::GcPause, kPauseLengthMinS, kPauseLengthMaxS}}) {
      bool on = rng.bernoulli(0.5);
      p.swarm.push_back(std::string(fault_kind_name(w.kind)) + (on ? "=on" : "=off"));
      if (on) d.host_windows(w.kind, queue_hosts, w.min_s, w.max_s);
    }
  }
  // The FoundationDB clusters (fdb services).
  auto clusters = services_of(base, "fdb");
  if (!clusters.empty()) {
    bool on = rng.bernoulli(0.5);
    p.swarm.push_back(std::string("commit-unknown=") + (on ? "on" : "off"));
    if (on) d.commit_unknown(clusters);
  }
  // A Go process's hooks on the go-service hosts, a memcached's on the memcached hosts.
  const auto go_hosts = host_paths(base, "go-service");
  const auto memcached_hosts = host_paths(base, "memcached");
  auto host_windows = [&](const std::vector<std::string>& hosts, FaultKind kind, double min_s,
                          double max_s) {
    if (hosts.empty()) return;
    bool on = rng.bernoulli(0.5);
    p.swarm.push_back(std::string(fault_kind_name(kind)) + (on ? "=on" : "=off"));
    if (on) d.host_windows(kind, hosts, min_s, max_s);
  };
  host_windows(go_hosts, FaultKind::OomKill, kOomLengthMinS, kOomLengthMaxS);
  host_windows(memcached_hosts, FaultKind::MemcachedRestart, kMcDownMinS, kMcDownMaxS);
  host_windows(go_hosts, FaultKind::GoGcPause, kPauseLengthMinS, kPauseLengthMaxS);
  // The Scylla clusters: the scylla services.
  const auto scylla_clusters = of_kinds(base, {"scylla"}, services_of);
  if (!scylla_clusters.empty()) {
    bool on = rng.bernoulli(0.5);
    p.swarm.push_back(std::string("scylla-down=") + (on ? "on" : "off"));
    if (on) d.scylla_down(scylla_clusters);
  }
  // Issue 25 item 4's kinds, drawn after all of the above.
  struct Window {
    FaultKind kind;
    double min_s, max_s;
  };
  auto windows = [&](const std::vector<std::string>& hosts, std::initializer_list<Window> ws) {
    if (hosts.empty()) return;
    for (const Window& w : ws) {
      bool on = rng.bernoulli(0.5);
      p.swarm.push_back(std::string(fault_kind_name(w.kind)) + (on ? "=on" : "=off"));
      if (on) d.host_windows(w.kind, hosts, w.min_s, w.max_s);
    }
  };
  windows(queue_hosts, {Window{FaultKind::Partition, kPartitionMinS, kPartitionMaxS},
                        Window{FaultKind::PacketLoss, kLossLengthMinS, kLossLengthMaxS}});
  windows(memcached_hosts,
          {Window{FaultKind::SynDrop, kSynLengthMinS, kSynLengthMaxS},
           Window{FaultKind::MemcachedSlow, kMcSlowLengthMinS, kMcSlowLengthMaxS}});
  windows(go_hosts, {Window{FaultKind::LogStall, kLogStallMinS, kLogStallMaxS},
                     Window{FaultKind::FdLimit, kFdLimitLengthMinS, kFdLimitLengthMaxS}});
  windows(of_kinds(base, {"scylla"}, host_paths),
          {Window{FaultKind::ScyllaSlow, kScyllaSlowLengthMinS, kScyllaSlowLengthMaxS}});
  return p;
}

namespace {

YAML::Node perturbed_doc(const scenarios::Scenario& base, const Perturbation& p) {
  YAML::Node doc = YAML::Clone(base.document);
  doc["seed"] = p.seed;
  doc["duration"] = ms_text(p.duration);
  doc.remove("invariants");  // no list = every invariant every host declares
  if (p.rate_factor != 1.0) {
    for (const auto& src : base.sources) {
      doc["sources"][src.name]["rate"] = scenarios::format_rate(src.rate_per_s * p.rate_factor);
    }
  }
  YAML::Node timeline = doc["timeline"];
  YAML::Node faults = doc["faults"];
  int batch_no = 0;
  for (const auto& f : p.faults) {
    switch (f.kind) {
      case FaultKind::Crash: {
        YAML::Node c;
        c["type"] = "crash";
        c["at"] = offset_text(f.at);
        c["target"] = f.target;
        c["duration"] = ms_text(f.length);
        faults.push_back(c);
        break;
      }
      case FaultKind::Burst: {
        double rate = source(base, f.target).rate_per_s * p.rate_factor;
        std::string path = "sources." + f.target + ".rate";
        timeline.push_back(set_entry(f.at, path, scenarios::format_rate(rate * f.strength)));
        timeline.push_back(set_entry(f.at + f.length, path, scenarios::format_rate(rate)));
        break;
      }
      case FaultKind::HugeBatch: {
        const auto& like = source(base, f.target);
        YAML::Node s;
        s["client"] = "fuzz-batch";
        s["from"] = like.from;
        s["target"] = like.target_datacenter + "." + like.target_service + "." + like.endpoint;
        s["rate"] = scenarios::format_rate(f.strength * p.rate_factor);
        s["request_size"]["constant"] = std::to_string(f.size_bytes) + "B";
        s["start"] = offset_text(f.at);
        s["stop"] = offset_text(f.at + f.length);
        doc["sources"]["fuzz-batch-" + std::to_string(batch_no++)] = s;
        break;
      }
      // The window kinds are `faults:` entries of scenarios/fault_kinds.hpp, as a user writes
      // them; the loader turns each into its set-then-restore window.
      case FaultKind::DelaySpike:
        faults.push_back(fault_entry(f, ms_text(round_ms(f.strength / 1e3))));
        break;
      case FaultKind::Clog:
      case FaultKind::GcPause:
      case FaultKind::MemcachedRestart:
      case FaultKind::GoGcPause:
      case FaultKind::Partition:
      case FaultKind::LogStall:
        faults.push_back(fault_entry(f, ""));
        break;
      case FaultKind::PacketLoss:
      case FaultKind::SynDrop:
        faults.push_back(fault_entry(f, scenarios::format_real(f.strength * 100) + "%"));
        break;
      case FaultKind::MemcachedSlow:
        faults.push_back(fault_entry(f, ms_text(round_ms(f.strength / 1e3))));
        break;
      case FaultKind::ScyllaSlow:
        faults.push_back(fault_entry(f, scenarios::format_real(f.strength)));
        break;
      case FaultKind::FdLimit:
        faults.push_back(fault_entry(f, std::to_string(std::llround(f.strength))));
        break;
      case FaultKind::CommitUnknown:
        faults.push_back(fault_entry(f, scenarios::format_real(f.strength * 100) + "%"));
        break;
      case FaultKind::OomKill:
        faults.push_back(fault_entry(f, std::to_string(std::llround(f.strength)) + "B"));
        break;
      case FaultKind::ScyllaDown:
        faults.push_back(fault_entry(f, std::to_string(std::llround(f.strength))));
        break;
      case FaultKind::ParamFlip: {
        auto dot = f.target.find('.');
        std::string path = "datacenters." + f.target.substr(0, dot) + ".services." +
                           f.target.substr(dot + 1) + ".params." + f.param;
        timeline.push_back(set_entry(f.at, path, std::to_string(std::llround(f.strength))));
        break;
      }
    }
  }
  if (timeline.size() > 0) doc["timeline"] = in_time_order(timeline, base, p.duration);
  if (faults.size() > 0) doc["faults"] = in_time_order(faults, base, p.duration);
  return doc;
}

std::string flow_text(const YAML::Node& n) {
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  out << n;
  return out.c_str();
}

}  // namespace

std::vector<std::string> set_overrides(const scenarios::Scenario& base, const Perturbation& p,
                                       const std::string& invariant) {
  YAML::Node doc = perturbed_doc(base, p);
  const YAML::Node& was = base.document;
  std::vector<std::string> out;
  for (const auto& kv : doc) {
    std::string key = kv.first.as<std::string>();
    if (key == "seed") continue;  // --seed
    if (key == "sources" && was["sources"] && was["sources"].IsMap()) {
      for (const auto& src : kv.second) {
        std::string name = src.first.as<std::string>();
        const YAML::Node old = was["sources"][name];
        std::string now = flow_text(src.second);
        if (!old || flow_text(old) != now) out.push_back("sources." + name + "=" + now);
      }
      continue;
    }
    std::string now = flow_text(kv.second);
    if (!was[key] || flow_text(was[key]) != now) out.push_back(key + "=" + now);
  }
  if (was["invariants"] && was["invariants"].IsSequence() && !invariant.empty()) {
    bool listed = false;
    YAML::Node list(YAML::NodeType::Sequence);
    for (const auto& n : was["invariants"]) {
      listed = listed || n.as<std::string>() == invariant;
      list.push_back(n.as<std::string>());
    }
    list.push_back(invariant);
    if (!listed) out.push_back("invariants=" + flow_text(list));
  }
  return out;
}

std::string perturbed_yaml(const scenarios::Scenario& base, const Perturbation& p) {
  YAML::Node doc = perturbed_doc(base, p);
  YAML::Emitter out;
  out << doc;
  std::ostringstream text;
  text << "# generated by skysim fuzz from " << p.base_file << "\n";
  std::istringstream knobs(p.describe());
  for (std::string line; std::getline(knobs, line);) text << "# " << line << "\n";
  text << out.c_str() << "\n";
  return text.str();
}

}  // namespace skysim::fuzz
