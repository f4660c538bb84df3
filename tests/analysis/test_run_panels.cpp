// The lines of a report panel from a small time series: columns matched by metric name, one
// line per label set, counters as per-interval rates and shares, and the chart's markers.
#include <catch2/catch.hpp>
#include <cmath>

#include "analysis/run_panels.hpp"
#include "analysis/run_report_body.hpp"
#include "analysis/svg_chart.hpp"

using namespace skysim::analysis;

namespace {

// Two datacenters' good and bad request counters and a gauge, sampled every 60 s.
TimeSeries counters() {
  TimeSeries ts;
  ts.columns = {"time_s", "user.requests.good{dc=east}", "user.requests.bad{dc=east}",
                "user.requests.good{dc=west}", "user.requests.bad{dc=west}",
                "go.threads{dc=east,host=east/dataplane/0}", "q.wait_ns{host=h}:p99"};
  ts.rows = {{0, 0, 0, 0, 0, 7, 1e6},
             {60, 90, 10, 60, 0, 700, 2e6},
             {120, 90, 10, 120, 0, 1400, 3e6},
             {180, 120, 70, 150, 30, 7, 4e6}};
  return ts;
}

}  // namespace

TEST_CASE("parse_column splits metric, labels and a histogram field") {
  auto c = parse_column("q.wait_ns{host=east/web/0,dc=east}:p99");
  CHECK(c.metric == "q.wait_ns:p99");
  REQUIRE(c.labels.size() == 2);
  CHECK(c.labels[0] == std::make_pair(std::string("host"), std::string("east/web/0")));
  // Files written before the header was quoted separated labels with ';'.
  CHECK(parse_column("q.wait_ns{host=east/web/0;dc=east}:p99").labels == c.labels);
  CHECK(parse_column("time_s").metric == "time_s");
  CHECK(parse_column("time_s").labels.empty());
}

TEST_CASE("a share panel is the first counter's share of both, per interval and label set") {
  sim::ReportPanel p{.title = "success",
                     .series = {"user.requests.good", "user.requests.bad"},
                     .unit = "%",
                     .how = sim::PanelHow::kSharePercent};
  auto d = panel_data(counters(), "dataplane", p);
  REQUIRE(d.lines.size() == 2);
  CHECK(d.lines[0].label == "east");
  CHECK(d.lines[1].label == "west");
  CHECK(std::isnan(d.lines[0].value[0]));  // no previous row
  CHECK(d.lines[0].value[1] == Approx(90.0));
  CHECK(std::isnan(d.lines[0].value[2]));  // no request in that interval: no share
  CHECK(d.lines[0].value[3] == Approx(100.0 * 30 / 90));
  CHECK(d.lines[1].value[3] == Approx(50.0));
  CHECK(d.lines[0].points() == 2);
}

TEST_CASE("a rate panel divides each row's increase by the interval; a level panel divides units") {
  sim::ReportPanel rate{.title = "good", .series = {"user.requests.good"}, .unit = "per second",
                        .how = sim::PanelHow::kRate};
  auto r = panel_data(counters(), "k", rate);
  REQUIRE(r.lines.size() == 2);
  CHECK(r.lines[0].value[1] == Approx(1.5));
  CHECK(r.lines[0].value[2] == Approx(0.0));
  CHECK(r.lines[1].value[3] == Approx(0.5));
  sim::ReportPanel level{.title = "p99", .series = {"q.wait_ns:p99"}, .unit = "ms",
                         .divide_by = 1e6};
  auto l = panel_data(counters(), "k", level);
  REQUIRE(l.lines.size() == 1);
  CHECK(l.lines[0].value[3] == Approx(4.0));
  sim::ReportPanel absent{.title = "none", .series = {"no.such.metric"}, .unit = "x"};
  CHECK(panel_data(counters(), "k", absent).lines.empty());
}

TEST_CASE("a panel's chart carries its series, limits and markers as data attributes") {
  sim::ReportPanel p{.title = "threads",
                     .series = {"go.threads"},
                     .unit = "threads",
                     .log_y = true,
                     .limits = {{"max_threads", 10000}}};
  ChartContext ctx{1775487600.0, 0, 180, {{120, "1 band-aid", "band-aid"}}, {{60, "A", "died"}}};
  auto html = panel_html(panel_data(counters(), "dataplane", p), ctx);
  CHECK_THAT(html, Catch::Contains("data-series=\"go.threads{dc=east,host=east/dataplane/0}\" "
                                   "data-points=\"4\""));
  CHECK_THAT(html, Catch::Contains("data-limit=\"max_threads\""));
  CHECK_THAT(html, Catch::Contains("<g class=\"change\" data-at=\"120\"><title>band-aid"));
  CHECK_THAT(html, Catch::Contains("<g class=\"phase\"><title>died"));
  CHECK_THAT(html, Catch::Contains("date (UTC)"));
  CHECK_THAT(html, Catch::Contains(">15:00<"));  // 1775487600 = Mon 06 Apr 2026 15:00Z
}

TEST_CASE("a change's chart label is its number and the note's first words") {
  CHECK(change_tag(2, "band-aid \xE2\x80\x94 a random 127.x.y.z source address") == "2 band-aid");
  CHECK(change_tag(3, "fix: group.SetLimit(50)") == "3 fix");
  CHECK(change_tag(4, "band-aid removed once the fix is out (PM)") ==
        "4 band-aid removed once\xE2\x80\xA6");  // cut at a word, within 24 characters
}
