// compare, shards and merge end to end through real worker processes, with a stand-in for
// `skysim run` (fake_skysim.sh) so these tests do not depend on any scenario.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "analysis/compare_command.hpp"
#include "analysis/plot.hpp"
#include "analysis/report.hpp"
#include "analysis/sweep_runner.hpp"
#include "analysis/worker_pool.hpp"

using namespace skysim::analysis;
namespace fs = std::filesystem;

namespace {

fs::path test_root() {
  return fs::temp_directory_path() / ("skysim-test-analysis-" + std::to_string(::getpid()));
}

// Everything the tests write lives under one directory, removed when the binary exits.
struct RemoveTestRoot {
  ~RemoveTestRoot() {
    std::error_code ec;
    fs::remove_all(test_root(), ec);
  }
} remove_test_root;

fs::path fresh_dir(const std::string& name) {
  fs::path dir = test_root() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The stand-in runner, copied so its exec bit does not depend on how the tree was checked out.
std::string fake_skysim() {
  static std::string path = [] {
    fs::path dst = fresh_dir("bin") / "fake_skysim.sh";
    fs::copy_file(fs::path(SKYSIM_SOURCE_DIR) / "tests/analysis/fake_skysim.sh", dst);
    fs::permissions(dst, fs::perms::owner_all, fs::perm_options::add);
    return dst.string();
  }();
  return path;
}

CompareOptions options(const fs::path& out, bool with_failure) {
  CompareOptions o;
  o.spec.scenario = "fanout.yaml";
  o.spec.vary = {parse_vary("policy=full,lossy,onread")};
  if (with_failure) {
    o.spec.vary.push_back(parse_vary("fail_seed=4"));
  }
  o.spec.seeds = parse_seeds("1..6");
  o.jobs = 2;
  o.out_dir = out.string();
  o.program = fake_skysim();
  o.plots = false;
  o.build_id = "xxh64:build-a";
  o.scenario_hash = "xxh64:scenario-a";
  return o;
}

std::string slurp(const fs::path& p) { return read_file_text(p.string()); }

}  // namespace

TEST_CASE("compare runs every variant x seed in worker processes") {
  auto out = fresh_dir("plain");
  auto opt = options(out, false);
  opt.plots = !find_program("gnuplot").empty();
  opt.series = {"queue_depth"};
  std::ostringstream so, se;
  CHECK(run_compare(opt, so, se) == 0);
  INFO(se.str());
  CHECK_THAT(so.str(), Catch::Contains("18 runs (3 variants x 6 seeds), 18 ok, 0 failed"));
  auto json = Json::parse(slurp(out / "compare.json"));
  const auto& tables = json.at("tables").as_array();
  REQUIRE(tables.size() == 3);  // errors, latency_ms, mem.peak_mb
  const auto& lat = tables[1].at("rows").as_array();
  CHECK(tables[1].at("metric").as_string() == "latency_ms");
  // The fake's latency is 10 * level + noise in [0, 1): the ratio onread/full lies near 3.
  CHECK(lat[2].at("ratio_to_first").as_number() > 2.5);
  CHECK(lat[2].at("ratio_to_first").as_number() < 3.2);
  CHECK_FALSE(lat[2].at("overlaps_first").as_bool());
  CHECK(fs::exists(out / "runs" / "v002-seed6" / "summary.json"));
  if (opt.plots) {
    CHECK(fs::exists(out / "plots" / "metric-latency_ms.svg"));
    CHECK(fs::exists(out / "plots" / "series-queue_depth.svg"));
  }
}

TEST_CASE("a failed run is reported with its reproducer and fails the compare") {
  auto out = fresh_dir("failing");
  std::ostringstream so, se;
  CHECK(run_compare(options(out, true), so, se) == 1);
  CHECK_THAT(so.str(), Catch::Contains("3 failed"));
  CHECK_THAT(so.str(), Catch::Contains("exit 3: invariant violated"));
  CHECK_THAT(so.str(), Catch::Contains(
                           "reproduce: skysim run fanout.yaml --seed 4 --set policy=lossy "
                           "--set fail_seed=4"));
}

TEST_CASE("shards 1/3, 2/3, 3/3 merged equal the unsharded compare byte for byte") {
  for (bool with_failure : {false, true}) {
    INFO("with a failing seed: " << with_failure);
    auto whole = fresh_dir("whole");
    std::ostringstream whole_out, err;
    int whole_status = run_compare(options(whole, with_failure), whole_out, err);

    auto shards = fresh_dir("shards");
    std::vector<std::string> files;
    for (int i = 1; i <= 3; ++i) {
      auto opt = options(shards, with_failure);
      opt.shard = Shard{i, 3};
      opt.jobs = 1;
      std::ostringstream so;
      run_compare(opt, so, err);
      files.push_back((shards / shard_file_name(*opt.shard)).string());
    }
    // Out of order on purpose: merge must not care.
    std::swap(files[0], files[2]);
    auto merged = fresh_dir("merged");
    std::ostringstream merged_out;
    int merged_status = run_merge({files, merged.string(), false, {}}, merged_out, err);

    CHECK(merged_status == whole_status);
    CHECK(merged_out.str() == whole_out.str());
    for (const char* f : {"compare.csv", "compare.json", "tables.txt", kRunsFile}) {
      INFO(f);
      CHECK(slurp(merged / f) == slurp(whole / f));
    }
  }
}

TEST_CASE("merge refuses incomplete, repeated or mixed shard sets") {
  auto shards = fresh_dir("bad-shards");
  std::ostringstream so, err;
  std::vector<std::string> files;
  for (int i = 1; i <= 2; ++i) {
    auto opt = options(shards, false);
    opt.shard = Shard{i, 2};
    run_compare(opt, so, err);
    files.push_back((shards / shard_file_name(*opt.shard)).string());
  }
  auto out = fresh_dir("bad-merge").string();
  CHECK_THROWS_WITH(run_merge({{files[0]}, out, false, {}}, so, err), Catch::Contains("runs missing"));
  CHECK_THROWS_WITH(run_merge({{files[0], files[1], files[0]}, out, false, {}}, so, err),
                    Catch::Contains("more than once"));

  auto other = options(shards, false);
  other.spec.seeds = parse_seeds("1..7");
  other.shard = Shard{1, 1};
  other.out_dir = fresh_dir("other").string();
  run_compare(other, so, err);
  auto other_file = (fs::path(other.out_dir) / shard_file_name(*other.shard)).string();
  CHECK_THROWS_WITH(run_merge({{files[0], other_file}, out, false, {}}, so, err),
                    Catch::Contains("different sweep"));

  // The same sweep run by another skysim binary, or on an edited scenario file.
  for (bool build : {true, false}) {
    auto opt = options(shards, false);
    opt.shard = Shard{2, 2};
    opt.out_dir = fresh_dir("provenance").string();
    (build ? opt.build_id : opt.scenario_hash) = "xxh64:other";
    run_compare(opt, so, err);
    auto f = (fs::path(opt.out_dir) / shard_file_name(*opt.shard)).string();
    CHECK_THROWS_WITH(run_merge({{files[0], f}, out, false, {}}, so, err),
                      Catch::Contains(build ? "written by another build of skysim (xxh64:other"
                                            : "the scenario file fanout.yaml had other contents"));
  }
  // A file from before headers (the sweep on every line) is named, not misread.
  auto old = fresh_dir("old-format") / "shard-1-of-1.jsonl";
  write_file_text(old.string(), "{\"run\":0,\"sweep\":{}}\n");
  CHECK_THROWS_WITH(run_merge({{old.string()}, out, false, {}}, so, err),
                    Catch::Contains("shard-1-of-1.jsonl:1: not a runs header"));
}

TEST_CASE("a runs file has one header record, then one line per run") {
  auto out = fresh_dir("header");
  std::ostringstream so, se;
  REQUIRE(run_compare(options(out, false), so, se) == 0);
  std::istringstream lines(slurp(out / kRunsFile));
  std::string first, line;
  std::getline(lines, first);
  auto header = header_from_line(first, "runs.jsonl:1");
  CHECK(header.build == "xxh64:build-a");
  CHECK(header.scenario_hash == "xxh64:scenario-a");
  CHECK(header.spec.seeds.size() == 6);
  int runs = 0;
  while (std::getline(lines, line)) {
    ++runs;
    CHECK(line.find("\"sweep\"") == std::string::npos);  // the spec is in the header only
  }
  CHECK(runs == 18);
}

TEST_CASE("merge --metric re-tabulates any metric the runs reported") {
  auto out = fresh_dir("retab");
  auto opt = options(out, false);
  opt.spec.metrics = {"latency_ms"};
  std::ostringstream so, se;
  REQUIRE(run_compare(opt, so, se) == 0);
  CHECK(Json::parse(slurp(out / "compare.json")).at("tables").as_array().size() == 1);
  auto again = fresh_dir("retab-merged");
  std::ostringstream mo;
  REQUIRE(run_merge({{(out / kRunsFile).string()}, again.string(), false, {"mem.peak_mb"}}, mo,
                    se) == 0);
  auto tables = Json::parse(slurp(again / "compare.json")).at("tables").as_array();
  REQUIRE(tables.size() == 1);
  CHECK(tables[0].at("metric").as_string() == "mem.peak_mb");
  CHECK(tables[0].at("unit").as_string() == "MB");
  CHECK_THAT(mo.str(), Catch::Contains("mem.peak_mb  [MB]"));
  CHECK_THROWS_WITH(
      run_merge({{(out / kRunsFile).string()}, again.string(), false, {"mem.peak"}}, mo, se),
      Catch::Contains("did you mean 'mem.peak_mb'?"));
}

TEST_CASE("a --metric the first run does not report stops the sweep when that run ends") {
  auto out = fresh_dir("typo");
  auto opt = options(out, false);
  opt.spec.vary = {parse_vary("policy=full,lossy,onread"), parse_vary("spin=300000")};
  opt.spec.metrics = {"latncy_ms"};
  opt.jobs = 1;  // run 0 ends before run 1 starts: nothing else may run
  std::ostringstream so, se;
  CHECK_THROWS_WITH(run_compare(opt, so, se),
                    Catch::Contains("--metric latncy_ms: the first run (policy=full spin=300000, "
                                    "seed 1") &&
                        Catch::Contains("did you mean 'latency_ms'?"));
  int summaries = 0;
  for (const auto& d : fs::directory_iterator(out / "runs")) {
    summaries += fs::exists(d.path() / "summary.json") ? 1 : 0;
  }
  CHECK(summaries == 1);  // of 18
}

TEST_CASE("compare passes --set and --until to every run, and needs 2 seeds to compare") {
  auto out = fresh_dir("pass-through");
  auto opt = options(out, false);
  opt.spec.sets = {{"spin", "3"}};
  opt.spec.until = "+90m";
  std::ostringstream so, se;
  REQUIRE(run_compare(opt, so, se) == 0);
  for (const auto& r : opt.spec.runs()) {
    auto summary =
        Json::parse(slurp(out / "runs" / run_dir_name(r) / "summary.json"));
    CHECK(summary.at("until").as_string() == "+90m");
  }
  RunnerOptions ro{"skysim", "runs", 1};
  auto argv = worker_argv(ro, opt.spec, opt.spec.runs()[7]);
  CHECK(argv == std::vector<std::string>{"skysim", "run", "fanout.yaml", "--seed", "2", "--set",
                                         "spin=3", "--set", "policy=lossy", "--until", "+90m",
                                         "--out", "runs/v001-seed2", "--quiet"});
  CHECK(reproducer(opt.spec, opt.spec.runs()[7]) ==
        "skysim run fanout.yaml --seed 2 --set spin=3 --set policy=lossy --until +90m");

  opt.spec.seeds = {5};
  CHECK_THROWS_WITH(run_compare(opt, so, se), Catch::Contains("needs at least 2 seeds"));
  opt.spec.vary = {parse_vary("policy=lossy")};  // one variant: nothing to compare, 1 seed is fine
  opt.out_dir = fresh_dir("one-seed").string();
  CHECK(run_compare(opt, so, se) == 0);
}

TEST_CASE("an exception from on_done kills the workers still running") {
  std::vector<WorkerJob> jobs{{{"/bin/sh", "-c", "exit 0"}, ""},
                              {{"/bin/sh", "-c", "sleep 30"}, ""},
                              {{"/bin/sh", "-c", "sleep 30"}, ""}};
  auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(run_workers(jobs, 2,
                                [](std::size_t i, const WorkerExit&) {
                                  if (i == 0) throw std::invalid_argument("stop");
                                }),
                    "stop");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
  errno = 0;
  CHECK(::waitpid(-1, nullptr, WNOHANG) == -1);  // killed and reaped: no child of ours is left
  CHECK(errno == ECHILD);
}

TEST_CASE("a worker stream starts each job when a slot frees, with no barrier, and stops on nullopt") {
  // Job 0 waits (at most 30 s, then fails) for the file job 4 writes, while jobs 1..4 run one
  // after another in the second slot: a pool that waited for a whole batch (jobs 0-1, then 2-3)
  // would never start job 4 while job 0 runs.
  auto flag = fresh_dir("stream") / "job4-ran";
  std::string wait = "i=0; while [ ! -e '" + flag.string() +
                     "' ]; do i=$((i+1)); [ $i -gt 3000 ] && exit 1; sleep 0.01; done";
  std::vector<std::size_t> done;
  std::vector<std::size_t> asked;
  std::size_t started = run_worker_stream(
      [&](std::size_t k) -> std::optional<WorkerJob> {
        asked.push_back(k);
        if (k == 5) return std::nullopt;
        std::string script = k == 0 ? wait : k == 4 ? "touch '" + flag.string() + "'" : "exit 0";
        return WorkerJob{{"/bin/sh", "-c", script}, ""};
      },
      2, [&](std::size_t k, const WorkerExit& e) {
        CHECK(e.exit_code == 0);
        done.push_back(k);
      });
  CHECK(started == 5);
  REQUIRE(done.size() == 5);
  // Job 0 exited 0 (checked above) only because job 4 ran while it waited: that is the
  // no-barrier property. Which of the two is reaped first is a race (job 0 sees the file within
  // 10 ms of job 4's touch), so only "job 0 finished after jobs 1-3" is ordered.
  CHECK(std::find(done.begin() + 3, done.end(), std::size_t{0}) != done.end());
  CHECK(asked == std::vector<std::size_t>{0, 1, 2, 3, 4, 5});  // nullopt: never asked again
  CHECK_THROWS_AS(run_worker_stream([](std::size_t) { return std::optional<WorkerJob>(); }, 0, {}),
                  std::invalid_argument);
}

TEST_CASE("worker exits are decoded: status, signal, missing program") {
  std::vector<WorkerJob> jobs{{{"/bin/sh", "-c", "exit 0"}, ""},
                              {{"/bin/sh", "-c", "exit 3"}, ""},
                              {{"/bin/sh", "-c", "kill -9 $$"}, ""},
                              {{"/nonexistent/skysim"}, ""}};
  std::vector<std::size_t> done;
  auto exits = run_workers(jobs, 2, [&](std::size_t i, const WorkerExit&) { done.push_back(i); });
  CHECK(exits[0].exit_code == 0);
  CHECK(exits[1].describe() == "exit 3");
  CHECK(exits[2].signal == 9);
  CHECK_THAT(exits[2].describe(), Catch::StartsWith("killed by signal 9"));
  CHECK(exits[3].exit_code == 127);
  CHECK(done.size() == 4);
  CHECK_THROWS_AS(run_workers(jobs, 0), std::invalid_argument);
}

TEST_CASE("report: one self-contained HTML page with the plots inline") {
  if (find_program("gnuplot").empty()) {
    WARN("gnuplot not installed: report plot checks skipped");
    return;
  }
  auto out = fresh_dir("report");
  auto opt = options(out, true);
  opt.plots = true;
  opt.series = {"queue_depth"};
  std::ostringstream so, se;
  run_compare(opt, so, se);
  auto html = slurp(write_report(out.string()));
  CHECK_THAT(html, Catch::StartsWith("<!DOCTYPE html>"));
  CHECK_THAT(html, Catch::Contains("<style>"));
  CHECK_THAT(html, Catch::Contains("latency_ms"));
  CHECK_THAT(html, Catch::Contains("reproduce: <code>skysim run fanout.yaml --seed 4"));
  // Every metric plot and the series plot, inline.
  std::size_t svgs = 0;
  for (auto pos = html.find("<svg"); pos != std::string::npos; pos = html.find("<svg", pos + 1)) {
    ++svgs;
  }
  CHECK(svgs == 4);
  // Nothing fetched from anywhere: no URL, no external script, stylesheet or image.
  CHECK(html.find("http:") == std::string::npos);
  CHECK(html.find("https:") == std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
  CHECK(html.find(" src=") == std::string::npos);

  // A run directory gets its summary and one plot per time series column.
  auto run_dir = out / "runs" / "v000-seed1";
  auto run_html = slurp(write_report(run_dir.string()));
  CHECK_THAT(run_html, Catch::Contains("fp-1-1"));
  CHECK_THAT(run_html, Catch::Contains("mem.peak_mb"));
  CHECK_THAT(run_html, Catch::Contains("<svg"));
  CHECK(run_html.find("http") == std::string::npos);

  CHECK_THROWS_WITH(write_report(fresh_dir("empty").string()),
                    Catch::Contains("neither compare.json"));
}

TEST_CASE("report renders in headless Chromium (skipped when chromium is absent)") {
  std::string chromium = find_program("chromium");
  if (chromium.empty() || find_program("gnuplot").empty()) {
    WARN("chromium or gnuplot not installed: rendering test skipped");
    return;
  }
  auto out = fresh_dir("render");
  auto opt = options(out, false);
  opt.plots = true;
  std::ostringstream so, se;
  run_compare(opt, so, se);
  auto html = write_report(out.string());
  auto png = (out / "report.png").string();
  // Flags for a closed network: without them Chromium keeps dialling Google's hosts.
  std::vector<std::string> base{chromium,
                                "--headless",
                                "--no-sandbox",
                                "--disable-gpu",
                                "--disable-quic",
                                "--no-first-run",
                                "--disable-background-networking",
                                "--disable-component-update",
                                "--disable-sync",
                                "--user-data-dir=" + (out / "chromium-profile").string()};
  auto url = "file://" + fs::absolute(html).string();
  auto shot = base;
  shot.insert(shot.end(), {"--screenshot=" + png, "--window-size=1200,2400", url});
  auto dom = base;
  dom.insert(dom.end(), {"--dump-dom", url});
  auto exits = run_workers({WorkerJob{shot, (out / "chromium.log").string()},
                            WorkerJob{dom, (out / "dom.html").string()}},
                           1);
  CHECK(exits[0].exit_code == 0);
  CHECK(exits[1].exit_code == 0);
  REQUIRE(fs::exists(png));
  CHECK(fs::file_size(png) > 10000);  // a blank page compresses to far less
  // The DOM as the browser built it: every plot is an inline SVG with drawn paths in it.
  std::ifstream in(out / "dom.html");
  std::string rendered((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t svgs = 0;
  for (auto at = rendered.find("<svg"); at != std::string::npos; at = rendered.find("<svg", at + 4)) {
    ++svgs;
  }
  std::size_t plots = 0;
  for (const auto& e : fs::directory_iterator(out / "plots")) {
    if (e.path().extension() == ".svg") ++plots;
  }
  CHECK(plots > 0);
  CHECK(svgs >= plots);
  CHECK(rendered.find("<path") != std::string::npos);
}
