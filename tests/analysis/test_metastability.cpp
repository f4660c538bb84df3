// The metastability report on synthetic time series: one metric recovers after the trigger is
// removed, one stays stuck, one never notices. The demo-run check is
// tests/analysis/metastability_demo.sh (ctest analysis/metastability_demo).
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "analysis/metastability.hpp"

using namespace skysim::analysis;

namespace {

// Rows every 10 s from 0 to 600 s. Before the trigger (120 s) every metric wobbles around its
// level; during the trigger (120..240 s) `recovering` and `stuck` jump; after it `recovering`
// settles back within 60 s, `stuck` stays high, `calm` never moves.
std::string synthetic_csv() {
  std::string csv = "time_ns,time_s,calm,recovering,stuck,served\n";
  double served = 0;
  for (int t = 0; t <= 600; t += 10) {
    double wobble = (t / 10 % 3 - 1) * 0.5;  // -0.5, 0, +0.5: a small deterministic noise
    double recovering = 10 + wobble;
    double stuck = 20 + wobble;
    if (t >= 120 && t < 240) {
      recovering = 40;
      stuck = 80;
    } else if (t >= 240 && t < 300) {
      recovering = 25;  // draining: still out of band for a minute after the trigger
      stuck = 80;
    } else if (t >= 300) {
      stuck = 75;  // the restart loop: the trigger is gone, the load it created is not
    }
    served += t >= 120 && t < 240 ? 500 : 1000;  // a counter: 100/s, halved during the trigger
    csv += std::to_string(static_cast<long long>(t) * 1000000000LL) + "," + std::to_string(t) +
           "," + std::to_string(5 + wobble) + "," + std::to_string(recovering) + "," +
           std::to_string(stuck) + "," + std::to_string(served) + "\n";
  }
  return csv;
}

const MetricRecovery& find(const MetastabilityReport& r, const std::string& name) {
  for (const auto& m : r.metrics) {
    if (m.column == name) {
      return m;
    }
  }
  FAIL("no metric " << name);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("metastability: recovering, stuck and unaffected metrics are told apart") {
  auto table = TimeSeriesTable::parse_csv(synthetic_csv(), "synthetic.csv");
  table.counters_to_rates({"served"});
  Trigger trig{"batch stops", 120, 240, 0};
  auto rep = analyse_metastability(table, trig, MetastabilityOptions{});

  const auto& calm = find(rep, "calm");
  CHECK(calm.status == Recovery::kUnaffected);
  CHECK(calm.mean == Approx(5.0).margin(0.05));

  const auto& rec = find(rep, "recovering");
  CHECK(rec.status == Recovery::kRecovered);
  REQUIRE(rec.left_at_s);
  CHECK(*rec.left_at_s == 120);
  REQUIRE(rec.returned_at_s);
  CHECK(*rec.returned_at_s == 300);  // the first row of the first 3 in-band rows after 240 s
  CHECK(rec.band_low < 10);
  CHECK(rec.band_high > 10);

  const auto& stuck = find(rep, "stuck");
  CHECK(stuck.status == Recovery::kStayedDegraded);
  CHECK_FALSE(stuck.returned_at_s);
  CHECK(stuck.last == Approx(75));

  // The counter became a rate (100/s before, 50/s during): it left and came back.
  const auto& served = find(rep, "served:rate");
  CHECK(served.mean == Approx(100));
  CHECK(served.status == Recovery::kRecovered);
  CHECK(*served.returned_at_s == 240);  // the row whose interval is the first after it

  CHECK(rep.count(Recovery::kStayedDegraded) == 1);
  std::string text = rep.format();
  CHECK_THAT(text, Catch::Contains("STAYED DEGRADED"));
  CHECK_THAT(text, Catch::Contains("FLAG: 1 metric(s) stayed degraded"));
  Json j = Json::parse(rep.to_json().dump());
  CHECK(j.at("counts").at("stayed_degraded").as_int() == 1);
  CHECK(j.at("trigger").at("end_s").as_number() == 240);
}

TEST_CASE("metastability: a longer hold or a short horizon changes the verdict as it should") {
  auto table = TimeSeriesTable::parse_csv(synthetic_csv(), "synthetic.csv");
  MetastabilityOptions strict;
  strict.hold = 40;  // more rows than remain after 300 s: nothing can be seen to return
  auto rep = analyse_metastability(table, {"t", 120, 240, 0}, strict);
  CHECK(find(rep, "recovering").status == Recovery::kStayedDegraded);
  // Evaluated only until 290 s (e.g. the next trigger starts there): still draining.
  auto early = analyse_metastability(table, {"t", 120, 240, 290}, MetastabilityOptions{});
  CHECK(find(early, "recovering").status == Recovery::kStayedDegraded);
  // Only the metrics asked for.
  MetastabilityOptions only;
  only.metrics = {"stuck"};
  CHECK(analyse_metastability(table, {"t", 120, 240, 0}, only).metrics.size() == 1);
}

TEST_CASE("metastability: the band uses the baseline window only") {
  auto table = TimeSeriesTable::parse_csv(synthetic_csv(), "synthetic.csv");
  MetastabilityOptions o;
  o.baseline_s = 30;  // rows at 100 and 110 s only
  auto rep = analyse_metastability(table, {"t", 120, 240, 0}, o);
  CHECK(find(rep, "calm").status == Recovery::kNoBaseline);  // 2 rows are not enough
  o.baseline_s = 60;
  rep = analyse_metastability(table, {"t", 120, 240, 0}, o);
  CHECK(find(rep, "calm").baseline_rows == 5);
}

TEST_CASE("metastability: bad input is named") {
  auto table = TimeSeriesTable::parse_csv(synthetic_csv(), "synthetic.csv");
  CHECK_THROWS_WITH(analyse_metastability(table, {"t", 240, 120, 0}, {}), Catch::Contains("ends"));
  CHECK_THROWS_WITH(analyse_metastability(table, {"t", 120, 900, 0}, {}),
                    Catch::Contains("strictly inside"));
  CHECK_THROWS_WITH(TimeSeriesTable::parse_csv("a,b\n1,2\n", "x.csv"),
                    Catch::Contains("no time_s column"));
  CHECK_THROWS_WITH(TimeSeriesTable::parse_csv("time_ns,time_s,a\n1,2\n", "x.csv"),
                    Catch::Contains("x.csv:2"));
  CHECK_THROWS_WITH(TimeSeriesTable::parse_csv("time_ns,time_s,a\n1,2,zz\n", "x.csv"),
                    Catch::Contains("'zz' is not a number"));
}

TEST_CASE("metastability: empty cells (late series) and counters from summary.json") {
  auto table = TimeSeriesTable::parse_csv("time_ns,time_s,late\n0,0,\n1,1,\n2,2,4\n", "x.csv");
  REQUIRE(table.values[0].size() == 3);
  CHECK_FALSE(table.values[0][0]);
  CHECK(*table.values[0][2] == 4);
  auto counters = counter_columns(Json::parse(
      R"({"metrics": {"a{x=1}": {"type": "counter", "value": 3},
                      "g": {"type": "gauge", "value": 1}}})"));
  CHECK(counters == std::set<std::string>{"a{x=1}"});
  CHECK_THROWS_AS(counter_columns(Json::parse("{}")), JsonError);
}

TEST_CASE("metastability: series keys in the header keep their labels") {
  // Quoted as written now (RFC 4180), bare, and with the ';' of older files: one name.
  for (const char* header : {"time_ns,time_s,\"r{a=1,b=2}\",q\n", "time_ns,time_s,r{a=1,b=2},q\n",
                             "time_ns,time_s,r{a=1;b=2},q\n", "time_ns,time_s,time_utc,\"r{a=1,b=2}\",q\n"}) {
    bool utc = std::string(header).find("time_utc") != std::string::npos;
    auto t = TimeSeriesTable::parse_csv(
        std::string(header) + (utc ? "0,0,1970-01-01T00:00:00Z,1,2\n" : "0,0,1,2\n"), "x.csv");
    REQUIRE(t.columns == std::vector<std::string>{"r{a=1,b=2}", "q"});
    CHECK(*t.values[1][0] == 2);
  }
}
