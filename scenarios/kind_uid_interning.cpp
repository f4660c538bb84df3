// The `uid-interning` service kind: a KVDB-style interning service on a FoundationDB cluster
// (models/fdb) using one of the components/uidalloc allocators (docs/uid-interning.md). Endpoint:
//   intern - intern the host's next string (new, or a repeat with probability repeat_fraction);
//            completes when acknowledged, or fails with "collision" / "exhausted" / "gave_up".
// At most `workers` internings run at once; the rest wait in FIFO order.
// The lead adds `register_uid_interning(r)` to register_builtin_models (builtin_models.cpp).
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "components/uidalloc/ack_uniqueness.hpp"
#include "components/uidalloc/allocator_config.hpp"
#include "components/uidalloc/interning_checker.hpp"
#include "models/fdb/database.hpp"
#include "models/fdb/interning_workload.hpp"
#include "models/fdb/kv_backend.hpp"
#include "models/fdb/store_view.hpp"
#include "scenarios/model_registry.hpp"
#include "scenarios/param_builder.hpp"
#include "sim/process.hpp"
#include "sim/rng.hpp"

namespace skysim::scenarios {
namespace {

using sim::ParamType;

sim::ParamSpec settable(sim::ParamSpec s) {
  s.settable = true;
  return s;
}

std::vector<sim::ParamSpec> interning_params() {
  return {
      param("allocator", ParamType::Enum, "", "sharded-sequences",
            "UID allocator (docs/uid-interning.md)", std::nullopt, std::nullopt,
            {"single-counter", "sharded-sequences", "hca", "xxhash", "snapshot-counter-bug"}),
      param("prefix_bits", ParamType::Count, "bits", "32",
            "sequence-id width: 32 published, 16 KVDB, 14 example (domain.md §10)", 1, 32),
      param("counter_bits", ParamType::Count, "bits", "0", "0 = 64 - prefix_bits (§10.2)", 0, 63),
      param("shift", ParamType::Count, "bits", "0", "0 = counter_bits; KVDB uses 32 (§10.3)", 0,
            63),
      param("tries", ParamType::Count, "", "5", "sequences tried: 5 published, 20 KVDB (§10)", 1,
            1000),
      param("break_on_success", ParamType::Bool, "", "false",
            "stop at the first usable sequence (the published loop does not, §10.3)"),
      param("hash_bits", ParamType::Count, "bits", "64", "xxhash: UID width (64 = XXH64)", 1, 64),
      param("collision_check", ParamType::Bool, "", "true", "xxhash: refuse a taken UID"),
      param("workers", ParamType::Count, "", "64", "concurrent interning transactions", 1, 1e6),
      param("repeat_fraction", ParamType::Percent, "", "30%",
            "share of requests naming an already-interned string (assumption)", 0, 0.999),
      param("max_attempts", ParamType::Count, "", "1000", "retries before giving up", 1, 1e9),
      param("commit_capacity", ParamType::Rate, "commits/s", "50k/s",
            "resolver/commit pipeline capacity (assumption, domain.md §6.3)", 1, 1e9),
      param("commit_batch_interval", ParamType::Duration, "", "1ms",
            "commit proxy batch (domain.md §6.1)", 0, 1e9),
      settable(param("commit_unknown_probability", ParamType::Percent, "", "0%",
                     "injected commit_unknown_result (1021) per commit", 0, 1)),
  };
}

class UidInterningHost;
sim::Process interning_server(UidInterningHost& host, int worker);

// One worker's random stream, seeded exactly as Simulation::stream seeds "PATH/worker/N" (so
// every draw is the one the kernel's named stream would give), but owned by the worker: a
// fuzz-interning run spawns ~12,000 short-lived workers, and the kernel keeps every named
// stream (2.5 KiB of mt19937_64 state each) to the end of the run — 29 MB, its page faults and
// its teardown were ~20 % of the run (h-fuzzintern). What the unseed needs of it is kept: its
// name and draw count are folded into the run's unseed when the worker exits, or at finish()
// for a worker still running then.
struct WorkerStream {
  WorkerStream(sim::Simulation& sim, std::string stream_name)
      : name(std::move(stream_name)), rng(sim::stream_seed(sim.seed(), name)) {}
  void fold_into(sim::Simulation& sim) const {
    sim.fold(sim::stream_seed(0, name));
    sim.fold(rng.draws());
  }
  std::string name;
  sim::Rng rng;
};

class UidInterningHost final : public Instance {
 public:
  UidInterningHost(World& w, const HostContext& ctx) : Instance(ctx), sim_(w.sim()) {
    const sim::ParamValues& p = ctx.params;
    allocator_.kind = uidalloc::parse_allocator_kind(p.choice("allocator"));
    allocator_.prefix_bits = static_cast<int>(p.count("prefix_bits"));
    allocator_.counter_bits = static_cast<int>(p.count("counter_bits"));
    allocator_.shift = static_cast<int>(p.count("shift"));
    allocator_.tries = static_cast<int>(p.count("tries"));
    allocator_.break_on_success = p.flag("break_on_success");
    allocator_.hash_bits = static_cast<int>(p.count("hash_bits"));
    allocator_.collision_check = p.flag("collision_check");
    allocator_.validate();
    workers_ = static_cast<int>(p.count("workers"));
    repeat_fraction_ = p.fraction("repeat_fraction");
    max_attempts_ = static_cast<int>(p.count("max_attempts"));
    fdb::DatabaseConfig db;
    db.commit_capacity_per_s = p.rate_per_s("commit_capacity");
    db.commit_batch_interval = p.duration("commit_batch_interval");
    db.commit_unknown_probability = p.fraction("commit_unknown_probability");
    db_ = std::make_unique<fdb::Database>(sim_, db);
    strings_ = &sim_.stream(path() + "/strings");
    sim::Labels labels = {{"host", path()}};
    latency_ = &w.metrics().histogram("uid.intern_latency_ns", labels);
    w.metrics().gauge_fn("uid.conflict_rate", labels, [this] { return tally_.conflict_rate(); });
    w.metrics().gauge_fn("uid.retries_per_request", labels,
                         [this] { return tally_.retries_per_request(); });
    w.metrics().counter_fn("uid.commit_unknown_results", labels,
                         [this] { return static_cast<double>(tally_.unknown_results); });
  }

  // The commit_unknown_result fault hook: a window of proxy failures (skysim fuzz).
  void set(std::string_view name, const sim::ParamValue& v) override {
    if (name == "commit_unknown_probability") {
      db_->set_commit_unknown_probability(v.number);
      return;
    }
    Instance::set(name, v);
  }

  void handle(Request r) override {
    if (!up()) {
      r.complete({false, "crashed"});
      return;
    }
    queue_.push_back(std::move(r));
    if (active_ < workers_) {
      ++active_;
      sim_.spawn(interning_server(*this, next_worker_++), "uid.interning");
    }
  }

  // Workers still running when the run ends fold their draws here (the others did at exit).
  void finish(World&) override {
    for (const auto& [worker, stream] : live_streams_) stream->fold_into(sim_);
  }

  std::vector<Invariant> invariants() override {
    return {{"uid-interning.unique-and-durable",
             [this]() -> std::string {
               uidalloc::CheckReport r = checker_.check(fdb::LatestStoreView(db_->store()));
               return r.ok() ? "" : r.summary();
             },
             /*end_only=*/true},
            {"uid-interning.acks-unique", [this] { return acks_.error(); }},
            // Kept at every commit (models/fdb/serializability_check.hpp).
            {"fdb.serializable", [this] { return db_->serializability_error(); }}};
  }

 private:
  friend sim::Process interning_server(UidInterningHost& host, int worker);

  std::string next_string() {
    std::int64_t index = distinct_;
    if (distinct_ > 0 && repeat_fraction_ > 0 && strings_->bernoulli(repeat_fraction_)) {
      index = strings_->uniform_int(0, distinct_ - 1);
    } else {
      ++distinct_;
    }
    return "uri/" + std::to_string(index);
  }

  sim::Simulation& sim_;
  uidalloc::AllocatorConfig allocator_;
  int workers_ = 1;
  double repeat_fraction_ = 0;
  int max_attempts_ = 1000;
  std::unique_ptr<fdb::Database> db_;
  sim::Rng* strings_ = nullptr;
  std::int64_t distinct_ = 0;
  std::deque<Request> queue_;
  int active_ = 0;
  int next_worker_ = 0;
  std::map<int, WorkerStream*> live_streams_;  // by worker number: the same order every run
  fdb::InterningResults tally_;
  uidalloc::InterningChecker checker_;
  uidalloc::AckUniqueness acks_;
  sim::Histogram* latency_ = nullptr;
};

// One interning worker: serves queued requests until the queue is empty, then exits.
sim::Process interning_server(UidInterningHost& host, int worker) {
  auto stream = std::make_unique<WorkerStream>(host.sim_,
                                               host.path() + "/worker/" + std::to_string(worker));
  // Leaves the live set however the frame ends (exit, or destroyed at shutdown).
  struct Registration {
    std::map<int, WorkerStream*>& live;
    int worker;
    ~Registration() { live.erase(worker); }
  } registration{host.live_streams_, worker};
  host.live_streams_.emplace(worker, stream.get());
  sim::Rng& rng = stream->rng;
  std::unique_ptr<fdb::UidAllocator> allocator = fdb::make_uid_allocator(host.allocator_, rng);
  while (!host.queue_.empty()) {
    Request r = std::move(host.queue_.front());
    host.queue_.pop_front();
    std::string str = host.next_string();
    sim::Time started = host.sim_.now();
    fdb::InternReply reply = co_await fdb::intern_with_retries(*host.db_, *allocator, rng, str,
                                                               host.max_attempts_, host.tally_);
    switch (reply.status) {
      case fdb::InternStatus::acknowledged:
        host.checker_.acknowledge(str, reply.uid);
        host.acks_.acknowledge(str, reply.uid);
        host.latency_->record(host.sim_.now() - started);
        r.complete({true, ""});
        break;
      case fdb::InternStatus::collision:
        r.complete({false, "collision"});
        break;
      case fdb::InternStatus::allocation_failed:
        r.complete({false, "exhausted"});
        break;
      case fdb::InternStatus::gave_up:
        r.complete({false, "gave_up"});
        break;
    }
  }
  stream->fold_into(host.sim_);
  --host.active_;
}

}  // namespace

void register_uid_interning(Registry& r) {
  r.add(ServiceKind{.name = "uid-interning",
                    .doc =
                        "string -> uint64 UID interning on FoundationDB: single counter, sharded "
                        "sequences, HCA or xxHash (domain.md §6, §10)",
                    .params = interning_params(),
                    .endpoints = {"intern"},
                    .build = [](World& w, const HostContext& ctx) -> std::unique_ptr<Instance> {
                      return std::make_unique<UidInterningHost>(w, ctx);
                    },
                    // Contention is the story of §6: latency, conflicts and the retries they cost.
                    .report_panels = [](const std::vector<HostContext>&) {
                      return std::vector<sim::ReportPanel>{
                          {.title = "Intern latency, 99th percentile of the interval",
                           .series = {"uid.intern_latency_ns:p99"},
                           .unit = "ms",
                           .divide_by = 1e6},
                          {.title = "Conflicts per commit attempt and retries per request, since the start",
                           .series = {"uid.conflict_rate", "uid.retries_per_request"},
                           .unit = "ratio"}};
                    }});
}

}  // namespace skysim::scenarios
