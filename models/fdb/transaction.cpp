#include "models/fdb/transaction.hpp"

#include <algorithm>
#include <iterator>

#include "models/fdb/atomic_ops.hpp"

namespace fdb {

namespace {

// Parks the committing process until the pipeline decides its request.
struct SubmitAwaiter {
  Database* db;
  CommitRequest* request;
  sim::ProcState* p = nullptr;
  bool await_ready() const noexcept { return false; }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) {
    if (!sim::park(h, p)) {
      return false;
    }
    request->waiter = sim::WakeToken{p, p->gen};
    db->submit(*request);
    return true;
  }
  void await_resume() const { sim::throw_if_cancelled(p); }
};

sim::Duration draw(sim::Rng& rng, sim::Duration lo, sim::Duration hi) {
  return lo == hi ? lo : rng.uniform_int(lo, hi);
}

}  // namespace

Transaction::Transaction(Database& db, sim::Rng& rng)
    : db_(&db), rng_(&rng), backoff_(db.config().backoff_initial) {}

void Transaction::check_key(const std::string& key) const {
  if (key.size() > db_->config().key_size_max) {
    throw Error(ErrorCode::key_too_large, std::to_string(key.size()) + " bytes");
  }
}

void Transaction::check_readable_version() const {
  if (*read_version_ < db_->oldest_readable_version()) {
    throw Error(ErrorCode::transaction_too_old, "read version " + std::to_string(*read_version_) +
                                                    " is older than " +
                                                    std::to_string(db_->oldest_readable_version()));
  }
}

sim::Task<void> Transaction::ensure_read_version() {
  if (!read_version_) {
    const DatabaseConfig& c = db_->config();
    co_await sim::sleep(draw(*rng_, c.grv_latency_min, c.grv_latency_max));
    if (!read_version_) {
      read_version_ = db_->grant_read_version();
    }
  }
}

sim::Task<Version> Transaction::get_read_version() {
  co_await ensure_read_version();
  co_return *read_version_;
}

bool Transaction::covered_by_clear(const std::string& key) const {
  for (const auto& [b, e] : cleared_) {
    if (b <= key && key < e) {
      return true;
    }
  }
  return false;
}

kv::Value Transaction::overlay(const std::string& key, kv::Value stored) const {
  auto it = writes_.find(key);
  if (it == writes_.end()) {
    return covered_by_clear(key) ? std::nullopt : stored;
  }
  const Pending& w = it->second;
  switch (w.type) {
    case MutationType::set:
      return w.value;
    case MutationType::clear:
      return std::nullopt;
    case MutationType::add:
      return add_little_endian(covered_by_clear(key) ? std::nullopt : stored, w.value);
    default:
      throw Error(ErrorCode::accessed_unreadable, "read of a versionstamped value before commit");
  }
}

bool Transaction::local_value(const std::string& key, kv::Value& out) const {
  auto it = writes_.find(key);
  bool known = it != writes_.end() ? it->second.type != MutationType::add || covered_by_clear(key)
                                   : covered_by_clear(key);
  if (known) {
    out = overlay(key, std::nullopt);
  }
  return known;
}

sim::Task<kv::Value> Transaction::get(std::string key) { return read(std::move(key), false); }

sim::Task<kv::Value> Transaction::get_snapshot(std::string key) {
  return read(std::move(key), true);
}

sim::Task<kv::Value> Transaction::read(std::string key, bool snapshot) {
  check_key(key);
  kv::Value local;
  if (local_value(key, local)) {
    co_return local;  // read-your-writes: answered by the client, no storage round trip
  }
  if (!read_version_) {
    co_await ensure_read_version();
  }
  const DatabaseConfig& c = db_->config();
  co_await sim::sleep(draw(*rng_, c.read_latency_min, c.read_latency_max));
  check_readable_version();
  kv::Value stored = db_->store().read(key, *read_version_);
  if (!snapshot) {
    read_conflicts_.push_back(ConflictRange{key, {}});
  }
  co_return overlay(key, std::move(stored));
}

sim::Task<std::vector<kv::KeyValue>> Transaction::get_range(std::string begin, std::string end,
                                                            kv::RangeOptions options) {
  check_key(begin);
  if (end < begin) {
    throw Error(ErrorCode::inverted_range, "get_range end sorts before begin");
  }
  if (options.limit < 0) {
    throw Error(ErrorCode::client_invalid_operation, "get_range limit must be >= 0");
  }
  if (!read_version_) {
    co_await ensure_read_version();
  }
  const DatabaseConfig& c = db_->config();
  co_await sim::sleep(draw(*rng_, c.read_latency_min, c.read_latency_max));
  check_readable_version();

  const Version rv = *read_version_;
  const auto& stored = db_->store().ordered();
  const std::size_t limit = options.limit == 0 ? SIZE_MAX : static_cast<std::size_t>(options.limit);
  std::vector<kv::KeyValue> out;
  auto emit = [&](std::string_view key_view, const std::string* at_rv) {
    std::string key(key_view);
    kv::Value v = overlay(key, at_rv ? kv::Value(*at_rv) : std::nullopt);
    if (v) {
      out.push_back(kv::KeyValue{std::move(key), std::move(*v)});
    }
  };
  // Merge storage with this transaction's own writes, in scan order.
  auto merge = [&](auto s, auto s_end, auto w, auto w_end, auto before) {
    while (out.size() < limit && (s != s_end || w != w_end)) {
      if (w != w_end && (s == s_end || !before(s->first, w->first))) {
        bool same = s != s_end && s->first == std::string_view(w->first);
        emit(w->first, same ? s->second->at(rv) : nullptr);
        if (same) {
          ++s;
        }
        ++w;
      } else {
        emit(s->first, s->second->at(rv));
        ++s;
      }
    }
  };
  if (!options.reverse) {
    merge(stored.lower_bound(begin), stored.lower_bound(end), writes_.lower_bound(begin),
          writes_.lower_bound(end), [](std::string_view a, std::string_view b) { return a < b; });
  } else {
    merge(std::make_reverse_iterator(stored.lower_bound(end)),
          std::make_reverse_iterator(stored.lower_bound(begin)),
          std::make_reverse_iterator(writes_.lower_bound(end)),
          std::make_reverse_iterator(writes_.lower_bound(begin)),
          [](std::string_view a, std::string_view b) { return a > b; });
  }
  if (!options.snapshot) {
    // Only the part of the range actually scanned conflicts.
    if (out.size() == limit && !out.empty()) {
      if (!options.reverse) {
        read_conflicts_.push_back(ConflictRange{begin, out.back().key + '\0'});
      } else {
        read_conflicts_.push_back(ConflictRange{out.back().key, end});
      }
    } else if (begin < end) {
      read_conflicts_.push_back(ConflictRange{begin, end});
    }
  }
  co_return out;
}

void Transaction::buffer(const std::string& key, Pending w, std::size_t bytes) {
  bytes_ += bytes;
  Pending& slot = writes_[key];
  w.conflicts = slot.conflicts || !skip_next_write_conflict_;
  slot = std::move(w);
  skip_next_write_conflict_ = false;
}

void Transaction::set(const std::string& key, const std::string& value) {
  check_key(key);
  if (value.size() > db_->config().value_size_max) {
    throw Error(ErrorCode::value_too_large, std::to_string(value.size()) + " bytes");
  }
  buffer(key, Pending{MutationType::set, value}, key.size() + value.size());
}

void Transaction::clear(const std::string& key) {
  check_key(key);
  buffer(key, Pending{MutationType::clear, {}}, key.size());
}

void Transaction::clear_range(const std::string& begin, const std::string& end) {
  check_key(begin);
  if (end < begin) {
    throw Error(ErrorCode::inverted_range, "clear_range end sorts before begin");
  }
  auto first = writes_.lower_bound(begin);
  auto last = writes_.lower_bound(end);
  if (skip_next_write_conflict_) {
    // The erased writes' conflicts outlive them.
    for (auto it = first; it != last; ++it) {
      if (it->second.conflicts) {
        write_conflicts_.push_back(ConflictRange{it->first, {}});
      }
    }
  } else if (begin < end) {
    write_conflicts_.push_back(ConflictRange{begin, end});
  }
  writes_.erase(first, last);
  cleared_.emplace_back(begin, end);
  bytes_ += begin.size() + end.size();
  skip_next_write_conflict_ = false;
}

void Transaction::atomic_add(const std::string& key, std::int64_t delta) {
  check_key(key);
  std::string operand = little_endian_int64(delta);
  auto it = writes_.find(key);
  Pending w{MutationType::add, operand};
  if (it != writes_.end()) {
    switch (it->second.type) {
      case MutationType::set:
        w = Pending{MutationType::set, add_little_endian(it->second.value, operand)};
        break;
      case MutationType::clear:
        w = Pending{MutationType::set, operand};
        break;
      case MutationType::add:
        w = Pending{MutationType::add, add_little_endian(it->second.value, operand)};
        break;
      default:
        throw Error(ErrorCode::client_invalid_operation, "ADD on a versionstamped value");
    }
  }
  buffer(key, std::move(w), key.size() + operand.size());
}

void Transaction::add_read_conflict_key(const std::string& key) {
  check_key(key);
  read_conflicts_.push_back(ConflictRange{key, {}});
}

void Transaction::add_write_conflict_key(const std::string& key) {
  check_key(key);
  write_conflicts_.push_back(ConflictRange{key, {}});
}

void Transaction::set_versionstamped_key(const std::string& key, std::size_t offset,
                                         const std::string& value) {
  check_key(key);
  if (offset > key.size() || key.size() - offset < kVersionstampSize) {
    throw Error(ErrorCode::client_invalid_operation,
                "versionstamp offset " + std::to_string(offset) + " leaves no 10 bytes in the key");
  }
  stamped_keys_.push_back(Mutation{MutationType::set_versionstamped_key, key, value, {}, offset});
  bytes_ += key.size() + value.size();
  skip_next_write_conflict_ = false;  // its conflict is recorded at commit, once the key is known
}

void Transaction::set_versionstamped_value(const std::string& key, const std::string& value,
                                           std::size_t offset) {
  check_key(key);
  if (offset > value.size() || value.size() - offset < kVersionstampSize) {
    throw Error(
        ErrorCode::client_invalid_operation,
        "versionstamp offset " + std::to_string(offset) + " leaves no 10 bytes in the value");
  }
  buffer(key, Pending{MutationType::set_versionstamped_value, value, offset},
         key.size() + value.size());
}

void Transaction::build_mutations() {
  mutations_.clear();
  for (const auto& [b, e] : cleared_) {
    mutations_.push_back(Mutation{MutationType::clear_range, b, {}, e});
  }
  for (const auto& [key, w] : writes_) {
    mutations_.push_back(Mutation{w.type, key, w.value, {}, w.offset, w.conflicts});
  }
  mutations_.insert(mutations_.end(), stamped_keys_.begin(), stamped_keys_.end());
}

sim::Task<void> Transaction::commit() {
  if (committing_) {
    throw Error(ErrorCode::used_during_commit);
  }
  bool has_writes =
      !writes_.empty() || !cleared_.empty() || !stamped_keys_.empty() || !write_conflicts_.empty();
  if (!has_writes) {
    committed_version_ = -1;  // a read-only commit is a no-op, as in FoundationDB
    co_return;
  }
  if (bytes_ > db_->config().transaction_bytes_max) {
    throw Error(ErrorCode::transaction_too_large, std::to_string(bytes_) + " bytes");
  }
  if (!read_version_) {
    co_await ensure_read_version();
  }
  committing_ = true;
  build_mutations();
  const DatabaseConfig& c = db_->config();
  sim::Duration latency = draw(*rng_, c.commit_latency_min, c.commit_latency_max);
  co_await sim::sleep(latency / 2);  // client -> commit proxy

  CommitRequest request;
  request.read_version = *read_version_;
  request.reads = &read_conflicts_;
  request.writes = &write_conflicts_;
  request.mutations = &mutations_;
  request.reply_delay = latency - latency / 2;  // resolver/TLog -> client
  co_await SubmitAwaiter{db_, &request};
  committing_ = false;
  switch (request.outcome) {
    case CommitOutcome::committed:
      committed_version_ = request.commit_version;
      batch_index_ = request.batch_index;
      co_return;
    case CommitOutcome::conflict:
      throw Error(ErrorCode::not_committed);
    case CommitOutcome::too_old:
      throw Error(ErrorCode::transaction_too_old);
    case CommitOutcome::unknown:
      throw Error(ErrorCode::commit_unknown_result);
    case CommitOutcome::pending:
      break;
  }
  throw std::logic_error("fdb: commit woke before its batch was resolved");
}

sim::Task<void> Transaction::on_error(const Error& e) {
  const DatabaseConfig& c = db_->config();
  sim::Duration delay = 0;
  if (retryable_with_backoff(e.code)) {
    delay = static_cast<sim::Duration>(static_cast<double>(backoff_) * rng_->uniform01());
    backoff_ =
        std::min(static_cast<sim::Duration>(static_cast<double>(backoff_) * c.backoff_growth),
                 c.backoff_max);
  } else if (retryable_flat(e.code)) {
    delay = std::min(c.future_version_retry_delay, c.backoff_max);
  } else {
    throw e;
  }
  co_await sim::sleep(delay);
  reset();
}

void Transaction::reset() {
  if (committing_) {
    throw Error(ErrorCode::used_during_commit, "reset during commit");
  }
  read_version_.reset();
  writes_.clear();
  cleared_.clear();
  stamped_keys_.clear();
  read_conflicts_.clear();
  write_conflicts_.clear();
  mutations_.clear();
  bytes_ = 0;
  skip_next_write_conflict_ = false;
  committed_version_ = -1;
  batch_index_ = 0;
}

std::string Transaction::versionstamp() const {
  if (committed_version_ < 0) {
    throw Error(ErrorCode::client_invalid_operation,
                "versionstamp is only known after a commit with writes");
  }
  return fdb::versionstamp(committed_version_, batch_index_);
}

}  // namespace fdb
