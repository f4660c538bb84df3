#include <catch2/catch.hpp>
#include <cmath>

#include "analysis/comparison.hpp"

using namespace skysim::analysis;
using Catch::Detail::Approx;

namespace {

SweepSpec policy_sweep() {
  SweepSpec s;
  s.scenario = "fanout.yaml";
  s.vary = {parse_vary("load=1,2,4")};
  s.seeds = parse_seeds("1..5");
  return s;
}

// latency = 10 * load + small seed noise; variant 1 (load 2) fails at seed 3 when asked.
std::vector<RunRecord> records(const SweepSpec& s, bool with_failure) {
  std::vector<RunRecord> out;
  const double loads[] = {1, 2, 4};
  for (const auto& run : s.runs()) {
    RunRecord r;
    r.run = run;
    r.ok = !(with_failure && run.variant == 1 && run.seed == 3);
    if (r.ok) {
      r.metrics["latency_ms"] = 10 * loads[run.variant] + 0.1 * static_cast<double>(run.seed);
      r.metrics["errors"] = 1;  // the same everywhere: intervals overlap
    } else {
      r.exit_code = 3;
      r.failure = "exit 3: invariant violated";
    }
    out.push_back(r);
  }
  return out;
}

}  // namespace

TEST_CASE("tables give mean, CI, ratio to the first variant and overlap marks") {
  auto s = policy_sweep();
  auto c = compare_runs(s, records(s, false));
  CHECK(c.runs_total == 15);
  CHECK(c.runs_ok == 15);
  CHECK(c.exit_status() == 0);
  REQUIRE(c.tables.size() == 2);
  CHECK(c.tables[0].metric == "errors");  // metrics in name order
  const auto& lat = c.tables[1];
  REQUIRE(lat.rows.size() == 3);
  CHECK(lat.rows[0].summary.mean == Approx(10.3));
  CHECK(lat.rows[2].summary.mean == Approx(40.3));
  CHECK(lat.rows[2].ratio_to_first == Approx(40.3 / 10.3));
  CHECK_FALSE(lat.rows[1].overlaps_first);
  CHECK(c.tables[0].rows[2].overlaps_first);
  REQUIRE(lat.trend);
  CHECK(lat.trend->slope == Approx(10.0));

  auto text = format_tables(c);
  CHECK_THAT(text, Catch::Contains("DIFFERS"));
  CHECK_THAT(text, Catch::Contains("trend: 10 per unit of load"));
  auto csv = to_csv(c);
  CHECK_THAT(csv, Catch::StartsWith("metric,unit,variant,label,n,mean,sd,ci95_low,ci95_high"));
  CHECK_THAT(csv, Catch::Contains("latency_ms,ms,2,load=4,5,40."));
  CHECK_THAT(text, Catch::Contains("latency_ms  [ms]"));
  // Paired on the seeds: +10 and +30 on every seed differ; "errors" is identical (diff 0).
  REQUIRE(lat.rows[1].paired);
  CHECK(lat.rows[1].paired->n == 5);
  CHECK(lat.rows[1].paired->mean == Approx(10.0));
  CHECK(lat.rows[1].paired->differs);
  CHECK_FALSE(lat.rows[0].paired);  // the first variant is the baseline
  REQUIRE(c.tables[0].rows[2].paired);
  CHECK(c.tables[0].rows[2].paired->p_value == 1);
  CHECK_FALSE(c.tables[0].rows[2].paired->differs);
  CHECK(to_json(c).at("tables").as_array()[0].at("rows").as_array()[2].at("paired").at(
            "p_value").as_number() == 1);
}

TEST_CASE("failed runs are listed with their reproducer and fail the compare") {
  auto s = policy_sweep();
  auto c = compare_runs(s, records(s, true));
  CHECK(c.exit_status() == 1);
  REQUIRE(c.failures.size() == 1);
  CHECK(c.failures[0].reproducer == "skysim run fanout.yaml --seed 3 --set load=2");
  CHECK(c.tables[1].rows[1].summary.n == 4);  // the failed seed is left out, not zeroed
  CHECK_THAT(format_tables(c), Catch::Contains("reproduce: skysim run fanout.yaml --seed 3"));
  CHECK(to_json(c).at("exit_status").as_int() == 1);
}

TEST_CASE("a compare needs every run exactly once and known metrics") {
  auto s = policy_sweep();
  auto rs = records(s, false);
  auto missing = rs;
  missing.erase(missing.begin() + 4);
  CHECK_THROWS_WITH(compare_runs(s, missing), Catch::Contains("1 of 15 runs missing, e.g. run 4"));
  auto twice = rs;
  twice.push_back(rs[2]);
  CHECK_THROWS_WITH(compare_runs(s, twice), Catch::Contains("more than once: 2"));
  s.metrics = {"latency_ms", "p99"};
  CHECK_THROWS_WITH(compare_runs(s, rs), Catch::Contains("--metric p99: the runs did not report it"));
  s.metrics = {"latency_ms", "latncy_ms"};
  CHECK_THROWS_WITH(compare_runs(s, rs), Catch::Contains("did you mean 'latency_ms'?"));
  s.metrics = {"latency_ms"};
  CHECK(compare_runs(s, rs).tables.size() == 1);
}

TEST_CASE("pairs are the same seed in both variants, a failed seed drops its pair") {
  auto s = policy_sweep();
  auto c = compare_runs(s, records(s, true));  // variant 1 failed at seed 3
  REQUIRE(c.tables[1].rows[1].paired);
  CHECK(c.tables[1].rows[1].paired->n == 4);
  CHECK(c.tables[1].rows[1].paired->sd < 1e-9);  // the seed term cancels exactly in pairs
  CHECK(c.tables[1].rows[2].paired->n == 5);
}

TEST_CASE("a metric's unit comes from its name") {
  CHECK(metric_unit("requests.latency_ns{client=a,endpoint=serve}.p99") == "ns");
  CHECK(metric_unit("requests.latency_ns{client=a,endpoint=serve}.count") == "count");
  CHECK(metric_unit("queue.wait_ns.mean") == "ns");
  CHECK(metric_unit("mem.peak_mb") == "MB");
  CHECK(metric_unit("go.heap_bytes{host=x}") == "bytes");
  CHECK(metric_unit("queue.arrivals{host=east/web/0}") == "");
  CHECK(metric_unit("errors") == "");
}

TEST_CASE("results do not depend on the order records arrive in") {
  auto s = policy_sweep();
  auto rs = records(s, true);
  auto reversed = std::vector<RunRecord>(rs.rbegin(), rs.rend());
  CHECK(to_json(compare_runs(s, rs)).dump() == to_json(compare_runs(s, reversed)).dump());
  CHECK(to_csv(compare_runs(s, rs)) == to_csv(compare_runs(s, reversed)));
}

TEST_CASE("run records survive their JSON line exactly") {
  auto s = policy_sweep();
  auto rs = records(s, true);
  RunsHeader h{s, "xxh64:b", "xxh64:s"};
  auto back_h = header_from_line(header_line(h), "t:1");
  CHECK(back_h.spec.to_json().dump() == s.to_json().dump());
  CHECK(back_h.build == "xxh64:b");
  CHECK(back_h.scenario_hash == "xxh64:s");
  for (const auto& r : rs) {
    auto back = from_json_line(to_json_line(s, r), "t:2", back_h.spec);
    CHECK(back.run.index == r.run.index);
    CHECK(back.ok == r.ok);
    CHECK(back.metrics == r.metrics);
    CHECK(back.failure == r.failure);
    CHECK(to_json_line(back_h.spec, back) == to_json_line(s, r));
  }
  CHECK_THROWS_WITH(from_json_line("{\"run\": 1}", "shard-1-of-3.jsonl:7", s),
                    Catch::Contains("shard-1-of-3.jsonl:7: missing key \"variant\""));
  CHECK_THROWS_WITH(from_json_line(header_line(h), "x:5", s), Catch::Contains("second header"));
  CHECK_THROWS_WITH(header_from_line(to_json_line(s, rs[0]), "x:1"),
                    Catch::Contains("x:1: not a runs header"));
  auto line = to_json_line(s, rs[0]);
  auto forged = line.replace(line.find("\"seed\":1"), 8, "\"seed\":9");
  CHECK_THROWS_WITH(from_json_line(forged, "x:1", s), Catch::Contains("not a run of the sweep"));
}

TEST_CASE("summary.json metrics are flattened to dotted names") {
  auto j = Json::parse(R"({"metrics": {"a": 1, "ok": true, "mem": {"peak": 2.5}, "name": "x"}})");
  auto m = metrics_from_summary(j);
  CHECK(m.size() == 3);
  CHECK(m.at("mem.peak") == 2.5);
  CHECK(m.at("ok") == 1.0);
  CHECK_THROWS_WITH(metrics_from_summary(Json::parse("{}")), Catch::Contains("metrics"));

  // The kernel's series layout (sim/metrics.cpp).
  auto kernel = Json::parse(R"({"metrics": {
      "requests.ok{client=a}": {"type": "counter", "name": "requests.ok",
                                "labels": {"client": "a"}, "value": 42},
      "latency{client=a}": {"type": "histogram", "name": "latency", "labels": {"client": "a"},
                            "count": 3, "p99": 1500, "relative_error": 0.016,
                            "buckets": [[1, 2]]}}})");
  auto km = metrics_from_summary(kernel);
  CHECK(km.at("requests.ok{client=a}") == 42);
  CHECK(km.at("latency{client=a}.p99") == 1500);
  CHECK(km.count("latency{client=a}.relative_error") == 0);
  CHECK(km.size() == 3);
}
