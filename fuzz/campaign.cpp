#include "fuzz/campaign.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "analysis/json.hpp"
#include "analysis/worker_pool.hpp"
#include "fuzz/event_log.hpp"
#include "fuzz/liveness.hpp"
#include "fuzz/probes.hpp"
#include "fuzz/shrinker.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"
#include "sim/rng.hpp"

namespace skysim::fuzz {
namespace {

namespace fs = std::filesystem;

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  if (!f) throw std::runtime_error("fuzz: cannot write " + path);
}

// Writes the perturbed scenario and its knobs into `dir` and returns the worker job: the knobs
// are printed at the top of the run's log, then `skysim run` takes over the process.
analysis::WorkerJob prepare(const FuzzOptions& o, const scenarios::Scenario& base, RunOutcome& r,
                            const std::string& dir) {
  fs::create_directories(dir);
  r.run_dir = dir;
  r.yaml_path = dir + "/scenario.yaml";
  write_text(r.yaml_path, perturbed_yaml(base, r.perturbation));
  write_text(dir + "/knobs.txt", r.perturbation.describe());
  analysis::WorkerJob job;
  std::string limit =
      o.run_cpu_seconds > 0 ? "ulimit -t " + std::to_string(o.run_cpu_seconds) + "; " : "";
  job.argv = {"/bin/sh",
              "-c",
              limit + "cat \"$1\"; shift; exec \"$@\"",
              "sh",
              dir + "/knobs.txt",
              o.skysim,
              "run",
              r.yaml_path,
              "--seed",
              std::to_string(r.seed),
              "--out",
              dir + "/out",
              "--quiet"};
  if (o.run_max_events > 0) {
    job.argv.push_back("--max-events");
    job.argv.push_back(std::to_string(o.run_max_events));
  }
  job.log_path = dir + "/run.log";
  return job;
}

// Reads what the run left behind: its summary.json, or only its exit when it wrote none.
// With `only` set, a run fails only when that invariant fails (FuzzOptions::only_invariant).
void collect(RunOutcome& r, const analysis::WorkerExit& exit, const std::string& only) {
  r.ran = true;
  std::string summary_path = r.run_dir + "/out/summary.json";
  if (!fs::exists(summary_path)) {
    r.failed = only.empty();
    r.invariant = exit.describe();
    std::istringstream log(read_text(r.run_dir + "/run.log"));
    std::string last;
    for (std::string line; std::getline(log, line);) {
      if (!line.empty()) last = line;
    }
    r.detail = "no summary.json; " + last;
    return;
  }
  analysis::Json s = analysis::Json::parse(read_text(summary_path));
  r.fingerprint = s.find("fingerprint") ? s.find("fingerprint")->as_string() : "";
  r.simulated_end = s.find("simulated_end") ? s.find("simulated_end")->as_string() : "";
  for (const auto& inv : s.find("invariants")->as_array()) {
    if (inv.find("ok")->as_bool()) continue;
    if (!only.empty() && inv.find("name")->as_string() != only) continue;
    r.failed = true;
    r.invariant = inv.find("name")->as_string();
    r.detail = inv.find("instance")->as_string() + ": " + inv.find("error")->as_string();
    break;
  }
  if (!r.failed && exit.exit_code != 0 && only.empty()) {
    r.failed = true;
    r.invariant = exit.describe();
    r.detail = "see " + r.run_dir + "/run.log";
    if (auto why = s.find("stopped_early"); why && !why->as_string().empty()) {
      r.invariant = "run budget";  // skysim run --max-events
      r.detail = why->as_string() + " at " + r.simulated_end;
    }
  }
  if (auto v = s.find("violation"); v && r.failed &&
                                      v->find("invariant")->as_string() == r.invariant) {
    // Where it broke, found by the run's replay (scenarios/runner.cpp): report that, not the end.
    if (!v->find("at_end")->as_bool()) {
      r.simulated_end = v->find("at")->as_string();
      r.detail += "; first broken by event #" +
                  std::to_string(static_cast<long long>(v->find("event")->as_number())) + " (" +
                  v->find("kind")->as_string() + ", actor " +
                  std::to_string(static_cast<long long>(v->find("actor")->as_number())) + ")";
      r.stop_at = r.simulated_end;
    } else {
      r.detail += "; held at every event, broke when the run ended";
    }
  }
  r.probes = probes_reached(r.perturbation, s);
}

// Liveness mode: a run that held every invariant must also be back in its healthy band in time.
void judge(const FuzzOptions& o, RunOutcome& r) {
  if (!o.liveness || r.failed || !r.ran) return;
  LivenessVerdict v = judge_liveness(r.run_dir, r.perturbation, *o.liveness);
  r.liveness = v.summary;
  r.liveness_judged = v.judged;
  if (v.metastable) {
    r.failed = true;
    r.invariant = "liveness";
    r.detail = "metastable: " + v.summary + "; metastability report: " + v.report_path;
  }
}

// Runs `count` runs, at most o.jobs at once, each started as soon as a worker is free (no
// barrier: one long fault world does not leave the other cores idle). Each run's world is drawn
// and written just before it starts (`make(k)` fills runs[k] and returns its job), so a
// campaign of a million fresh seeds under a budget writes only the runs it starts. The budget
// and --first-failure are checked before each start: runs start in campaign order, so every run
// before the first failing one has started (and is collected) when the campaign stops. Returns
// how many runs were not started.
std::size_t run_all(const FuzzOptions& o, std::vector<RunOutcome>& runs, std::size_t count,
                    const std::function<analysis::WorkerJob(std::size_t)>& make) {
  auto t0 = std::chrono::steady_clock::now();
  bool failed = false;
  std::size_t started = analysis::run_worker_stream(
      [&](std::size_t k) -> std::optional<analysis::WorkerJob> {
        if (k >= count || (o.first_failure && failed)) return std::nullopt;
        double spent =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (o.budget_seconds && spent >= *o.budget_seconds) return std::nullopt;
        return make(k);
      },
      std::max(1, o.jobs),
      [&](std::size_t k, const analysis::WorkerExit& exit) {
        collect(runs[k], exit, o.only_invariant);
        judge(o, runs[k]);
        failed = failed || runs[k].failed;
      });
  return count - started;
}

std::string reproducer(const RunOutcome& r) {
  return "skysim run " + analysis::shell_word(r.yaml_path) + " --seed " + std::to_string(r.seed);
}

// The reproducer that stops at the violating event's instant, when the run located it.
std::string stopping_reproducer(const RunOutcome& r) {
  return r.stop_at.empty() ? reproducer(r) : reproducer(r) + " --until " + r.stop_at;
}

// A fingerprint mismatch: re-runs the seed twice more as `skysim fuzz-record` workers, each
// logging every event, and names the first event where the two logs part.
void diagnose(const FuzzOptions& o, const RunOutcome& first, const RunOutcome& second,
              std::int64_t epoch_unix_ns, std::ostream& report) {
  std::string dir = first.run_dir + "/diverge";
  fs::create_directories(dir);
  std::vector<analysis::WorkerJob> jobs;
  for (const char* name : {"a", "b"}) {
    analysis::WorkerJob job;
    job.argv = {o.skysim,
                "fuzz-record",
                first.yaml_path,
                "--seed",
                std::to_string(first.seed),
                "--events",
                dir + "/" + name + ".events"};
    job.log_path = dir + "/" + name + ".log";
    jobs.push_back(job);
  }
  auto exits = analysis::run_workers(jobs, o.jobs);
  for (std::size_t k = 0; k < exits.size(); ++k) {
    if (exits[k].exit_code != 0) {
      report << "  diagnosis re-run failed (" << exits[k].describe() << "), see "
             << jobs[k].log_path << "\n";
      return;
    }
  }
  try {
    LoadedLog a = read_event_log(dir + "/a.events");
    LoadedLog b = read_event_log(dir + "/b.events");
    auto fp = [](const LoadedLog& l) {
      return l.records.empty() ? std::string("-")
                               : scenarios::format_fingerprint(l.records.back().hash);
    };
    report << "  diagnosis: two more runs with an event log: fingerprints " << fp(a) << " and "
           << fp(b) << " (earlier runs: " << first.fingerprint << ", " << second.fingerprint
           << ")\n";
    auto d = first_divergence(a.records, b.records);
    if (!d) {
      report << "  the two logged runs agree on all " << a.records.size()
             << " events: the nondeterminism did not show again (logs in " << dir << ")\n";
      return;
    }
    std::istringstream lines(describe_divergence(*d, a, b, epoch_unix_ns));
    for (std::string line; std::getline(lines, line);) report << "  " << line << "\n";
    report << "  logs: " << dir << "/{a,b}.events\n";
  } catch (const std::exception& e) {
    report << "  diagnosis failed: " << e.what() << "\n";
  }
}

// The first stream whose draw count differs between two summary.json's `stream_draws`, as
// "stream NAME drew A then B words" ("" when every stream drew the same; a stream only one run
// created says so). A family of numbered streams is one entry "PREFIX*" with its count, total
// draws and digest (scenarios/stream_families.hpp): a difference inside it names the family.
std::string first_stream_difference(const analysis::Json& a, const analysis::Json& b) {
  auto sa = a.find("stream_draws");
  auto sb = b.find("stream_draws");
  if (!sa || !sb) return "";
  auto oa = sa->as_object(), ob = sb->as_object();
  for (const auto& [name, value] : oa) {
    auto other = ob.find(name);
    if (other == ob.end()) {
      return "stream " + name + " drew " + value.dump() + " words, then was never created";
    }
    if (value.dump() != other->second.dump()) {
      return "stream " + name + " drew " + value.dump() + " then " + other->second.dump() +
             " words";
    }
  }
  for (const auto& [name, value] : ob) {
    if (!oa.count(name)) {
      return "stream " + name + " was never created, then drew " + value.dump() + " words";
    }
  }
  return "";
}

}  // namespace

// The first metric (or sub-fingerprint, or the unseed) whose value differs between two runs'
// summary.json, "" when every one agrees: a change that keeps the event order but not a
// payload shows here. An unseed mismatch names the first stream whose draw count differs
// (streams by name), else the first differing metric, else says a model's fold differs.
std::string first_metric_difference(const std::string& a_dir, const std::string& b_dir) {
  std::string a_path = a_dir + "/out/summary.json", b_path = b_dir + "/out/summary.json";
  if (!fs::exists(a_path) || !fs::exists(b_path)) return "";
  analysis::Json a = analysis::Json::parse(read_text(a_path));
  analysis::Json b = analysis::Json::parse(read_text(b_path));
  std::string unseed;
  auto ua = a.find("unseed");
  auto ub = b.find("unseed");
  if (ua && ub && ua->dump() != ub->dump()) {
    unseed = "unseed " + ua->dump() + " then " + ub->dump();
    if (std::string s = first_stream_difference(a, b); !s.empty()) return unseed + ": " + s;
  }
  for (const char* section : {"sub_fingerprints", "datacenter_fingerprints", "metrics"}) {
    auto sa = a.find(section);
    auto sb = b.find(section);
    if (!sa || !sb) continue;
    auto oa = sa->as_object(), ob = sb->as_object();
    std::string where = (unseed.empty() ? "" : unseed + ": ") + section + " ";
    for (const auto& [name, value] : oa) {
      auto other = ob.find(name);
      if (other == ob.end()) return where + name + " missing in the re-run";
      if (value.dump() != other->second.dump()) {
        return where + name + ": " + value.dump() + " then " + other->second.dump();
      }
    }
    for (const auto& [name, value] : ob) {
      if (!oa.count(name)) return where + name + " only in the re-run";
    }
  }
  if (!unseed.empty()) return unseed + " (every stream drew the same: a model's fold differs)";
  return "";
}

namespace {

// The determinism contract: a deterministic sample of the runs, re-run, must reproduce their
// fingerprints, and their summaries (first_metric_difference) exactly.
bool recheck(const FuzzOptions& o, const std::vector<scenarios::Scenario>& bases,
             const std::map<std::string, std::size_t>& base_of, std::vector<RunOutcome>& runs,
             std::ostream& report) {
  std::vector<std::size_t> ran;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].ran && !runs[i].fingerprint.empty()) ran.push_back(i);
  }
  if (ran.empty() || o.recheck_fraction <= 0) return true;
  auto want = static_cast<std::size_t>(
      std::max(1.0, std::ceil(o.recheck_fraction * static_cast<double>(ran.size()))));
  sim::Rng rng(sim::stream_seed(runs[ran.front()].seed, "fuzz/recheck"));
  std::vector<std::size_t> sample;
  while (sample.size() < std::min(want, ran.size())) {
    std::size_t pick = ran[static_cast<std::size_t>(
        rng.uniform_int(0, static_cast<std::int64_t>(ran.size()) - 1))];
    if (std::find(sample.begin(), sample.end(), pick) == sample.end()) sample.push_back(pick);
  }
  std::sort(sample.begin(), sample.end());
  std::vector<RunOutcome> again;
  std::vector<analysis::WorkerJob> jobs;
  for (std::size_t i : sample) {
    RunOutcome r = runs[i];
    r.ran = r.failed = false;
    r.fingerprint.clear();
    const auto& base = bases[base_of.at(r.scenario)];
    jobs.push_back(prepare(o, base, r, runs[i].run_dir + "/recheck"));
    again.push_back(r);
  }
  auto exits = analysis::run_workers(jobs, o.jobs);
  bool ok = true;
  for (std::size_t k = 0; k < again.size(); ++k) {
    collect(again[k], exits[k], o.only_invariant);
    const RunOutcome& first = runs[sample[k]];
    if (again[k].fingerprint != first.fingerprint) {
      ok = false;
      report << "NONDETERMINISTIC " << first.scenario << " seed " << first.seed << ": fingerprint "
             << first.fingerprint << " then " << again[k].fingerprint
             << "\n  reproduce twice: " << reproducer(first) << "\n";
      diagnose(o, first, again[k], bases[base_of.at(first.scenario)].epoch_unix_ns, report);
    } else if (std::string d = first_metric_difference(first.run_dir, again[k].run_dir);
               !d.empty()) {
      ok = false;
      report << "NONDETERMINISTIC " << first.scenario << " seed " << first.seed
             << ": same fingerprint, but " << d << "\n  reproduce twice: " << reproducer(first)
             << "\n";
    }
  }
  report << "determinism: " << sample.size() << " of " << ran.size()
         << " runs re-run, fingerprints and every metric " << (ok ? "identical" : "DIFFER")
         << "\n";
  return ok;
}

// The shrunk world as one `skysim run BASE --seed N --set ...` line over the base file, run
// once to confirm it fails the same invariant (reported either way).
void one_line_reproducer(const FuzzOptions& o, const scenarios::Scenario& base,
                         const RunOutcome& shrunk, std::ostream& report) {
  std::vector<std::string> sets = set_overrides(base, shrunk.perturbation, shrunk.invariant);
  std::string line = "skysim run " + analysis::shell_word(shrunk.scenario) + " --seed " +
                     std::to_string(shrunk.seed);
  analysis::WorkerJob job;
  job.argv = {o.skysim, "run", shrunk.scenario, "--seed", std::to_string(shrunk.seed)};
  for (const auto& s : sets) {
    line += " --set " + analysis::shell_word(s);
    job.argv.push_back("--set");
    job.argv.push_back(s);
  }
  RunOutcome check = shrunk;
  check.run_dir = shrunk.run_dir + "/shrunk/one-line";
  fs::create_directories(check.run_dir);
  for (const char* a : {"--out", "", "--quiet"}) job.argv.push_back(a);
  job.argv[job.argv.size() - 2] = check.run_dir + "/out";
  job.log_path = check.run_dir + "/run.log";
  check.ran = check.failed = false;
  check.invariant.clear();
  collect(check, analysis::run_workers({job}, 1)[0], o.only_invariant);
  judge(o, check);
  report << "  one line: " << line << "\n";
  report << "    (run once: "
         << (check.failed && check.invariant == shrunk.invariant
                 ? "fails " + check.invariant + " again"
                 : "DOES NOT fail " + shrunk.invariant + " (" +
                       (check.failed ? "fails " + check.invariant : "passes") + ")")
         << ")\n";
}

void shrink_failure(const FuzzOptions& o, const scenarios::Scenario& base, const RunOutcome& r,
                    std::ostream& report) {
  int attempt = 0;
  auto still_fails = [&](const Perturbation& c) {
    RunOutcome t = r;
    // Liveness mode: every candidate keeps its recovery window after its last fault.
    t.perturbation = o.liveness ? for_liveness(c, *o.liveness, liveness_tail(base)) : c;
    t.ran = t.failed = false;
    t.invariant.clear();
    std::string dir = r.run_dir + "/shrink/" + std::to_string(attempt++);
    auto job = prepare(o, base, t, dir);
    auto exits = analysis::run_workers({job}, 1);
    collect(t, exits[0], o.only_invariant);
    judge(o, t);
    return t.failed && t.invariant == r.invariant;
  };
  Perturbation small = shrink(r.perturbation, still_fails, 150);
  if (o.liveness) small = for_liveness(small, *o.liveness, liveness_tail(base));
  RunOutcome s = r;
  s.perturbation = small;
  std::string dir = r.run_dir + "/shrunk";
  fs::create_directories(dir);
  s.yaml_path = dir + "/scenario.yaml";
  write_text(s.yaml_path, perturbed_yaml(base, small));
  report << "  shrunk (" << attempt << " tries) to " << small.faults.size() << " fault(s), "
         << "duration " << sim::format_duration(small.duration) << ", rate x" << small.rate_factor
         << ":\n";
  for (const auto& f : small.faults) report << "    " << f.describe() << "\n";
  report << "  smallest: " << reproducer(s) << "\n";
  one_line_reproducer(o, base, s, report);
}

}  // namespace

// Probes that mean something: for each probe with a metric, a run where it fired counts only
// if the same seed without the run's sampled faults (its baseline, run here on demand and
// kept in seed-N/baseline) shows less of it. Baselines are run for at most
// kBaselineTries candidate runs per probe, in campaign order, until one confirms it. Returns
// probe -> the confirming seed's index in `runs` (absent: not confirmed).
constexpr int kBaselineTries = 4;
std::map<std::string, std::size_t> confirm_probes(const FuzzOptions& o,
                                                  const std::vector<scenarios::Scenario>& bases,
                                                  const std::map<std::string, std::size_t>& base_of,
                                                  const std::vector<RunOutcome>& runs) {
  std::map<std::string, std::size_t> confirmed;
  std::map<std::size_t, std::optional<analysis::Json>> baseline;  // run index -> its summary
  auto summary_of = [](const std::string& dir) -> std::optional<analysis::Json> {
    std::string path = dir + "/out/summary.json";
    if (!fs::exists(path)) return std::nullopt;
    return analysis::Json::parse(read_text(path));
  };
  std::map<std::string, int> tried;
  for (int round = 0; round < kBaselineTries; ++round) {
    // This round's candidate per unconfirmed probe: its next run that showed the evidence.
    std::map<std::string, std::size_t> candidate;
    for (const auto& spec : probe_specs()) {
      if (spec.metric.empty() || confirmed.count(spec.name)) continue;
      int skip = tried[spec.name];
      for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto& pr = runs[i].probes;
        if (std::find(pr.begin(), pr.end(), spec.name) == pr.end()) continue;
        if (skip-- > 0) continue;
        candidate[spec.name] = i;
        ++tried[spec.name];
        break;
      }
    }
    if (candidate.empty()) break;
    std::vector<std::size_t> need;
    for (const auto& [name, i] : candidate) {
      if (!baseline.count(i) && std::find(need.begin(), need.end(), i) == need.end()) {
        need.push_back(i);
      }
    }
    std::sort(need.begin(), need.end());
    std::vector<analysis::WorkerJob> jobs;
    std::vector<RunOutcome> plain;
    for (std::size_t i : need) {
      RunOutcome b = runs[i];
      b.perturbation.faults.clear();
      jobs.push_back(prepare(o, bases[base_of.at(b.scenario)], b, runs[i].run_dir + "/baseline"));
      plain.push_back(b);
    }
    analysis::run_workers(jobs, o.jobs);
    for (std::size_t k = 0; k < need.size(); ++k) baseline[need[k]] = summary_of(plain[k].run_dir);
    for (const auto& spec : probe_specs()) {
      auto c = candidate.find(spec.name);
      if (c == candidate.end()) continue;
      auto run = summary_of(runs[c->second].run_dir);
      const auto& base = baseline[c->second];
      if (run && base && caused_by_faults(spec, *run, *base)) confirmed[spec.name] = c->second;
    }
  }
  return confirmed;
}

CampaignResult run_campaign(const FuzzOptions& o, std::ostream& report) {
  if (o.scenarios.empty()) throw std::invalid_argument("fuzz: no scenarios given");
  if (o.seeds.empty()) throw std::invalid_argument("fuzz: no seeds given");
  std::vector<scenarios::Scenario> bases;
  std::map<std::string, std::size_t> base_of;
  for (const auto& file : o.scenarios) {
    base_of[file] = bases.size();
    bases.push_back(scenarios::load_scenario_file(file, scenarios::builtin_registry()));
  }
  CampaignResult result;
  std::size_t index = 0;
  for (const auto& file : o.scenarios) {
    for (std::uint64_t seed : o.seeds) {
      std::size_t i = index++;
      if (!o.shard.contains(static_cast<int>(i))) continue;
      RunOutcome r;
      r.index = i;
      r.scenario = file;
      r.seed = seed;
      result.runs.push_back(std::move(r));
    }
  }
  result.skipped = run_all(o, result.runs, result.runs.size(), [&](std::size_t k) {
    RunOutcome& r = result.runs[k];
    const auto& base = bases[base_of[r.scenario]];
    r.perturbation = draw_perturbation(base, r.seed);
    if (o.liveness) {
      r.perturbation = for_liveness(r.perturbation, *o.liveness, liveness_tail(base));
    }
    return prepare(o, base, r, o.out + "/" + base.name + "/seed-" + std::to_string(r.seed));
  });
  if (result.skipped > 0) result.runs.resize(result.runs.size() - result.skipped);

  std::size_t failures = 0;
  for (const auto& r : result.runs) {
    if (!r.failed) continue;
    ++failures;
    report << "FAIL " << r.scenario << " seed " << r.seed << ": invariant " << r.invariant << " at "
           << (r.simulated_end.empty() ? "?" : r.simulated_end) << " (" << r.detail
           << ")\n  reproduce: " << stopping_reproducer(r)
           << "\n  or:        skysim fuzz --scenarios " << analysis::shell_word(r.scenario)
           << " --seeds " << r.seed << ".." << r.seed << "\n";
    if (static_cast<int>(failures) <= o.shrink_max) {
      shrink_failure(o, bases[base_of[r.scenario]], r, report);
    }
  }
  bool deterministic = recheck(o, bases, base_of, result.runs, report);

  // Probes, over the runs of this shard.
  std::map<std::string, std::size_t> reached;
  for (const auto& r : result.runs) {
    for (const auto& p : r.probes) ++reached[p];
  }
  bool judged = static_cast<int>(result.runs.size()) >= o.min_probe_runs;
  std::map<std::string, std::size_t> caused;
  if (judged) caused = confirm_probes(o, bases, base_of, result.runs);
  bool probes_ok = true;
  report << "probes (" << result.runs.size() << " runs" << (judged ? "" : ", too few to judge")
         << "):\n";
  for (const auto& spec : probe_specs()) {
    std::size_t n = reached.count(spec.name) ? reached[spec.name] : 0;
    bool applies = std::any_of(result.runs.begin(), result.runs.end(), [&](const RunOutcome& r) {
      return probe_applies(spec, r.perturbation);
    });
    if (!applies) continue;  // no base scenario has the hook this probe's fault needs
    bool not_caused = judged && n > 0 && !spec.metric.empty() && !caused.count(spec.name);
    bool missing = judged && (n == 0 || not_caused);
    probes_ok = probes_ok && !missing;
    std::string why;
    if (n == 0 && judged) {
      why = "  NEVER FIRED";
    } else if (not_caused) {
      why = "  NOT CAUSED BY A FAULT (the baselines of the seeds tried show as much " +
            spec.metric + ")";
    } else if (caused.count(spec.name)) {
      why = "  caused: seed " + std::to_string(result.runs[caused[spec.name]].seed) +
            " shows more " + spec.metric + " than without its faults";
    }
    char line[480];  // long enough for any evidence line (snprintf would cut it)
    std::snprintf(line, sizeof line, "  %-24s %6zu seeds  (%s)%s\n", spec.name.c_str(), n,
                  spec.evidence.c_str(), why.c_str());
    report << line;
  }
  if (o.liveness) {
    std::size_t judged_runs = 0, metastable = 0;
    for (const auto& r : result.runs) {
      judged_runs += r.liveness_judged ? 1 : 0;
      metastable += r.invariant == "liveness" ? 1 : 0;
    }
    report << "liveness: " << judged_runs << " runs judged (" << result.runs.size() - judged_runs
           << " had no fault or no row before it), " << judged_runs - metastable
           << " back in the healthy band within " << sim::format_duration(*o.liveness) << ", "
           << metastable << " metastable\n";
  }
  report << "summary: " << result.runs.size() << " runs, " << failures << " failing";
  if (result.skipped > 0) {
    report << ", " << result.skipped << " not started ("
           << (o.first_failure && failures > 0 ? "after the first failure" : "budget") << ")";
  }
  report << "\n";
  result.exit_code = (failures > 0 || !deterministic || !probes_ok) ? 1 : 0;
  return result;
}

}  // namespace skysim::fuzz
