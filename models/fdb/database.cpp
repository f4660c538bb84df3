#include "models/fdb/database.hpp"

#include <algorithm>
#include <cmath>

#include "models/fdb/atomic_ops.hpp"

namespace fdb {

Database::Database(sim::Simulation& sim, DatabaseConfig config)
    : sim_(&sim),
      config_(config),
      fault_rng_(&sim.stream("fdb/commit-proxy/faults")),
      conflicts_(store_) {
  config_.validate();
  closer_.db = this;
  closer_.kind = sim.intern_kind("fdb.batch.close");
  closer_.actor_id = sim.new_actor_id();
  resolver_.db = this;
  resolver_.kind = sim.intern_kind("fdb.batch.resolve");
  resolver_.actor_id = closer_.actor_id;
}

Version Database::clock_version() const {
  // sim time (ns) * versions_per_second / 1e9, exact for the default 1e6/s.
  return static_cast<Version>((static_cast<__int128>(sim_->now()) * config_.versions_per_second) /
                              sim::kSecond);
}

Version Database::current_version() const {
  return std::max(clock_version(), last_commit_version_);
}

Version Database::grant_read_version() {
  Version v = current_version();
  max_read_version_granted_ = std::max(max_read_version_granted_, v);
  return v;
}

Version Database::next_commit_version() {
  // Strictly above every version already committed or handed to a reader, so a read at a
  // granted version never changes once made.
  Version cv = std::max({clock_version(), last_commit_version_ + 1, max_read_version_granted_ + 1});
  last_commit_version_ = cv;
  return cv;
}

void Database::submit(CommitRequest& r) {
  double p = config_.commit_unknown_probability;
  if (p > 0 && fault_rng_->bernoulli(p)) {
    if (fault_rng_->bernoulli(0.5)) {
      r.lost_before_resolution = true;
    } else {
      r.reply_lost = true;
    }
  }
  if (r.lost_before_resolution) {
    // The proxy died with the request: the client hears commit_unknown_result after its reply
    // leg (assumption: the connection failure is noticed about one reply latency later).
    r.outcome = CommitOutcome::unknown;
    ++stats_.unknown_results;
    sim_->wake_at(r.waiter, sim_->now() + r.reply_delay);
    return;
  }
  if (!open_batch_) {
    open_batch_ = std::make_unique<Batch>();
    sim_->schedule_in(config_.commit_batch_interval, closer_);
  }
  open_batch_->requests.push_back(r);
}

void Database::close_batch() {
  std::unique_ptr<Batch> batch = std::move(open_batch_);
  std::size_t n = batch->requests.size();
  if (n == 0) {
    return;  // every member was cancelled while the batch was open
  }
  // The resolver checks batches one after another at commit_capacity_per_s transactions/s.
  sim::Duration work = static_cast<sim::Duration>(
      std::ceil(static_cast<double>(n) * 1e9 / config_.commit_capacity_per_s));
  resolver_free_at_ = std::max(resolver_free_at_, sim_->now()) + work;
  batch->resolve_at = resolver_free_at_;
  resolving_.push_back(std::move(batch));
  sim_->schedule_at(resolver_free_at_, resolver_);
}

void Database::resolve_front_batch() {
  std::unique_ptr<Batch> batch = std::move(resolving_.front());
  resolving_.pop_front();
  if (batch->requests.empty()) {
    return;
  }
  Version cv = next_commit_version();
  ++stats_.batches;
  std::uint16_t index = 0;
  std::uint64_t size = 0;
  while (!batch->requests.empty()) {
    CommitRequest& r = batch->requests.pop_front();
    resolve(r, cv, index++);
    ++size;
  }
  stats_.batch_size.record(static_cast<std::int64_t>(size));
  if (cv - last_prune_ > config_.mvcc_window_versions) {
    conflicts_.prune(cv - config_.mvcc_window_versions);
    serializability_.prune(cv - config_.mvcc_window_versions);
    last_prune_ = cv;
  }
}

void Database::resolve(CommitRequest& r, Version cv, std::uint16_t index) {
  stats_.conflict_window_versions.record(cv - r.read_version);
  if (cv - r.read_version > config_.mvcc_window_versions) {
    r.outcome = CommitOutcome::too_old;
    ++stats_.too_old;
  } else if (check_conflicts(index) && conflicts_.conflicts(*r.reads, r.read_version)) {
    r.outcome = CommitOutcome::conflict;
    ++stats_.conflicts;
  } else {
    serializability_.on_commit(*r.reads, r.read_version, cv);
    serializability_.note_writes(*r.writes, *r.mutations, cv);
    apply(*r.mutations, cv, index);
    for (const auto& w : *r.writes) {
      conflicts_.record(w, cv);
    }
    r.outcome = CommitOutcome::committed;
    r.commit_version = cv;
    r.batch_index = index;
    ++stats_.committed;
  }
  if (r.reply_lost) {
    if (r.outcome == CommitOutcome::committed) {
      ++stats_.unknown_applied;
    }
    r.outcome = CommitOutcome::unknown;
    ++stats_.unknown_results;
  }
  sim_->wake_at(r.waiter, sim_->now() + r.reply_delay);
}

bool Database::check_conflicts([[maybe_unused]] std::uint16_t index) const {
#ifdef SKYSIM_PLANTED_BUGS
  // Planted for the fuzzer's self-test (docs/fuzzing.md, "Planted bugs"): while
  // commit_unknown_result is injected (a proxy failing over), the resolver checks only the first
  // transaction of each batch; fdb.serializable and uid-interning.acks-unique must fail.
  if (config_.commit_unknown_probability > 0 && index > 0) return false;
#endif
  return true;
}

void Database::apply(const std::vector<Mutation>& mutations, Version cv, std::uint16_t index) {
  Version horizon = cv - config_.mvcc_window_versions;
  for (const Mutation& m : mutations) {
    switch (m.type) {
      case MutationType::set:
        store_.write(m.key, m.value, cv, horizon, m.write_conflict);
        break;
      case MutationType::clear:
        store_.write(m.key, std::nullopt, cv, horizon, m.write_conflict);
        break;
      case MutationType::clear_range:
        store_.clear_range(m.key, m.end, cv, horizon);
        break;
      case MutationType::add:
        store_.write(m.key, add_little_endian(store_.latest(m.key), m.value), cv, horizon,
                     m.write_conflict);
        break;
      case MutationType::set_versionstamped_key: {
        std::string key = m.key;
        key.replace(m.offset, kVersionstampSize, versionstamp(cv, index));
        store_.write(key, m.value, cv, horizon);
        conflicts_.record(ConflictRange{key, {}}, cv);
        break;
      }
      case MutationType::set_versionstamped_value: {
        std::string value = m.value;
        value.replace(m.offset, kVersionstampSize, versionstamp(cv, index));
        store_.write(m.key, value, cv, horizon, m.write_conflict);
        break;
      }
    }
  }
}

}  // namespace fdb
