#include "bench/phold.hpp"

#include <boost/random/exponential_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <time.h>

#include <chrono>
#include <cmath>
#include <numeric>
#include <queue>
#include <stdexcept>

#include "sim/process.hpp"
#include "sim/rng.hpp"
#include "sim/simulation.hpp"

namespace skysim::bench {
namespace {

constexpr std::string_view kStreamName = "bench/phold";
// PHOLD's fixed lookahead: every delay is 0.1 plus an Exp(1) draw (Fujimoto 1990).
constexpr sim::Duration kMinDelay = sim::kSecond / 10;
// The bare loop packs (sequence << 24 | lp) into one word, so LPs must fit in 24 bits.
constexpr std::uint32_t kMaxLps = 1U << 24;
// assumption: 2^28 circulating tokens (~6 GiB of process frames) is beyond any useful run.
constexpr std::uint64_t kMaxTokens = 1ULL << 28;

// The model's randomness, shared by all three paths so they draw identical numbers in identical
// order: per event first the destination, then the delay.
class PholdDraws {
 public:
  PholdDraws(sim::Rng& rng, std::uint32_t lps) : engine_(rng.engine()), pick_(0, lps - 1) {}

  std::uint32_t destination() { return pick_(engine_); }
  sim::Time first_time() { return to_ns(exp_(engine_)); }
  sim::Duration delay() { return kMinDelay + to_ns(exp_(engine_)); }

 private:
  static sim::Duration to_ns(double seconds) {
    return static_cast<sim::Duration>(seconds * static_cast<double>(sim::kSecond));
  }
  sim::Rng::Engine& engine_;
  boost::random::uniform_int_distribution<std::uint32_t> pick_;
  boost::random::exponential_distribution<double> exp_{1.0};
};

sim::Time horizon_ns(const PholdConfig& cfg) {
  return static_cast<sim::Time>(std::llround(cfg.until_s * static_cast<double>(sim::kSecond)));
}

// Wall and CPU time of the event loop. Both are reported: on a shared machine the wall time
// includes time slices given to other jobs, the thread's CPU time does not.
class LoopTimer {
 public:
  LoopTimer()
      : wall_start_(std::chrono::steady_clock::now()),  // determinism-ok: benchmark timing only
        cpu_start_(cpu_now()) {}
  void stop(PholdResult& r) const {
    auto wall_end = std::chrono::steady_clock::now();  // determinism-ok: benchmark timing only
    r.wall_s = std::chrono::duration<double>(wall_end - wall_start_).count();
    r.cpu_s = cpu_now() - cpu_start_;
  }

 private:
  static double cpu_now() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);  // determinism-ok: benchmark timing only
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  }
  std::chrono::steady_clock::time_point wall_start_;  // determinism-ok: benchmark timing only
  double cpu_start_;
};

void finish(PholdResult& r, std::vector<std::uint64_t>&& per_lp, bool keep) {
  r.events = std::accumulate(per_lp.begin(), per_lp.end(), std::uint64_t{0});
  if (keep) r.per_lp = std::move(per_lp);
}

// ---- callback path: one Handler per LP; an event is a queue entry pointing at its LP.

class PholdLp final : public sim::Handler {
 public:
  PholdLp(PholdDraws& draws, std::vector<PholdLp>& lps) : draws_(&draws), lps_(&lps) {}

  void on_event(sim::Simulation& sim) override {
    ++arrivals;
    PholdLp& next = (*lps_)[draws_->destination()];
    sim.schedule_in(draws_->delay(), next);
  }

  std::uint64_t arrivals = 0;

 private:
  PholdDraws* draws_;
  std::vector<PholdLp>* lps_;
};

PholdResult run_callback(const PholdConfig& cfg) {
  sim::Simulation sim(cfg.seed);
  PholdDraws draws(sim.stream(kStreamName), cfg.lps);
  std::vector<PholdLp> lps;
  lps.reserve(cfg.lps);
  const sim::Kind kind = sim.intern_kind("phold.lp");
  for (std::uint32_t i = 0; i < cfg.lps; ++i) {
    PholdLp& lp = lps.emplace_back(draws, lps);
    lp.kind = kind;
    lp.actor_id = sim.new_actor_id();
  }
  for (PholdLp& lp : lps) {
    for (std::uint32_t j = 0; j < cfg.init_events; ++j) {
      sim.schedule_at(draws.first_time(), lp);
    }
  }
  LoopTimer timer;
  sim.run_until(horizon_ns(cfg));
  PholdResult r;
  r.path = PholdPath::kCallback;
  timer.stop(r);
  r.kernel_events = sim.events_executed();
  r.fingerprint = sim.fingerprint();
  sim.shutdown();  // pending entries point at `lps`
  std::vector<std::uint64_t> per_lp;
  per_lp.reserve(lps.size());
  for (const PholdLp& lp : lps) per_lp.push_back(lp.arrivals);
  finish(r, std::move(per_lp), cfg.keep_per_lp_counts);
  return r;
}

// ---- process path: one long-lived coroutine per circulating token. Each wake-up is one PHOLD
// event at the token's current LP; the token then picks its next LP and sleeps the delay.

struct TokenWorld {
  PholdDraws& draws;
  std::vector<std::uint64_t>& arrivals;
};

sim::Process phold_token(TokenWorld& world, std::uint32_t lp, sim::Time first_arrival) {
  co_await sim::sleep_until(first_arrival);
  for (;;) {
    ++world.arrivals[lp];
    lp = world.draws.destination();
    co_await sim::sleep(world.draws.delay());
  }
}

PholdResult run_process(const PholdConfig& cfg) {
  sim::Simulation sim(cfg.seed);
  PholdDraws draws(sim.stream(kStreamName), cfg.lps);
  std::vector<std::uint64_t> arrivals(cfg.lps, 0);
  TokenWorld world{draws, arrivals};
  const sim::Kind kind = sim.intern_kind("phold.token");
  // Draw every first arrival before spawning, in the callback path's order (LP-major).
  std::vector<sim::Time> firsts;
  firsts.reserve(static_cast<std::size_t>(cfg.lps) * cfg.init_events);
  for (std::size_t k = 0; k < firsts.capacity(); ++k) firsts.push_back(draws.first_time());
  std::size_t k = 0;
  for (std::uint32_t i = 0; i < cfg.lps; ++i) {
    for (std::uint32_t j = 0; j < cfg.init_events; ++j) {
      sim.spawn(phold_token(world, i, firsts[k++]), kind);
    }
  }
  LoopTimer timer;
  sim.run_until(horizon_ns(cfg));
  PholdResult r;
  r.path = PholdPath::kProcess;
  timer.stop(r);
  r.kernel_events = sim.events_executed();
  r.fingerprint = sim.fingerprint();
  sim.shutdown();  // frames refer to `world`
  finish(r, std::move(arrivals), cfg.keep_per_lp_counts);
  return r;
}

// ---- baseline: the same model on a bare std::priority_queue of 16-byte events, the yardstick
// the issue and DESIGN.md measure kernels against.

struct BareEvent {
  std::int64_t time;
  std::uint64_t seq_lp;  // insertion sequence << 24 | destination LP: FIFO at equal times
};
static_assert(sizeof(BareEvent) == 16);

struct BareLater {
  bool operator()(const BareEvent& a, const BareEvent& b) const {
    return a.time > b.time || (a.time == b.time && a.seq_lp > b.seq_lp);
  }
};

PholdResult run_baseline(const PholdConfig& cfg) {
  sim::Rng rng(sim::stream_seed(cfg.seed, kStreamName));
  PholdDraws draws(rng, cfg.lps);
  std::vector<std::uint64_t> arrivals(cfg.lps, 0);
  std::vector<BareEvent> storage;
  storage.reserve(static_cast<std::size_t>(cfg.lps) * cfg.init_events);
  std::priority_queue<BareEvent, std::vector<BareEvent>, BareLater> queue(BareLater{},
                                                                          std::move(storage));
  std::uint64_t seq = 0;
  for (std::uint32_t i = 0; i < cfg.lps; ++i) {
    for (std::uint32_t j = 0; j < cfg.init_events; ++j) {
      queue.push(BareEvent{draws.first_time(), (seq++ << 24) | i});
    }
  }
  const sim::Time until = horizon_ns(cfg);
  std::uint64_t executed = 0;
  LoopTimer timer;
  while (!queue.empty() && queue.top().time <= until) {
    const BareEvent e = queue.top();
    queue.pop();
    ++executed;
    ++arrivals[e.seq_lp & (kMaxLps - 1)];
    std::uint32_t dest = draws.destination();
    queue.push(BareEvent{e.time + draws.delay(), (seq++ << 24) | dest});
  }
  PholdResult r;
  r.path = PholdPath::kBaseline;
  timer.stop(r);
  r.kernel_events = executed;
  finish(r, std::move(arrivals), cfg.keep_per_lp_counts);
  return r;
}

}  // namespace

std::string to_string(PholdPath path) {
  switch (path) {
    case PholdPath::kCallback:
      return "callback";
    case PholdPath::kProcess:
      return "process";
    case PholdPath::kBaseline:
      return "baseline";
  }
  return "?";
}

PholdPath parse_phold_path(const std::string& name) {
  if (name == "callback") return PholdPath::kCallback;
  if (name == "process") return PholdPath::kProcess;
  if (name == "baseline") return PholdPath::kBaseline;
  throw std::invalid_argument("unknown PHOLD path '" + name +
                              "' (expected callback, process or baseline)");
}

void validate(const PholdConfig& cfg) {
  if (cfg.lps < 1 || cfg.lps > kMaxLps) {
    throw std::invalid_argument("--lps must be between 1 and " + std::to_string(kMaxLps) +
                                ", got " + std::to_string(cfg.lps));
  }
  if (cfg.init_events < 1) throw std::invalid_argument("--init must be at least 1");
  if (static_cast<std::uint64_t>(cfg.lps) * cfg.init_events > kMaxTokens) {
    throw std::invalid_argument("--lps x --init must be at most " + std::to_string(kMaxTokens));
  }
  if (!std::isfinite(cfg.until_s) || cfg.until_s <= 0 || cfg.until_s > 1e9) {
    throw std::invalid_argument("--until must be a positive number of simulated seconds (at "
                                "most 1e9), got " + std::to_string(cfg.until_s));
  }
}

double phold_expected_events(const PholdConfig& cfg) {
  return static_cast<double>(cfg.lps) * cfg.init_events * cfg.until_s / 1.1;
}

PholdResult run_phold(const PholdConfig& cfg, PholdPath path) {
  validate(cfg);
  switch (path) {
    case PholdPath::kCallback:
      return run_callback(cfg);
    case PholdPath::kProcess:
      return run_process(cfg);
    case PholdPath::kBaseline:
      return run_baseline(cfg);
  }
  throw std::invalid_argument("unknown PHOLD path");
}

}  // namespace skysim::bench
