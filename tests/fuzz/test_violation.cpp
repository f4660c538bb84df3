// An invariant violation is located at the event that broke it: seed, simulated time, event
// kind and actor, and the command line that stops there.
#include <catch2/catch.hpp>

#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"

using namespace skysim;
using namespace skysim::scenarios;

namespace {

// A test-only kind: answers every request at once and claims "at most `limit` requests", which
// the (limit+1)-th request breaks. With `settle_only`, it breaks only when the run finishes.
class Limited final : public Instance {
 public:
  Limited(World& w, const HostContext& ctx)
      : Instance(ctx),
        sim_(w.sim()),
        limit_(ctx.params.count("limit")),
        settle_only_(ctx.params.flag("settle_only")),
        recover_(ctx.params.count("recover")),
        forget_(ctx.params.count("forget")) {}
  void handle(Request r) override {
    if (++served_ == limit_ + 1) broke_at_ = sim_.now();
    if (served_ == forget_) {
      forgotten_.push_back(std::move(r));  // never answered, never failed
      return;
    }
    r.complete({true, ""});
  }
  void finish(World&) override { finished_ = true; }
  std::vector<Invariant> invariants() override {
    return {{"limited.at-most", [this]() -> std::string {
               if (settle_only_) return finished_ ? "broke while settling" : "";
               // With `recover`, the breach lasts only `recover` requests, then heals.
               bool broken = served_ > limit_ && (recover_ == 0 || served_ <= limit_ + recover_);
               return broken ? "served " + std::to_string(served_) : "";
             }}};
  }
  static inline sim::Time broke_at_ = -1;

 private:
  sim::Simulation& sim_;
  std::int64_t limit_;
  bool settle_only_;
  std::int64_t recover_;
  std::int64_t forget_;
  bool finished_ = false;
  std::int64_t served_ = 0;
  std::vector<Request> forgotten_;
};

const Registry& test_registry() {
  static const Registry r = [] {
    Registry reg;
    ServiceKind k;
    k.name = "limited";
    k.doc = "test kind";
    k.params = {{"limit", sim::ParamType::Count, "", "100", 0, 1e9, {}, "test", false},
                {"settle_only", sim::ParamType::Bool, "", "false", {}, {}, {}, "test", false},
                {"recover", sim::ParamType::Count, "", "0", 0, 1e9, {}, "test", false},
                {"forget", sim::ParamType::Count, "", "0", 0, 1e9, {}, "test", false}};
    k.endpoints = {"serve"};
    k.build = [](World& w, const HostContext& c) -> std::unique_ptr<Instance> {
      return std::make_unique<Limited>(w, c);
    };
    reg.add(k);
    return reg;
  }();
  return r;
}

std::string scenario(bool settle_only, const std::string& extra = "",
                     const std::string& duration = "30s", const std::string& rate = "100/s") {
  return std::string(R"(name: limited
epoch: 2026-01-01T00:00:00Z
duration: )") + duration + R"(
seed: 9
datacenters:
  dc:
    services:
      l:
        kind: limited
        params: {settle_only: )" +
         (settle_only ? "true" : "false") + (extra.find("limit:") == std::string::npos ? ", limit: 500" : "") + extra + R"(}
sources:
  s: {from: dc, target: l.serve, rate: )" + rate + R"(}
)";
}

}  // namespace

TEST_CASE("a violated invariant is located at the event that broke it") {
  auto s = load_scenario_text(scenario(false), "limited.yaml", test_registry());
  ScenarioRun run(s, test_registry());
  Limited::broke_at_ = -1;
  auto r = run.run();
  sim::Time broke_at = Limited::broke_at_;  // in the first run; the replays set it again
  REQUIRE(broke_at > 0);
  REQUIRE_FALSE(r.invariants_hold());
  REQUIRE(r.violation);
  const Violation& v = *r.violation;
  CHECK(v.invariant == "limited.at-most");
  CHECK(v.instance == "dc/l/0");
  CHECK_FALSE(v.at_end);
  CHECK(v.at == broke_at);            // the 501st request, ~5 s in
  CHECK(v.kind == "source.arrival");  // the source's arrival handed it over
  CHECK(v.error == "served 501");     // the state right after that event, not later
  CHECK(v.event > 500);
  CHECK(v.event < r.events);
  std::string table = run.summary_table(r, 0);
  INFO(table);
  CHECK(table.find("first broken by event #" + std::to_string(v.event)) != std::string::npos);
  CHECK(table.find("--seed 9 --until " + sim::format_iso8601(s.epoch_unix_ns + broke_at)) !=
        std::string::npos);
}

TEST_CASE("an invariant that breaks only when the run settles is reported as such") {
  auto s = load_scenario_text(scenario(true), "limited.yaml", test_registry());
  ScenarioRun run(s, test_registry());
  auto r = run.run();
  REQUIRE(r.violation);
  CHECK(r.violation->at_end);
  CHECK(run.summary_table(r, 0).find("broke only when the run ended") != std::string::npos);
}

TEST_CASE("a passing run replays nothing and reports no violation") {
  auto s = load_scenario_file(std::string(SKYSIM_SOURCE_DIR) + "/scenarios/validation-mmck.yaml",
                              builtin_registry());
  ScenarioRun run(s, builtin_registry());
  auto r = run.run();
  CHECK(r.invariants_hold());
  CHECK_FALSE(r.violation);
}

TEST_CASE("a violation that comes and goes is caught while the run goes") {
  // Broken from the 501st request to the 700th (about 5 s to 7 s in), holding again at the end.
  auto s = load_scenario_text(scenario(false, ", recover: 200"), "limited.yaml", test_registry());
  {
    ScenarioRun end_only(s, test_registry());
    end_only.set_watch_invariants(false);
    CHECK(end_only.run().invariants_hold());  // what an end-of-run check alone would say
  }
  ScenarioRun run(s, test_registry());
  Limited::broke_at_ = -1;
  auto r = run.run();
  sim::Time broke_at = Limited::broke_at_;
  REQUIRE_FALSE(r.invariants_hold());
  bool reported = false;
  for (const auto& inv : r.invariants) {
    if (inv.name != "limited.at-most") continue;
    INFO(inv.error);
    reported = inv.error.find("held again at the end") != std::string::npos;
  }
  CHECK(reported);
  REQUIRE(r.violation);
  CHECK_FALSE(r.violation->at_end);
  CHECK(r.violation->at == broke_at);
  CHECK(r.violation->error == "served 501");
  CHECK(r.violation->kind == "source.arrival");
}

TEST_CASE("a request never answered fails requests.answered, though accounting balances") {
  // 1 request/s for 10 min; the 30th is kept for ever. It is "in flight", so
  // requests.accounted holds; requests.answered breaks 5 min after it was issued.
  auto s = load_scenario_text(scenario(false, ", limit: 100000, forget: 30", "10m", "1/s"),
                              "limited.yaml", test_registry());
  ScenarioRun run(s, test_registry());
  auto r = run.run();
  bool accounted = false, answered = true;
  for (const auto& inv : r.invariants) {
    if (inv.name == "requests.accounted") accounted = inv.error.empty();
    if (inv.name == "requests.answered") {
      answered = inv.error.empty();
      INFO(inv.error);
      CHECK(inv.error.find("request #30 issued at") != std::string::npos);
    }
  }
  CHECK(accounted);
  CHECK_FALSE(answered);
  REQUIRE(r.violation);
  CHECK(r.violation->invariant == "requests.answered");
  CHECK_FALSE(r.violation->at_end);
  // Issued about 30 s in; broken at the first event more than 5 min after that.
  CHECK(r.violation->at > 5 * sim::kMinute + 20 * sim::kSecond);
  CHECK(r.violation->at < 5 * sim::kMinute + 45 * sim::kSecond);
}
