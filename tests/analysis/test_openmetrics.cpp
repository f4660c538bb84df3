// The OpenMetrics writer on small hand-made runs: name and label mapping, typing, escaping,
// timestamps, ordering, rows at one instant, and the inputs it refuses. The round trip into a
// real Prometheus is tests/analysis/openmetrics_prometheus.sh (ctest analysis/openmetrics_*).
#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>
#include <string>

#include "analysis/openmetrics.hpp"

using namespace skysim::analysis;
using Type = SeriesDescription::Type;

namespace {

constexpr std::int64_t kEpoch = 1775433600LL * 1000000000LL;  // 2026-04-06T00:00:00Z
constexpr std::int64_t kS = 1000000000LL;

// Appends one row; `cells` in column order, NaN = an empty cell.
void row(TimeSeriesTable& t, std::int64_t time_ns, const std::vector<double>& cells) {
  t.time_ns.push_back(time_ns);
  t.time_s.push_back(static_cast<double>(time_ns) / 1e9);
  if (t.values.empty()) t.values.resize(t.columns.size());
  for (std::size_t c = 0; c < cells.size(); ++c) {
    t.values[c].push_back(std::isnan(cells[c]) ? std::nullopt : std::optional<double>(cells[c]));
  }
}

const double kEmpty = std::nan("");

// A counter, a gauge and a histogram, registered in an order that is not the output order;
// the last tick and the final sample share the instant 20 s.
SampledRun small_run() {
  SampledRun run;
  run.epoch_unix_ns = kEpoch;
  run.series["z.count{host=h1}"] = {"z.count", {{"host", "h1"}}, Type::kCounter};
  run.series["a.level"] = {"a.level", {}, Type::kGauge};
  run.series["lat_ns{ep=get}"] = {"lat_ns", {{"ep", "get"}}, Type::kHistogram};
  TimeSeriesTable& t = run.table;
  t.columns = {"z.count{host=h1}",     "a.level",
               "lat_ns{ep=get}:count", "lat_ns{ep=get}:p50",
               "lat_ns{ep=get}:p90",   "lat_ns{ep=get}:p99",
               "lat_ns{ep=get}:p999",  "lat_ns{ep=get}:max"};
  row(t, 10 * kS, {5, 1.5, 3, 100, 200, 300, 300, 310});
  row(t, 20 * kS, {7, kEmpty, 2, 50, 60, 70, 70, 80});
  row(t, 20 * kS, {8, -2, 0, 0, 0, 0, 0, 0});
  row(t, 30 * kS, {8, kEmpty, 0, 0, 0, 0, 0, 0});
  return run;
}

std::string without_help(const std::string& text) {
  std::istringstream in(text);
  std::string out, line;
  while (std::getline(in, line)) {
    if (line.rfind("# HELP ", 0) != 0) out += line + "\n";
  }
  return out;
}

std::string help_of(const std::string& text, const std::string& family) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# HELP " + family + " ", 0) == 0) return line;
  }
  return "";
}

}  // namespace

TEST_CASE("openmetrics: names map to [A-Za-z0-9_] with a skysim_ prefix", "[openmetrics]") {
  CHECK(openmetrics_name("memcached.bind_errors") == "skysim_memcached_bind_errors");
  CHECK(openmetrics_name("a/b-c:d.e") == "skysim_a_b_c_d_e");
  CHECK(openmetrics_label_name("host") == "host");
  CHECK(openmetrics_label_name("k8s.pod-name") == "k8s_pod_name");
  CHECK(openmetrics_label_name("1st") == "_1st");  // a label name cannot start with a digit
}

TEST_CASE("openmetrics: label values escape backslash, quote and newline", "[openmetrics]") {
  CHECK(escape_label_value("east/dataplane/0") == "east/dataplane/0");
  CHECK(escape_label_value("a\\b\"c\nd") == "a\\\\b\\\"c\\nd");
  SampledRun run;
  run.series["g{path=C:\\tmp}"] = {"g", {{"path", "C:\\tmp"}}, Type::kGauge};
  run.table.columns = {"g{path=C:\\tmp}"};
  row(run.table, 0, {1});
  CHECK(to_openmetrics(run).find("skysim_g{path=\"C:\\\\tmp\"} 1 0\n") != std::string::npos);
}

TEST_CASE("openmetrics: units only from a _unit suffix", "[openmetrics]") {
  CHECK(openmetrics_unit("skysim_requests_latency_ns") == "ns");
  CHECK(openmetrics_unit("skysim_go_heap_bytes") == "bytes");
  CHECK(openmetrics_unit("skysim_queue_paused_ns") == "ns");
  CHECK(openmetrics_unit("skysim_go_ms_in_syscall").empty());
  CHECK(openmetrics_unit("skysim_go_median_uptime_min").empty());
  CHECK(openmetrics_unit("skysim_answers").empty());  // ends in "ns" but not "_ns"
  CHECK(openmetrics_unit("_ns").empty());             // the unit alone is no name
}

TEST_CASE("openmetrics: timestamps are Unix seconds exact to the nanosecond", "[openmetrics]") {
  CHECK(openmetrics_timestamp(kEpoch) == "1775433600");
  CHECK(openmetrics_timestamp(kEpoch + 250'000'000) == "1775433600.25");
  CHECK(openmetrics_timestamp(kEpoch + 1) == "1775433600.000000001");
  CHECK(openmetrics_timestamp(0) == "0");
  CHECK(openmetrics_timestamp(-1) == "-1.999999999");  // floor: -2 s + 0.999999999 s
}

TEST_CASE("openmetrics: values", "[openmetrics]") {
  CHECK(openmetrics_value(std::nan("")) == "NaN");
  CHECK(openmetrics_value(INFINITY) == "+Inf");
  CHECK(openmetrics_value(-INFINITY) == "-Inf");
  CHECK(openmetrics_value(3) == "3");
  CHECK(openmetrics_value(-0.0) == "0");
  CHECK(openmetrics_value(1e15) == "1000000000000000");
  CHECK(openmetrics_value(0.1) == "0.1");
  CHECK(openmetrics_value(1e300) == "1e+300");
  CHECK(std::stod(openmetrics_value(2.0 / 3.0)) == 2.0 / 3.0);  // shortest text, exact
}

TEST_CASE("openmetrics: typed families in name order, each point's samples together",
          "[openmetrics]") {
  std::string text = to_openmetrics(small_run());
  // Families sorted by name; counters _total; the histogram a summary whose quantiles are the
  // interval's and whose _count is cumulative; rows at 20 s merged into one point (counter and
  // gauge: the later row; histogram: the counts summed, quantiles of the row that saw any);
  // empty cells write nothing; an interval without observations has NaN quantiles.
  CHECK(without_help(text) ==
        "# TYPE skysim_a_level gauge\n"
        "skysim_a_level 1.5 1775433610\n"
        "skysim_a_level -2 1775433620\n"
        "# TYPE skysim_lat_ns summary\n"
        "# UNIT skysim_lat_ns ns\n"
        "skysim_lat_ns{ep=\"get\",quantile=\"0.5\"} 100 1775433610\n"
        "skysim_lat_ns{ep=\"get\",quantile=\"0.9\"} 200 1775433610\n"
        "skysim_lat_ns{ep=\"get\",quantile=\"0.99\"} 300 1775433610\n"
        "skysim_lat_ns{ep=\"get\",quantile=\"0.999\"} 300 1775433610\n"
        "skysim_lat_ns{ep=\"get\",quantile=\"1\"} 310 1775433610\n"
        "skysim_lat_ns_count{ep=\"get\"} 3 1775433610\n"
        "skysim_lat_ns{ep=\"get\",quantile=\"0.5\"} 50 1775433620\n"
        "skysim_lat_ns{ep=\"get\",quantile=\"0.9\"} 60 1775433620\n"
        "skysim_lat_ns{ep=\"get\",quantile=\"0.99\"} 70 1775433620\n"
        "skysim_lat_ns{ep=\"get\",quantile=\"0.999\"} 70 1775433620\n"
        "skysim_lat_ns{ep=\"get\",quantile=\"1\"} 80 1775433620\n"
        "skysim_lat_ns_count{ep=\"get\"} 5 1775433620\n"
        "skysim_lat_ns{ep=\"get\",quantile=\"0.5\"} NaN 1775433630\n"
        "skysim_lat_ns{ep=\"get\",quantile=\"0.9\"} NaN 1775433630\n"
        "skysim_lat_ns{ep=\"get\",quantile=\"0.99\"} NaN 1775433630\n"
        "skysim_lat_ns{ep=\"get\",quantile=\"0.999\"} NaN 1775433630\n"
        "skysim_lat_ns{ep=\"get\",quantile=\"1\"} NaN 1775433630\n"
        "skysim_lat_ns_count{ep=\"get\"} 5 1775433630\n"
        "# TYPE skysim_z_count counter\n"
        "skysim_z_count_total{host=\"h1\"} 5 1775433610\n"
        "skysim_z_count_total{host=\"h1\"} 8 1775433620\n"
        "skysim_z_count_total{host=\"h1\"} 8 1775433630\n"
        "# EOF\n");
  // Every family has a HELP naming its skysim series; the summary's says what it covers.
  CHECK(help_of(text, "skysim_a_level").find("gauge a.level") != std::string::npos);
  CHECK(help_of(text, "skysim_z_count").find("counter z.count") != std::string::npos);
  std::string lat = help_of(text, "skysim_lat_ns");
  CHECK(lat.find("histogram lat_ns") != std::string::npos);
  CHECK(lat.find("since the series' previous sample") != std::string::npos);
  CHECK(lat.find("_count is cumulative") != std::string::npos);
}

TEST_CASE("openmetrics: series of one family stay together, in key order", "[openmetrics]") {
  SampledRun run;
  run.epoch_unix_ns = kEpoch;
  run.series["q{host=b}"] = {"q", {{"host", "b"}}, Type::kGauge};
  run.series["q{host=a}"] = {"q", {{"host", "a"}}, Type::kGauge};
  run.series["p"] = {"p", {}, Type::kGauge};
  run.table.columns = {"q{host=b}", "p", "q{host=a}"};
  row(run.table, 1 * kS, {1, 2, 3});
  row(run.table, 2 * kS + 500'000'000, {4, 5, 6});
  CHECK(without_help(to_openmetrics(run)) ==
        "# TYPE skysim_p gauge\n"
        "skysim_p 2 1775433601\n"
        "skysim_p 5 1775433602.5\n"
        "# TYPE skysim_q gauge\n"
        "skysim_q{host=\"a\"} 3 1775433601\n"
        "skysim_q{host=\"a\"} 6 1775433602.5\n"
        "skysim_q{host=\"b\"} 1 1775433601\n"
        "skysim_q{host=\"b\"} 4 1775433602.5\n"
        "# EOF\n");
}

TEST_CASE("openmetrics: what cannot be written faithfully is refused", "[openmetrics]") {
  using Catch::Matchers::Contains;
  SECTION("two skysim names, one OpenMetrics name") {
    SampledRun run;
    run.series["a.b"] = {"a.b", {}, Type::kGauge};
    run.series["a_b"] = {"a_b", {}, Type::kGauge};
    CHECK_THROWS_WITH(to_openmetrics(run), Contains("'a.b' and 'a_b' both map"));
  }
  SECTION("a counter's _total sample and a gauge") {
    SampledRun run;
    run.series["x"] = {"x", {}, Type::kCounter};
    run.series["x.total"] = {"x.total", {}, Type::kGauge};
    CHECK_THROWS_WITH(to_openmetrics(run), Contains("samples named 'skysim_x_total'"));
  }
  SECTION("one name, two types") {
    SampledRun run;
    run.series["x{a=1}"] = {"x", {{"a", "1"}}, Type::kCounter};
    run.series["x{a=2}"] = {"x", {{"a", "2"}}, Type::kGauge};
    CHECK_THROWS_WITH(to_openmetrics(run), Contains("different types"));
  }
  SECTION("a column no series owns") {
    SampledRun run = small_run();
    run.series.erase("a.level");
    CHECK_THROWS_WITH(to_openmetrics(run), Contains("column 'a.level' belongs to no series"));
  }
  SECTION("a histogram without all its columns") {
    SampledRun run = small_run();
    run.table.columns[7] = "unrelated";
    run.series["unrelated"] = {"unrelated", {}, Type::kGauge};
    CHECK_THROWS_WITH(to_openmetrics(run), Contains("5 of its 6 columns"));
  }
  SECTION("a negative counter") {
    SampledRun run = small_run();
    run.table.values[0][3] = -1;
    CHECK_THROWS_WITH(to_openmetrics(run), Contains("counter 'z.count{host=h1}' is -1"));
  }
  SECTION("a histogram with a quantile label") {
    SampledRun run;
    run.series["h{quantile=x}"] = {"h", {{"quantile", "x"}}, Type::kHistogram};
    run.table.columns = {"h{quantile=x}:count", "h{quantile=x}:p50",  "h{quantile=x}:p90",
                         "h{quantile=x}:p99",   "h{quantile=x}:p999", "h{quantile=x}:max"};
    row(run.table, 0, {1, 1, 1, 1, 1, 1});
    CHECK_THROWS_WITH(to_openmetrics(run), Contains("label 'quantile'"));
  }
  SECTION("two label keys, one label name") {
    SampledRun run;
    run.series["g{a.b=1,a_b=2}"] = {"g", {{"a.b", "1"}, {"a_b", "2"}}, Type::kGauge};
    run.table.columns = {"g{a.b=1,a_b=2}"};
    row(run.table, 0, {1});
    CHECK_THROWS_WITH(to_openmetrics(run), Contains("map to the label name 'a_b'"));
  }
  SECTION("no exact instants") {
    SampledRun run = small_run();
    run.table.time_ns.clear();
    CHECK_THROWS_WITH(to_openmetrics(run), Contains("no time_ns column"));
  }
}

TEST_CASE("openmetrics: series and types from summary.json", "[openmetrics]") {
  Json summary = Json::parse(R"({"epoch": "2026-04-06T00:00:00Z", "metrics": {
      "c{dc=east}": {"type": "counter", "name": "c", "labels": {"dc": "east"}, "value": 3},
      "g": {"type": "gauge", "name": "g", "labels": {}, "value": 1.5},
      "h{b=2,a=1}": {"type": "histogram", "name": "h", "labels": {"b": "2", "a": "1"}}}})");
  auto series = series_from_summary(summary);
  REQUIRE(series.size() == 3);
  CHECK(series.at("c{dc=east}").type == Type::kCounter);
  CHECK(series.at("g").type == Type::kGauge);
  CHECK(series.at("h{b=2,a=1}").type == Type::kHistogram);
  using L = std::vector<std::pair<std::string, std::string>>;
  CHECK(series.at("h{b=2,a=1}").labels == L{{"a", "1"}, {"b", "2"}});  // sorted by key
  CHECK_THROWS_WITH(series_from_summary(Json::parse(
                        R"({"metrics": {"m": {"type": "meter", "name": "m", "labels": {}}}})")),
                    Catch::Matchers::Contains("metrics['m']: unknown type 'meter'"));
  CHECK_THROWS_WITH(series_from_summary(Json::parse(R"({"epoch": "x"})")),
                    Catch::Matchers::Contains("no \"metrics\""));
}

TEST_CASE("openmetrics: timeseries.csv keeps its exact instants", "[openmetrics]") {
  auto t = TimeSeriesTable::parse_csv(
      "time_ns,time_s,c{a=1;b=2}\n10000000001,10.000000001,1\n10000000001,10.000000001,2\n",
      "test.csv");
  CHECK(t.time_ns == std::vector<std::int64_t>{10000000001, 10000000001});
  CHECK(t.columns == std::vector<std::string>{"c{a=1,b=2}"});
  CHECK_THROWS_WITH(TimeSeriesTable::parse_csv("time_ns,time_s,c\n1.5,1,1\n", "bad.csv"),
                    Catch::Matchers::Contains("bad.csv:2: '1.5' is not an integer"));
}
