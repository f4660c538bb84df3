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

#include "components/uidalloc/allocator_config.hpp"
#include "models/fdb/database.hpp"
#include "models/fdb/interning_workload.hpp"
#include "models/fdb/kv_backend.hpp"
#include "scenarios/fdb_service.hpp"
#include "scenarios/interning_books.hpp"
#include "scenarios/model_registry.hpp"
#include "scenarios/param_builder.hpp"
#include "sim/process.hpp"
#include "sim/rng.hpp"

namespace skysim::scenarios {
namespace {

using sim::ParamType;

std::vector<sim::ParamSpec> interning_params() {
  std::vector<sim::ParamSpec> out = allocator_params();
  std::vector<sim::ParamSpec> own = {
      param("workers", ParamType::Count, "", "64", "concurrent interning transactions", 1, 1e6),
      param("repeat_fraction", ParamType::Percent, "", "30%",
            "share of requests naming an already-interned string (assumption)", 0, 0.999),
      param("max_attempts", ParamType::Count, "", "1000", "retries before giving up", 1, 1e9),
  };
  out.insert(out.end(), own.begin(), own.end());
  for (sim::ParamSpec& p : database_params()) out.push_back(std::move(p));
  return out;
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
    allocator_ = allocator_config(p);
    workers_ = static_cast<int>(p.count("workers"));
    max_attempts_ = static_cast<int>(p.count("max_attempts"));
    db_ = std::make_unique<fdb::Database>(sim_, database_config(p));
    strings_.emplace(sim_.stream(path() + "/strings"), p.fraction("repeat_fraction"));
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

  std::vector<Invariant> invariants() override { return books_.invariants(*db_); }

 private:
  friend sim::Process interning_server(UidInterningHost& host, int worker);

  sim::Simulation& sim_;
  uidalloc::AllocatorConfig allocator_;
  int workers_ = 1;
  int max_attempts_ = 1000;
  std::unique_ptr<fdb::Database> db_;
  std::optional<fdb::RequestStrings> strings_;  // made after the database, as its stream was
  std::deque<Request> queue_;
  int active_ = 0;
  int next_worker_ = 0;
  std::map<int, WorkerStream*> live_streams_;  // by worker number: the same order every run
  fdb::InterningResults tally_;
  InterningBooks books_;
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
    std::string str = host.strings_->next();
    sim::Time started = host.sim_.now();
    fdb::InternReply reply = co_await fdb::intern_with_retries(*host.db_, *allocator, rng, str,
                                                               host.max_attempts_, host.tally_);
    switch (reply.status) {
      case fdb::InternStatus::acknowledged:
        host.books_.acknowledge(str, reply.uid);
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
