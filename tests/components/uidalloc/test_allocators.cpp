// The allocators on their own, against a serial in-memory transaction with kv::SyncTask futures
// and std::mt19937_64 (no simulator; the conflict behaviour is tested through models/fdb in
// tests/models/fdb/test_interning.cpp and against real etcd in tests/backends/etcd).
#include <xxhash.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "components/uidalloc/allocators.hpp"
#include "components/uidalloc/birthday.hpp"
#include "components/uidalloc/interning.hpp"
#include "components/uidalloc/interning_checker.hpp"
#include "components/uidalloc/key_codec.hpp"
#include "components/uidalloc/sync_task.hpp"

using namespace uidalloc;

// Named, not anonymous: the allocators' coroutine frames (in headers) hold a reference to it.
namespace memory_kv {

// Applies every write at once; counts reads so tests can see what an allocator touches.
class MemoryTransaction {
 public:
  std::map<std::string, std::string> data;
  int reads = 0;
  int conflict_reads = 0;

  kv::SyncTask<kv::Value> get(std::string key) {
    ++conflict_reads;
    return lookup(std::move(key));
  }
  kv::SyncTask<kv::Value> get_snapshot(std::string key) { return lookup(std::move(key)); }
  kv::SyncTask<std::vector<kv::KeyValue>> get_range(std::string b, std::string e,
                                                    kv::RangeOptions o) {
    ++reads;
    std::vector<kv::KeyValue> all;
    for (auto it = data.lower_bound(b); it != data.lower_bound(e); ++it) {
      all.push_back({it->first, it->second});
    }
    if (o.reverse) {
      std::reverse(all.begin(), all.end());
    }
    if (o.limit && static_cast<int>(all.size()) > o.limit) {
      all.resize(static_cast<std::size_t>(o.limit));
    }
    co_return all;
  }
  void set(const std::string& k, const std::string& v) { data[k] = v; }
  void clear(const std::string& k) { data.erase(k); }
  void clear_range(const std::string& b, const std::string& e) {
    data.erase(data.lower_bound(b), data.lower_bound(e));
  }
  void atomic_add(const std::string& k, std::int64_t d) {
    auto it = data.find(k);
    std::int64_t base = it == data.end() ? 0 : decode_le64(it->second);
    data[k] = encode_le64(base + d);
  }
  void add_read_conflict_key(const std::string&) {}
  void add_write_conflict_key(const std::string&) {}
  void no_write_conflict_for_next_write() {}

 private:
  kv::SyncTask<kv::Value> lookup(std::string key) {
    ++reads;
    auto it = data.find(key);
    co_return it == data.end() ? kv::Value{} : kv::Value{it->second};
  }
};

}  // namespace memory_kv

namespace {

using memory_kv::MemoryTransaction;
using Memory = kv::Blocking<MemoryTransaction>;
static_assert(kv::Backend<Memory>);
using Rng = std::mt19937_64;

std::vector<std::uint64_t> run_allocations(UidAllocator<Memory>& a, MemoryTransaction& tr, int n,
                                           std::string* error = nullptr) {
  std::vector<std::uint64_t> out;
  try {
    for (int i = 0; i < n; ++i) {
      std::string s = "s" + std::to_string(i);
      out.push_back(a.allocate(tr, s).get());
    }
  } catch (const AllocationError& e) {
    if (error) {
      *error = e.what();
    }
  }
  return out;
}

}  // namespace

TEST_CASE("single counter hands out 1, 2, 3 ... as decimal last_uid") {
  MemoryTransaction tr;
  SingleCounterAllocator<Memory> a(false);
  CHECK(run_allocations(a, tr, 3) == std::vector<std::uint64_t>{1, 2, 3});
  CHECK(tr.data.at("last_uid") == "3");
}

TEST_CASE("sharded sequences: (sequence << 32) | counter, 5 reads per allocation, no break") {
  Rng rng(1);
  AllocatorConfig c;  // published defaults
  ShardedSequenceAllocator<Memory, Rng> a(c, rng);
  MemoryTransaction tr;
  auto uids = run_allocations(a, tr, 1);
  CHECK(tr.conflict_reads == 5);  // all tries run, the last pick wins
  std::uint64_t seq = uids[0] >> 32;
  CHECK((uids[0] & 0xFFFFFFFF) == 1);
  CHECK(tr.data.at("uid_sequence/" + std::to_string(seq)) == "1");
  CHECK((std::uint64_t{37} << 32) + 5 == 158'913'789'957ULL);  // the write-up's example

  c.break_on_success = true;
  Rng rng2(2);
  ShardedSequenceAllocator<Memory, Rng> b(c, rng2);
  MemoryTransaction tr2;
  run_allocations(b, tr2, 1);
  CHECK(tr2.conflict_reads == 1);
}

TEST_CASE("sharded sequences: 14-bit prefix with a 50-bit counter") {
  Rng rng(1);
  AllocatorConfig c;
  c.prefix_bits = 14;
  CHECK(c.effective_counter_bits() == 50);
  CHECK_FALSE(c.ids_may_overlap());
  ShardedSequenceAllocator<Memory, Rng> a(c, rng);
  MemoryTransaction tr;
  auto uids = run_allocations(a, tr, 2000);
  std::set<std::uint64_t> distinct(uids.begin(), uids.end());
  CHECK(distinct.size() == uids.size());
  for (auto u : uids) {
    CHECK((u >> 50) < (1u << 14));
  }
}

TEST_CASE("sharded sequences: exhausted picks are skipped; all exhausted is an error") {
  Rng rng(1);
  AllocatorConfig c;
  c.prefix_bits = 1;   // sequences 0 and 1
  c.counter_bits = 2;  // exhausted at 3
  c.break_on_success = true;
  ShardedSequenceAllocator<Memory, Rng> a(c, rng);
  MemoryTransaction tr;
  std::string error;
  auto uids = run_allocations(a, tr, 10, &error);
  CHECK(uids.size() == 6);  // 2 sequences x 3 values
  CHECK_THAT(error, Catch::Contains("after 5 attempts"));
}

TEST_CASE("published no-break loop: an exhausted last pick pairs the wrong sequence id") {
  // Sequence 1 is exhausted, 0 is fresh. Without a break, a run whose last pick is 1 returns
  // (1 << shift) | counter-of-0: a UID from a sequence that never counted it (§10.3).
  Rng rng(3);
  AllocatorConfig c;
  c.prefix_bits = 1;
  c.counter_bits = 8;
  c.tries = 2;
  ShardedSequenceAllocator<Memory, Rng> a(c, rng);
  bool saw_wrong_pairing = false;
  for (int i = 0; i < 40 && !saw_wrong_pairing; ++i) {
    MemoryTransaction tr;
    tr.data["uid_sequence/1"] = "255";
    std::string error;
    auto uids = run_allocations(a, tr, 1, &error);
    if (!uids.empty() && (uids[0] >> 8) == 1) {
      saw_wrong_pairing = tr.data.at("uid_sequence/1") == "1";
    }
  }
  CHECK(saw_wrong_pairing);
}

TEST_CASE("HCA: window sizes and unique candidates across window moves") {
  CHECK(hca::window_size(0) == 64);
  CHECK(hca::window_size(254) == 64);
  CHECK(hca::window_size(255) == 1024);
  CHECK(hca::window_size(65534) == 1024);
  CHECK(hca::window_size(65535) == 8192);
  Rng rng(1);
  HighContentionAllocator<Memory, Rng> a(rng);
  MemoryTransaction tr;
  auto uids = run_allocations(a, tr, 3000);
  std::set<std::uint64_t> distinct(uids.begin(), uids.end());
  CHECK(distinct.size() == 3000);
  CHECK(*distinct.rbegin() < 3000 * 3);  // dense: windows are < half full when chosen
  // Old windows' counters were cleared: only the newest counter key remains.
  std::size_t counters = 0;
  for (const auto& [k, v] : tr.data) {
    counters += k.rfind(std::string(kHcaCounters), 0) == 0 ? 1 : 0;
  }
  CHECK(counters == 1);
}

TEST_CASE("xxHash allocator: the real XXH64, narrowed on request, collision check") {
  HashAllocator<Memory> full(64, true);
  CHECK(full.hash("at://did:plc:abc") == XXH64("at://did:plc:abc", 16, 0));
  HashAllocator<Memory> narrow(16, true);
  CHECK(narrow.hash("x") == (XXH64("x", 1, 0) & 0xFFFF));
  // Find two strings that collide in 16 bits, then intern both.
  std::map<std::uint64_t, std::string> seen;
  std::string a, b;
  for (int i = 0; a.empty(); ++i) {
    std::string s = "k" + std::to_string(i);
    auto [it, fresh] = seen.emplace(narrow.hash(s), s);
    if (!fresh) {
      a = it->second;
      b = s;
    }
  }
  MemoryTransaction tr;
  tr.data[uid_to_string_key(narrow.hash(a))] = a;
  CHECK_THROWS_AS(narrow.allocate(tr, b).get(), UidCollision);
  CHECK_THROWS_WITH(narrow.allocate(tr, b).get(),
                    Catch::Contains("already belongs to '" + a + "'"));
}

TEST_CASE("interning stores both directions and finds repeats") {
  MemoryTransaction tr;
  SingleCounterAllocator<Memory> a(false);
  std::vector<InternOutcome> outs;
  for (const char* str : {"alice", "bob", "alice"}) {
    outs.push_back(intern_in_transaction<Memory>(tr, a, std::string(str)).get());
  }
  REQUIRE(outs.size() == 3);
  CHECK(outs[0].created);
  CHECK(outs[1].created);
  CHECK_FALSE(outs[2].created);
  CHECK(outs[2].uid == outs[0].uid);
  CHECK(tr.data.at(uid_to_string_key(outs[1].uid)) == "bob");
  InterningChecker checker;
  checker.acknowledge("alice", outs[0].uid);
  checker.acknowledge("bob", outs[1].uid);
  CHECK(checker.check(tr.data).ok());
}

TEST_CASE("the checker reports each kind of violation") {
  std::map<std::string, std::string> store;
  store[string_to_uid_key("a")] = encode_be64(1);
  store[uid_to_string_key(1)] = "a";
  store[string_to_uid_key("b")] = encode_be64(1);  // UID 1 for two strings
  InterningChecker c;
  c.acknowledge("a", 1);
  c.acknowledge("a", 2);  // two UIDs for one string
  c.acknowledge("z", 9);  // not durable
  CheckReport r = c.check(store);
  CHECK_FALSE(r.ok());
  CHECK_THAT(r.summary(), Catch::Contains("maps to two strings"));
  CHECK_THAT(r.summary(), Catch::Contains("acknowledged with two UIDs"));
  CHECK_THAT(r.summary(), Catch::Contains("is not durable"));
}

TEST_CASE("birthday bound and sequence-conflict formulas") {
  CHECK(keys_for_collision_probability(0.5, 64) == Approx(5.0594e9).epsilon(0.001));
  CHECK(collision_probability(5.0594e9, 64) == Approx(0.5).epsilon(0.001));
  CHECK(collision_probability(1e6, 64) < 1e-7);
  // domain.md §10.3: S = 2^16, tries = 20, k = 1000 -> ~26 %.
  CHECK(sequence_conflict_probability(16, 20, 1000) == Approx(0.263).epsilon(0.01));
  CHECK(sequence_conflict_probability(32, 5, 1000) < 2e-6);
}

TEST_CASE("allocator config errors name the field") {
  AllocatorConfig c;
  c.tries = 0;
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("tries"));
  c = AllocatorConfig{};
  c.hash_bits = 65;
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("hash_bits"));
  c = AllocatorConfig{};
  c.prefix_bits = 32;
  c.shift = 40;
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("shift"));
  CHECK_THROWS_WITH(decode_be64("abc"), Catch::Contains("8 bytes"));
  CHECK_THROWS_WITH(parse_decimal("12x"), Catch::Contains("not a uint64"));
}
