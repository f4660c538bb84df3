// FoundationDB transaction semantics (domain.md §6): conflicts, snapshot reads, atomic ADD,
// read-your-writes, MVCC window, versionstamps, ranges, onError backoff, injected 1021.
#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "models/fdb/atomic_ops.hpp"
#include "models/fdb/transaction.hpp"
#include "sim/process.hpp"

using namespace fdb;

namespace {

// Outcome of one transaction body run to its commit.
struct Attempt {
  std::optional<ErrorCode> error;
  std::vector<std::optional<std::string>> reads;
  bool done = false;
};

sim::Task<void> commit_into(Transaction& tr, Attempt& a) {
  try {
    co_await tr.commit();
  } catch (const Error& e) {
    a.error = e.code;
  }
  a.done = true;
}

// Reads `key` (snapshot or not), sleeps `hold`, writes key = value, commits.
sim::Process read_modify_write(Database& db, std::string key, std::string value, bool snapshot,
                               sim::Duration hold, Attempt& a) {
  Transaction tr(db, db.simulation().stream("client/" + value));
  // (no co_await inside ?: — GCC 12 miscompiles temporaries there)
  if (snapshot) {
    a.reads.push_back(co_await tr.get_snapshot(key));
  } else {
    a.reads.push_back(co_await tr.get(key));
  }
  co_await sim::sleep(hold);
  tr.set(key, value);
  co_await commit_into(tr, a);
}

sim::Process blind_add(Database& db, std::string key, sim::Duration hold, Attempt& a) {
  Transaction tr(db, db.simulation().stream("adder"));
  co_await tr.get_read_version();
  co_await sim::sleep(hold);
  tr.atomic_add(key, 1);
  co_await commit_into(tr, a);
}

DatabaseConfig fixed_latencies() {
  DatabaseConfig c;
  c.grv_latency_min = c.grv_latency_max = 500 * sim::kMicrosecond;
  c.read_latency_min = c.read_latency_max = 500 * sim::kMicrosecond;
  c.commit_latency_min = c.commit_latency_max = 2 * sim::kMillisecond;
  return c;
}

}  // namespace

TEST_CASE("concurrent read-modify-writes of one key: the first to resolve wins, the other 1020") {
  sim::Simulation sim(1);
  Database db(sim, fixed_latencies());
  Attempt a, b;
  sim.spawn(read_modify_write(db, "k", "a", false, 0, a));
  sim.spawn(read_modify_write(db, "k", "b", false, 5 * sim::kMillisecond, b));
  sim.run();
  REQUIRE(a.done);
  REQUIRE(b.done);
  CHECK_FALSE(a.error);
  REQUIRE(b.error);
  CHECK(*b.error == ErrorCode::not_committed);
  CHECK(db.store().latest("k") == std::optional<std::string>("a"));
  CHECK(db.stats().conflicts == 1);
}

TEST_CASE("snapshot reads take no read conflict: both commit (lost update)") {
  sim::Simulation sim(1);
  Database db(sim, fixed_latencies());
  Attempt a, b;
  sim.spawn(read_modify_write(db, "k", "a", true, 0, a));
  sim.spawn(read_modify_write(db, "k", "b", true, 5 * sim::kMillisecond, b));
  sim.run();
  CHECK_FALSE(a.error);
  CHECK_FALSE(b.error);
  CHECK(db.store().latest("k") == std::optional<std::string>("b"));
}

TEST_CASE("a transaction that does not overlap the writer's window commits") {
  sim::Simulation sim(1);
  Database db(sim, fixed_latencies());
  Attempt a, b;
  sim.spawn(read_modify_write(db, "k", "a", false, 0, a));
  // Starts after a's commit is durable: its read version is above a's commit version.
  sim.call_at(10 * sim::kMillisecond, sim.intern_kind("start"), [&] {
    sim.spawn(read_modify_write(db, "k", "b", false, 0, b));
  });
  sim.run();
  CHECK_FALSE(a.error);
  CHECK_FALSE(b.error);
  CHECK(b.reads.at(0) == std::optional<std::string>("a"));
}

TEST_CASE("atomic ADD takes no read conflict: concurrent adders all commit and sum") {
  sim::Simulation sim(1);
  Database db(sim, fixed_latencies());
  std::vector<Attempt> attempts(20);
  for (std::size_t i = 0; i < attempts.size(); ++i) {
    sim.spawn(blind_add(db, "counter", static_cast<sim::Duration>(i) * 100'000, attempts[i]));
  }
  sim.run();
  for (const auto& a : attempts) {
    CHECK_FALSE(a.error);
  }
  CHECK(db.store().latest("counter") == little_endian_int64(20));
}

namespace {
sim::Process ryw(Database& db, std::vector<std::optional<std::string>>& seen) {
  Transaction tr(db, db.simulation().stream("ryw"));
  tr.set("a", "1");
  seen.push_back(co_await tr.get("a"));
  tr.atomic_add("n", 5);
  tr.atomic_add("n", 2);
  seen.push_back(co_await tr.get_snapshot("n"));
  tr.clear_range("a", "b");
  seen.push_back(co_await tr.get("a"));
  tr.set("a2", "x");
  auto range = co_await tr.get_range("a", "z", kv::RangeOptions{});
  seen.push_back(range.size() == 2 ? std::optional<std::string>(range[0].key + range[1].key)
                                   : std::nullopt);
  co_await tr.commit();
}
}  // namespace

TEST_CASE("reads see the transaction's own writes, adds and clears") {
  sim::Simulation sim(1);
  Database db(sim, fixed_latencies());
  std::vector<std::optional<std::string>> seen;
  sim.spawn(ryw(db, seen));
  sim.run();
  REQUIRE(seen.size() == 4);
  CHECK(seen[0] == std::optional<std::string>("1"));
  CHECK(seen[1] == little_endian_int64(7));
  CHECK_FALSE(seen[2]);
  CHECK(seen[3] == std::optional<std::string>("a2n"));
  CHECK_FALSE(db.store().latest("a"));
  CHECK(db.store().latest("a2") == std::optional<std::string>("x"));
}

namespace {
sim::Process populate(Database& db, int n) {
  Transaction tr(db, db.simulation().stream("populate"));
  for (int i = 0; i < n; ++i) {
    tr.set("r/" + std::to_string(i), std::to_string(i));
  }
  co_await tr.commit();
}
sim::Process scan(Database& db, kv::RangeOptions o, std::vector<std::string>& keys) {
  Transaction tr(db, db.simulation().stream("scan"));
  for (const auto& kv : co_await tr.get_range("r/", "r0", o)) {
    keys.push_back(kv.key);
  }
}
}  // namespace

TEST_CASE("get_range honours limit and reverse") {
  sim::Simulation sim(1);
  Database db(sim, fixed_latencies());
  sim.spawn(populate(db, 5));
  sim.run();
  std::vector<std::string> fwd, rev;
  sim.spawn(scan(db, kv::RangeOptions{2, false, false}, fwd));
  sim.spawn(scan(db, kv::RangeOptions{1, true, true}, rev));
  sim.run();
  CHECK(fwd == std::vector<std::string>{"r/0", "r/1"});
  CHECK(rev == std::vector<std::string>{"r/4"});
}

namespace {
sim::Process slow_reader(Database& db, sim::Duration hold, Attempt& a) {
  Transaction tr(db, db.simulation().stream("slow"));
  co_await tr.get_read_version();
  co_await sim::sleep(hold);
  try {
    a.reads.push_back(co_await tr.get("k"));
  } catch (const Error& e) {
    a.error = e.code;
  }
  a.done = true;
}
}  // namespace

TEST_CASE("reads more than 5 s behind fail with transaction_too_old (1007)") {
  sim::Simulation sim(1);
  Database db(sim, fixed_latencies());
  Attempt young, old;
  sim.spawn(slow_reader(db, 4 * sim::kSecond, young));
  sim.spawn(slow_reader(db, 6 * sim::kSecond, old));
  sim.run();
  CHECK_FALSE(young.error);
  REQUIRE(old.error);
  CHECK(*old.error == ErrorCode::transaction_too_old);
}

namespace {
sim::Process stamp_writer(Database& db, int i, std::vector<std::string>& stamps) {
  Transaction tr(db, db.simulation().stream("stamp/" + std::to_string(i)));
  tr.set_versionstamped_key("log/" + std::string(10, '\0'), 4, std::to_string(i));
  co_await tr.commit();
  stamps.push_back(tr.versionstamp());
}
}  // namespace

TEST_CASE("versionstamps are unique and ordered by commit version then batch order") {
  sim::Simulation sim(1);
  Database db(sim, fixed_latencies());
  std::vector<std::string> stamps;
  for (int i = 0; i < 30; ++i) {
    sim.call_at(i * 300 * sim::kMicrosecond, sim.intern_kind("start"),
                [&db, &stamps, i] { db.simulation().spawn(stamp_writer(db, i, stamps)); });
  }
  sim.run();
  REQUIRE(stamps.size() == 30);
  std::vector<std::string> sorted = stamps;
  std::sort(sorted.begin(), sorted.end());
  CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
  CHECK(sorted == stamps);  // equal latencies: completion order is commit order
  std::size_t log_keys = 0;
  for (const auto& [key, e] : db.store().ordered()) {
    log_keys += key.rfind("log/", 0) == 0 ? 1 : 0;
  }
  CHECK(log_keys == 30);
  CHECK(db.stats().batches < 30);  // some transactions shared a batch (distinct batch order)
}

namespace {
sim::Process backoff_probe(Database& db, std::vector<sim::Duration>& delays,
                           std::vector<sim::Duration>& bases, ErrorCode code, int n) {
  Transaction tr(db, db.simulation().stream("backoff"));
  for (int i = 0; i < n; ++i) {
    bases.push_back(tr.backoff());
    sim::Time t0 = db.simulation().now();
    co_await tr.on_error(Error(code));
    delays.push_back(db.simulation().now() - t0);
  }
}
sim::Process fatal_probe(Database& db, bool& rethrown) {
  Transaction tr(db, db.simulation().stream("fatal"));
  try {
    co_await tr.on_error(Error(ErrorCode::key_too_large));
  } catch (const Error& e) {
    rethrown = e.code == ErrorCode::key_too_large;
  }
}
}  // namespace

TEST_CASE("onError: delay U[0,b), b from 10 ms doubling to 1 s; too_old flat 10 ms") {
  sim::Simulation sim(1);
  Database db(sim, fixed_latencies());
  std::vector<sim::Duration> delays, bases;
  sim.spawn(backoff_probe(db, delays, bases, ErrorCode::not_committed, 10));
  sim.run();
  std::vector<sim::Duration> expected_bases = {10, 20, 40, 80, 160, 320, 640, 1000, 1000, 1000};
  for (std::size_t i = 0; i < bases.size(); ++i) {
    CHECK(bases[i] == expected_bases[i] * sim::kMillisecond);
    CHECK(delays[i] >= 0);
    CHECK(delays[i] < bases[i]);
  }
  std::vector<sim::Duration> flat, flat_bases;
  sim.spawn(backoff_probe(db, flat, flat_bases, ErrorCode::transaction_too_old, 3));
  sim.run();
  CHECK(flat == std::vector<sim::Duration>(3, 10 * sim::kMillisecond));
  CHECK(flat_bases == std::vector<sim::Duration>(3, 10 * sim::kMillisecond));
  bool rethrown = false;
  sim.spawn(fatal_probe(db, rethrown));
  sim.run();
  CHECK(rethrown);
}

TEST_CASE("injected faults end commits in 1021; some of those did apply") {
  sim::Simulation sim(7);
  DatabaseConfig c = fixed_latencies();
  c.commit_unknown_probability = 1.0;
  Database db(sim, c);
  std::vector<Attempt> attempts(40);
  for (std::size_t i = 0; i < attempts.size(); ++i) {
    sim.spawn(read_modify_write(db, "k/" + std::to_string(i), std::to_string(i), false, 0,
                                attempts[i]));
  }
  sim.run();
  std::size_t applied = 0;
  for (std::size_t i = 0; i < attempts.size(); ++i) {
    REQUIRE(attempts[i].error);
    CHECK(*attempts[i].error == ErrorCode::commit_unknown_result);
    applied += db.store().latest("k/" + std::to_string(i)) ? 1 : 0;
  }
  CHECK(applied == db.stats().unknown_applied);
  CHECK(applied > 5);
  CHECK(applied < 35);
}

TEST_CASE("bad input gets a clear error") {
  DatabaseConfig c;
  c.commit_latency_min = 3 * sim::kMillisecond;
  c.commit_latency_max = 1 * sim::kMillisecond;
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("commit_latency"));
  c = DatabaseConfig{};
  c.commit_unknown_probability = 1.5;
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("commit_unknown_probability"));
  sim::Simulation sim(1);
  Database db(sim);
  Transaction tr(db, sim.stream("x"));
  CHECK_THROWS_WITH(tr.set(std::string(10'001, 'k'), "v"), Catch::Contains("key_too_large"));
  CHECK_THROWS_WITH(tr.set("k", std::string(100'001, 'v')), Catch::Contains("value_too_large"));
  CHECK_THROWS_WITH(tr.versionstamp(), Catch::Contains("after a commit"));
}
