#include "models/fdb/interning_workload.hpp"

#include <optional>
#include <stdexcept>
#include <vector>

#include "components/uidalloc/interning.hpp"
#include "models/fdb/store_view.hpp"
#include "models/fdb/transaction.hpp"
#include "sim/process.hpp"

namespace fdb {

void InterningConfig::validate() const {
  allocator.validate();
  database.validate();
  auto fail = [](const std::string& what) { throw std::invalid_argument("interning: " + what); };
  if (workers < 1) {
    fail("workers must be >= 1, got " + std::to_string(workers));
  }
  if (requests < 0) {
    fail("requests must be >= 0");
  }
  if (!(repeat_fraction >= 0 && repeat_fraction < 1)) {
    fail("repeat_fraction must be in [0, 1)");
  }
  if (max_attempts < 1) {
    fail("max_attempts must be >= 1");
  }
  if (duration < 0) {
    fail("duration must be >= 0");
  }
}

namespace {

// Shared by the workers: the request stream and the tallies.
struct Run {
  const InterningConfig& config;
  sim::Simulation& sim;
  Database& db;
  RequestStrings strings;
  uidalloc::InterningChecker checker;
  InterningResults results;
  std::int64_t handed_out = 0;

  std::string next_string() {
    ++handed_out;
    return strings.next();
  }
};

sim::Process interning_worker(Run& run, int worker) {
  sim::Rng& rng = run.sim.stream("interning/worker/" + std::to_string(worker));
  std::unique_ptr<UidAllocator> allocator = make_uid_allocator(run.config.allocator, rng);
  while (run.handed_out < run.config.requests) {
    std::string str = run.next_string();
    InternReply reply = co_await intern_with_retries(run.db, *allocator, rng, str,
                                                     run.config.max_attempts, run.results);
    if (reply.status == InternStatus::acknowledged) {
      run.checker.acknowledge(str, reply.uid);
    }
  }
}

}  // namespace

sim::Task<InternReply> intern_with_retries(Database& db, UidAllocator& allocator, sim::Rng& rng,
                                           std::string str, int max_attempts,
                                           InterningResults& tally) {
  ++tally.requests;
  sim::Time started = db.simulation().now();
  Transaction tr(db, rng);  // a fresh transaction per request, as db.Transact does
  for (int attempt = 1;; ++attempt) {
    ++tally.attempts;
    std::optional<Error> error;
    try {
      uidalloc::InternOutcome out =
          co_await uidalloc::intern_in_transaction<KvBackend>(tr, allocator, str);
      co_await tr.commit();
      ++tally.acknowledged;
      tally.created += out.created ? 1 : 0;
      tally.latency_ns.record(db.simulation().now() - started);
      co_return InternReply{InternStatus::acknowledged, out.uid, out.created};
    } catch (const Error& e) {
      error = e;
    } catch (const uidalloc::UidCollision&) {
      ++tally.collisions_rejected;
      co_return InternReply{InternStatus::collision};
    } catch (const uidalloc::AllocationError&) {
      ++tally.allocation_failures;
      co_return InternReply{InternStatus::allocation_failed};
    }
    switch (error->code) {
      case ErrorCode::not_committed:
        ++tally.not_committed;
        break;
      case ErrorCode::transaction_too_old:
        ++tally.too_old;
        break;
      case ErrorCode::commit_unknown_result:
        ++tally.unknown_results;
        break;
      default:
        break;
    }
    if (attempt >= max_attempts) {
      ++tally.gave_up;
      co_return InternReply{InternStatus::gave_up};
    }
    co_await tr.on_error(*error);  // rethrows anything not retryable: a model bug
  }
}

InterningResults run_interning_experiment(const InterningConfig& config) {
  config.validate();
  sim::Simulation sim(config.seed);
  InterningResults results;
  {
    Database db(sim, config.database);
    Run run{config,
            sim,
            db,
            RequestStrings(sim.stream("interning/strings"), config.repeat_fraction),
            uidalloc::InterningChecker{},
            {}};
    std::vector<sim::ProcessHandle> workers;
    for (int w = 0; w < config.workers; ++w) {
      workers.push_back(sim.spawn(interning_worker(run, w), "interning.worker"));
    }
    if (config.duration > 0) {
      sim.run_until(config.duration);
      run.results.sim_seconds = sim::to_seconds(config.duration);
    } else {
      sim.run();  // runs dry: every request acknowledged, rejected or given up
      run.results.sim_seconds = sim::to_seconds(sim.now());
    }
    run.results.database = db.stats();
    run.results.events = sim.events_executed();
    run.results.fingerprint = sim.fingerprint();
    if (config.check) {
      run.results.check = run.checker.check(LatestStoreView(db.store()));
    }
    results = std::move(run.results);
    workers.clear();
    sim.shutdown();
  }
  return results;
}

}  // namespace fdb
