// The `fdb` kind: a FoundationDB cluster (models/fdb: GRV, storage reads, the commit proxy's
// batches, the resolver's conflict check, onError's backoff; domain.md §6) as one service. It
// serves no Request endpoint: a go-service reaches it through a client with driver: fdb and
// runs transactions with the uid_alloc and fdb_txn steps (scenarios/program.cpp), as a Go
// service links the fdb client library. Issue 26, M6 (docs/design/composition.md).
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/fdb/database.hpp"
#include "scenarios/fdb_service.hpp"
#include "scenarios/interning_books.hpp"
#include "scenarios/param_builder.hpp"

namespace skysim::scenarios {
namespace {

using sim::ParamType;

class FdbService final : public Instance, public FdbCluster {
 public:
  FdbService(World& w, const HostContext& ctx)
      : Instance(ctx), db_(std::make_unique<fdb::Database>(w.sim(), database_config(ctx.params))) {
    auto& m = w.metrics();
    const sim::Labels host = {{"host", path()}};
    m.counter_fn("fdb.commits", host, [this] { return double(db_->stats().committed); });
    m.counter_fn("fdb.conflicts", host, [this] { return double(db_->stats().conflicts); });
    m.counter_fn("fdb.too_old", host, [this] { return double(db_->stats().too_old); });
    m.gauge_fn("uid.conflict_rate", host, [this] { return tally_.conflict_rate(); });
    m.gauge_fn("uid.retries_per_request", host, [this] { return tally_.retries_per_request(); });
    m.counter_fn("uid.commit_unknown_results", host,
                 [this] { return double(tally_.unknown_results); });
  }

  fdb::Database& database() override { return *db_; }
  fdb::InterningResults& interning_tally() override { return tally_; }
  void acknowledge(const std::string& str, std::uint64_t uid) override {
    books_.acknowledge(str, uid);
  }
  bool available() const override { return up(); }

  void handle(Request r) override { r.complete({false, "no_endpoint"}); }  // the loader checks

  // The commit_unknown_result fault hook: a window of proxy failures (skysim fuzz).
  void set(std::string_view name, const sim::ParamValue& v) override {
    if (name == "commit_unknown_probability") {
      db_->set_commit_unknown_probability(v.number);
      return;
    }
    Instance::set(name, v);
  }

  std::vector<Invariant> invariants() override { return books_.invariants(*db_); }

 private:
  std::unique_ptr<fdb::Database> db_;
  fdb::InterningResults tally_;
  InterningBooks books_;
};

}  // namespace

std::vector<sim::ParamSpec> database_params() {
  return {
      param("commit_capacity", ParamType::Rate, "commits/s", "50k/s",
            "resolver/commit pipeline capacity (assumption, domain.md §6.3)", 1, 1e9),
      param("commit_batch_interval", ParamType::Duration, "", "1ms",
            "commit proxy batch (domain.md §6.1)", 0, 1e9),
      settable(param("commit_unknown_probability", ParamType::Percent, "", "0%",
                     "injected commit_unknown_result (1021) per commit", 0, 1)),
  };
}

fdb::DatabaseConfig database_config(const sim::ParamValues& p) {
  fdb::DatabaseConfig db;
  db.commit_capacity_per_s = p.rate_per_s("commit_capacity");
  db.commit_batch_interval = p.duration("commit_batch_interval");
  db.commit_unknown_probability = p.fraction("commit_unknown_probability");
  db.validate();
  return db;
}

FdbCluster* fdb_cluster_of(Instance* host) { return dynamic_cast<FdbService*>(host); }

ServiceKind fdb_kind() {
  return ServiceKind{
      .name = "fdb",
      .doc =
          "a FoundationDB cluster (models/fdb: versions, MVCC reads, batched commits, the "
          "resolver's conflict check) as one service, reached by go-service clients with "
          "driver: fdb through the uid_alloc and fdb_txn steps",
      .params = database_params(),
      .endpoints = {},
      .build = [](World& w, const HostContext& c) -> std::unique_ptr<Instance> {
        return std::make_unique<FdbService>(w, c);
      },
      .report_panels =
          [](const std::vector<HostContext>&) {
            return std::vector<sim::ReportPanel>{
                {.title = "Conflicts per commit attempt and retries per interning, since the start",
                 .series = {"uid.conflict_rate", "uid.retries_per_request"},
                 .unit = "ratio"}};
          },
      .check_config =
          [](const HostContext& c) {
            if (c.host_count != 1) {
              throw std::invalid_argument(
                  "an fdb service is one cluster: write hosts: 1 (its capacity is "
                  "commit_capacity)");
            }
            database_config(c.params);
          },
  };
}

}  // namespace skysim::scenarios
