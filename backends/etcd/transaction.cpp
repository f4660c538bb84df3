#include "backends/etcd/transaction.hpp"

#include <algorithm>
#include <thread>

#include "components/uidalloc/key_codec.hpp"

namespace etcd {

namespace {
// The first key after `key` in byte order.
std::string successor(const std::string& key) { return key + '\0'; }
}  // namespace

Transaction::Transaction(Client& client, std::mt19937_64& rng, Backoff backoff)
    : client_(&client), rng_(&rng), config_(backoff), backoff_(backoff.initial) {}

void Transaction::reset() {
  read_revision_ = 0;
  read_keys_.clear();
  read_ranges_.clear();
  puts_.clear();
  clears_.clear();
}

bool Transaction::cleared(const std::string& key) const {
  auto it = clears_.upper_bound(key);
  if (it == clears_.begin()) return false;
  --it;
  return key >= it->first && key < it->second;
}

bool Transaction::local(const std::string& key, kv::Value& out) const {
  if (auto it = puts_.find(key); it != puts_.end()) {
    out = it->second;
    return true;
  }
  if (cleared(key)) {
    out.reset();
    return true;
  }
  return false;
}

kv::Value Transaction::read(const std::string& key, bool conflict) {
  kv::Value v;
  if (local(key, v)) {
    return v;  // known from our own writes: nothing read from the store, nothing to conflict on
  }
  RangeResult r = client_->range({key, "", read_revision_, 0, false});
  if (read_revision_ == 0) read_revision_ = r.revision;
  std::int64_t mod = 0;
  if (!r.kvs.empty()) {
    v = r.kvs[0].value;
    mod = r.kvs[0].mod_revision;
  }
  if (conflict) read_keys_.emplace(key, mod);
  return v;
}

kv::SyncTask<kv::Value> Transaction::get(std::string key) { co_return read(key, true); }

kv::SyncTask<kv::Value> Transaction::get_snapshot(std::string key) { co_return read(key, false); }

kv::SyncTask<std::vector<kv::KeyValue>> Transaction::get_range(std::string begin, std::string end,
                                                               kv::RangeOptions o) {
  if (end < begin) throw std::invalid_argument("etcd: get_range end before begin");
  // Our own writes may hide or add keys, so with any of them in the range read it whole.
  bool touched = puts_.lower_bound(begin) != puts_.lower_bound(end) || !clears_.empty();
  RangeRequest req{begin, end, read_revision_, touched ? 0 : o.limit, o.reverse};
  RangeResult r = client_->range(req);
  if (read_revision_ == 0) read_revision_ = r.revision;
  std::map<std::string, std::string> merged;
  for (KeyValue& kv : r.kvs) {
    if (!o.snapshot) read_keys_.emplace(kv.key, kv.mod_revision);
    if (!cleared(kv.key)) merged.emplace(std::move(kv.key), std::move(kv.value));
  }
  for (auto it = puts_.lower_bound(begin); it != puts_.lower_bound(end); ++it) {
    merged[it->first] = it->second;
  }
  if (!o.snapshot) read_ranges_.emplace_back(begin, end);
  std::vector<kv::KeyValue> out;
  auto emit = [&](auto first, auto last) {
    for (auto it = first; it != last; ++it) {
      if (o.limit && static_cast<int>(out.size()) >= o.limit) break;
      out.push_back({it->first, it->second});
    }
  };
  if (o.reverse) {
    emit(merged.rbegin(), merged.rend());
  } else {
    emit(merged.begin(), merged.end());
  }
  co_return out;
}

void Transaction::set(const std::string& key, const std::string& value) { puts_[key] = value; }

void Transaction::clear(const std::string& key) { clear_range(key, successor(key)); }

void Transaction::clear_range(const std::string& begin, const std::string& end) {
  if (end < begin) throw std::invalid_argument("etcd: clear_range end before begin");
  if (begin == end) return;
  puts_.erase(puts_.lower_bound(begin), puts_.lower_bound(end));
  // Merge with the cleared ranges it touches, so they stay disjoint.
  std::string b = begin, e = end;
  auto it = clears_.upper_bound(b);
  if (it != clears_.begin() && std::prev(it)->second >= b) --it;
  while (it != clears_.end() && it->first <= e) {
    b = std::min(b, it->first);
    e = std::max(e, it->second);
    it = clears_.erase(it);
  }
  clears_.emplace(b, e);
}

void Transaction::atomic_add(const std::string& key, std::int64_t delta) {
  // No atomic op in etcd: read (with a conflict, so concurrent adds serialize and none is lost)
  // and put the sum.
  kv::Value base = read(key, true);
  puts_[key] = uidalloc::encode_le64((base ? uidalloc::decode_le64(*base) : 0) + delta);
}

void Transaction::add_read_conflict_key(const std::string& key) { read(key, true); }

void Transaction::add_write_conflict_key(const std::string& key) {
  if (!puts_.count(key)) {
    throw std::logic_error("etcd: add_write_conflict_key without a buffered write of the key");
  }
}

void Transaction::commit() {
  TxnRequest req;
  for (const auto& [key, mod] : read_keys_) {
    if (mod == 0) {
      req.compares.push_back({key, "", Compare::Target::create, Compare::Result::equal, 0});
    } else {
      req.compares.push_back({key, "", Compare::Target::mod, Compare::Result::equal, mod});
    }
  }
  for (const auto& [b, e] : read_ranges_) {
    req.compares.push_back({b, e, Compare::Target::mod, Compare::Result::less, read_revision_ + 1});
  }
  // etcd refuses a txn whose puts fall inside its delete ranges: cut the ranges around them.
  for (const auto& [b, e] : clears_) {
    std::string from = b;
    for (auto it = puts_.lower_bound(b); it != puts_.lower_bound(e); ++it) {
      if (from < it->first) req.delete_ranges.emplace_back(from, it->first);
      from = successor(it->first);
    }
    if (from < e) req.delete_ranges.emplace_back(from, e);
  }
  for (const auto& [k, v] : puts_) req.puts.emplace_back(k, v);
  if (req.puts.empty() && req.delete_ranges.empty()) {
    return;  // read-only: its reads were one consistent snapshot, nothing to commit
  }
  TxnResult r = client_->txn(req);
  if (!r.succeeded) throw NotCommitted();
  backoff_ = config_.initial;
}

void Transaction::on_error(const NotCommitted&) {
  double u = std::uniform_real_distribution<double>(0, 1)(*rng_);
  std::this_thread::sleep_for(std::chrono::microseconds(
      static_cast<std::int64_t>(static_cast<double>(backoff_.count()) * u)));
  backoff_ = std::min(std::chrono::microseconds(static_cast<std::int64_t>(
                          static_cast<double>(backoff_.count()) * config_.growth)),
                      config_.max);
  reset();
}

}  // namespace etcd
