#include "backends/etcd/interning_run.hpp"

#include <atomic>
#include <chrono>
#include <exception>
#include <map>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "backends/etcd/client.hpp"
#include "backends/etcd/transaction.hpp"
#include "components/uidalloc/allocators.hpp"
#include "components/uidalloc/interning.hpp"

namespace etcd {

void InterningRunConfig::validate() const {
  allocator.validate();
  auto fail = [](const std::string& what) {
    throw std::invalid_argument("etcd interning: " + what);
  };
  if (endpoint.empty()) fail("endpoint is empty");
  if (clients < 1 || clients > 1024) fail("clients must be in 1..1024");
  if (requests < 0) fail("requests must be >= 0");
  if (max_attempts < 1) fail("max_attempts must be >= 1");
}

namespace {

struct Tally {
  std::uint64_t acknowledged = 0, attempts = 0, not_committed = 0, gave_up = 0, failed = 0;
  std::vector<uidalloc::Acknowledgement> acks;
};

void client_loop(const InterningRunConfig& config, int index, std::atomic<std::int64_t>& next,
                 Tally& t) {
  Client client(config.endpoint);
  std::mt19937_64 rng(config.seed * 1'000'003 + static_cast<std::uint64_t>(index));
  auto allocator = uidalloc::make_allocator<KvBackend>(config.allocator, rng);
  Transaction tr(client, rng);
  for (;;) {
    std::int64_t n = next.fetch_add(1);
    if (n >= config.requests) return;
    std::string str = "uri/" + std::to_string(n);
    tr.reset();
    for (int attempt = 1;; ++attempt) {
      ++t.attempts;
      try {
        uidalloc::InternOutcome out =
            uidalloc::intern_in_transaction<KvBackend>(tr, *allocator, str).get();
        tr.commit();
        ++t.acknowledged;
        t.acks.push_back({str, out.uid});
        break;
      } catch (const NotCommitted& e) {
        ++t.not_committed;
        if (attempt >= config.max_attempts) {
          ++t.gave_up;
          break;
        }
        tr.on_error(e);
      } catch (const uidalloc::AllocationError&) {
        ++t.failed;
        break;
      }
    }
  }
}

// Every key under `prefix`, read in pages (etcd answers a range in one message).
void read_prefix(Client& client, const std::string& prefix, std::int64_t revision,
                 std::map<std::string, std::string>& out) {
  std::string from = prefix;
  const std::string end = uidalloc::prefix_end(prefix);
  for (int page = 0; page < 1'000'000; ++page) {  // bounded: 10^10 keys
    RangeResult r = client.range({from, end, revision, 10'000, false});
    for (KeyValue& kv : r.kvs) out[kv.key] = std::move(kv.value);
    if (r.kvs.size() < 10'000) return;
    from = r.kvs.back().key + '\0';
  }
  throw std::runtime_error("etcd interning: store too large to read back");
}

}  // namespace

InterningRunResult run_interning(const InterningRunConfig& config) {
  config.validate();
  {
    Client probe(config.endpoint, 2000);
    probe.range({"skysim/probe", "", 0, 0, false});  // one clear error before any thread starts
  }
  std::atomic<std::int64_t> next{0};
  std::vector<Tally> tallies(static_cast<std::size_t>(config.clients));
  std::vector<std::exception_ptr> errors(tallies.size());
  auto started = std::chrono::steady_clock::now();
  {
    std::vector<std::jthread> threads;
    for (int i = 0; i < config.clients; ++i) {
      threads.emplace_back([&, i] {
        try {
          client_loop(config, i, next, tallies[static_cast<std::size_t>(i)]);
        } catch (...) {
          errors[static_cast<std::size_t>(i)] = std::current_exception();
          next.store(config.requests);  // stop the others
        }
      });
    }
  }
  auto finished = std::chrono::steady_clock::now();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  InterningRunResult r;
  r.seconds = std::chrono::duration<double>(finished - started).count();
  uidalloc::InterningChecker checker;
  for (Tally& t : tallies) {
    r.acknowledged += t.acknowledged;
    r.attempts += t.attempts;
    r.not_committed += t.not_committed;
    r.gave_up += t.gave_up;
    r.failed += t.failed;
    for (auto& a : t.acks) checker.acknowledge(a.str, a.uid);
  }
  Client reader(config.endpoint, 60'000);
  std::map<std::string, std::string> store;
  std::int64_t revision = reader.range({"skysim/probe", "", 0, 0, false}).revision;
  read_prefix(reader, std::string(uidalloc::kStringToUid), revision, store);
  read_prefix(reader, std::string(uidalloc::kUidToString), revision, store);
  r.check = checker.check(store);
  return r;
}

}  // namespace etcd
