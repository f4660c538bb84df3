#include "app/fork_runner.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>

#include "analysis/sweep_runner.hpp"
#include "app/run_until.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/program.hpp"
#include "scenarios/model_registry.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/units.hpp"

namespace skysim::app {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> split_dots(const std::string& path) {
  std::vector<std::string> out(1);
  for (char c : path) {
    if (c == '.') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

const char* kForkablePaths =
    "only parameters declared settable (datacenters.DC.services.SVC.params.NAME or "
    "datacenters.DC.services.SVC.host_overrides.I.NAME), a go-service program's client and step "
    "parameters (datacenters.DC.services.SVC.program...NAME: a deploy) and source rates "
    "(sources.NAME.rate) can change mid-run";

scenarios::Scenario load(const std::string& file, std::uint64_t seed,
                         const std::vector<analysis::Override>& overrides) {
  scenarios::LoadOptions opts;
  opts.seed = seed;
  for (const auto& [path, value] : overrides) {
    opts.overrides.push_back({path, value});
  }
  try {
    return scenarios::load_scenario_file(file, scenarios::builtin_registry(), opts);
  } catch (const scenarios::ScenarioError& e) {
    std::string msg = file + ":";
    for (const auto& d : e.diagnostics()) {
      msg += " " + d.to_string();
    }
    throw std::invalid_argument(msg);
  }
}

void check_settable(const scenarios::ServiceSpec& svc, const std::string& param,
                    const std::string& path) {
  const scenarios::ServiceKind* kind = scenarios::builtin_registry().find(svc.kind);
  if (kind == nullptr) {
    throw std::invalid_argument("--set " + path + ": unknown kind " + svc.kind);
  }
  std::string settable;
  for (const auto& p : kind->params) {
    if (p.name == param) {
      if (p.settable) {
        return;
      }
    } else if (p.settable) {
      settable += (settable.empty() ? "" : ", ") + p.name;
    }
  }
  throw std::invalid_argument("--set " + path + ": parameter '" + param + "' of kind " + svc.kind +
                              " is not settable at run time, so it cannot change at "
                              "the fork (settable: " +
                              (settable.empty() ? "none" : settable) + "; see skysim explain " +
                              svc.kind + ")");
}

}  // namespace

sim::Time fork_time(const scenarios::Scenario& base, const std::string& fork_at) {
  std::int64_t unix_ns = 0;
  try {
    unix_ns = scenarios::parse_date_or_offset(fork_at, base.epoch_unix_ns);
  } catch (const scenarios::UnitError& e) {
    throw std::invalid_argument("--fork-at " + fork_at + ": " + e.what() + " (expected " +
                                e.expected() + ")");
  }
  sim::Time t = unix_ns - base.epoch_unix_ns;
  if (t <= 0 || t >= base.duration) {
    throw std::invalid_argument("--fork-at " + fork_at + " is not strictly inside the scenario (" +
                                sim::format_iso8601(base.epoch_unix_ns) + " .. " +
                                sim::format_iso8601(base.epoch_unix_ns + base.duration) + ")");
  }
  return t;
}

std::vector<ForkChange> resolve_fork_changes(const std::string& scenario_file, std::uint64_t seed,
                                             const std::vector<analysis::Override>& base,
                                             const std::vector<analysis::Override>& overrides,
                                             std::string* resolved_yaml) {
  // The variant is loaded like a from-the-start run, so its values are parsed, unit-converted and
  // range-checked by the loader; the fork then applies them, unconditionally, at the instant
  // (the live value may differ from the file's: the timeline may have changed it already).
  std::vector<analysis::Override> all = base;
  all.insert(all.end(), overrides.begin(), overrides.end());
  scenarios::Scenario variant = load(scenario_file, seed, all);
  std::vector<ForkChange> changes;
  for (const auto& [path, value] : overrides) {
    auto parts = split_dots(path);
    bool service_param = parts.size() == 6 && parts[0] == "datacenters" && parts[2] == "services" &&
                         parts[4] == "params";
    bool host_param = parts.size() == 7 && parts[0] == "datacenters" && parts[2] == "services" &&
                      parts[4] == "host_overrides";
    bool source_rate = parts.size() == 3 && parts[0] == "sources" && parts[2] == "rate";
    if (source_rate) {
      bool found = false;
      for (const auto& s : variant.sources) {
        if (s.name == parts[1]) {
          ForkChange c{ForkChange::Kind::SourceRate, path, s.name, "", {}};
          c.value.type = sim::ParamType::Rate;
          c.value.number = s.rate_per_s;
          changes.push_back(std::move(c));
          found = true;
        }
      }
      if (!found) {
        throw std::invalid_argument("--set " + path + ": no source named " + parts[1]);
      }
      continue;
    }
    const bool program_param = parts.size() >= 7 && parts[0] == "datacenters" &&
                               parts[2] == "services" && parts[4] == "program";
    if (program_param) {
      // A deploy at the fork: each host's process is replaced by the new build, as a timeline
      // `set:` of the program does (docs/scenarios.md, "Deploys").
      const scenarios::ServiceSpec* svc = variant.service(parts[1], parts[3]);
      if (svc == nullptr || !svc->program) {
        throw std::invalid_argument("--set " + path + ": no service running a program at " +
                                    parts[1] + "." + parts[3]);
      }
      const std::string owner = path.substr(0, path.rfind('.'));
      const std::string& name = parts.back();
      std::string why;
      if (scenarios::deployable_param(*svc->program, owner, name, why) == nullptr) {
        throw std::invalid_argument("--set " + path + ": cannot change at the fork: " + why);
      }
      const sim::ParamValues* values = nullptr;
      if (const auto* c = svc->program->client_at(owner)) values = &c->params;
      if (const auto* st = svc->program->step_at(owner)) values = &st->params;
      if (values == nullptr) throw std::invalid_argument("--set " + path + ": nothing at " + owner);
      for (int i = 0; i < svc->hosts; ++i) {
        changes.push_back({ForkChange::Kind::HostParam, path,
                           parts[1] + "/" + parts[3] + "/" + std::to_string(i), path,
                           values->get(name)});
      }
      continue;
    }
    if (!service_param && !host_param) {
      throw std::invalid_argument("--set " + path + "=" + value +
                                  ": cannot change at the fork (--fork-at); " + kForkablePaths);
    }
    const scenarios::ServiceSpec* svc = variant.service(parts[1], parts[3]);
    if (svc == nullptr) {
      throw std::invalid_argument("--set " + path + ": no service " + parts[1] + "." + parts[3]);
    }
    const std::string& param = parts.back();
    check_settable(*svc, param, path);
    for (int i = 0; i < svc->hosts; ++i) {
      if (host_param && std::to_string(i) != parts[5]) {
        continue;
      }
      const auto& values = svc->host_params[static_cast<std::size_t>(i)];
      changes.push_back({ForkChange::Kind::HostParam, path,
                         parts[1] + "/" + parts[3] + "/" + std::to_string(i), param,
                         values.get(param)});
    }
  }
  if (resolved_yaml != nullptr) {
    *resolved_yaml = scenarios::resolved_yaml(variant);
  }
  return changes;
}

void check_fork_sweep(const analysis::SweepSpec& spec) {
  std::uint64_t seed = spec.seeds.empty() ? 1 : spec.seeds.front();
  scenarios::Scenario base = load(spec.scenario, seed, spec.sets);
  sim::Time at = fork_time(base, spec.fork_at);
  if (!spec.until.empty() && parse_until(base, spec.until) <= at) {
    throw std::invalid_argument("--until " + spec.until + " is not after --fork-at " +
                                spec.fork_at + ": the branches would not run");
  }
  for (const auto& v : spec.variants()) {
    resolve_fork_changes(spec.scenario, seed, spec.sets, v.overrides);
  }
}

namespace {

void apply_at_fork(scenarios::ScenarioRun& run, const std::vector<ForkChange>& changes) {
  for (const auto& c : changes) {
    if (c.kind == ForkChange::Kind::SourceRate) {
      if (!run.set_source_rate(c.target, c.value.number)) {
        throw std::runtime_error("--set " + c.override_path + ": no source " + c.target);
      }
      continue;
    }
    if (!run.set_host_param(c.target, c.param, c.value)) {
      throw std::runtime_error("--set " + c.override_path + ": no host " + c.target);
    }
  }
}

analysis::Json changes_json(const std::vector<ForkChange>& changes) {
  analysis::JsonArray out;
  for (const auto& c : changes) {
    out.push_back(analysis::JsonObject{
        {"target", c.target},
        {"param", c.kind == ForkChange::Kind::SourceRate ? std::string("rate") : c.param},
        {"value", c.kind == ForkChange::Kind::SourceRate ? analysis::Json(c.value.number)
                                                         : analysis::Json(c.value.text)}});
  }
  return out;
}

}  // namespace

int run_fork_plan(const analysis::ForkPlan& plan) {
  using Clock = std::chrono::steady_clock;
  scenarios::Scenario base = load(plan.scenario, plan.seed, plan.sets);
  sim::Time at = fork_time(base, plan.fork_at);
  std::optional<sim::Time> until;
  if (!plan.until.empty()) {
    until = parse_until(base, plan.until);
  }
  std::string at_text = sim::format_iso8601(base.epoch_unix_ns + at);
  // Every branch's changes are resolved before the prefix runs: a bad override fails fast.
  std::vector<std::vector<ForkChange>> changes;
  std::vector<std::string> yamls(plan.branches.size());
  for (std::size_t i = 0; i < plan.branches.size(); ++i) {
    changes.push_back(
        resolve_fork_changes(plan.scenario, plan.seed, plan.sets, plan.branches[i].overrides,
                             &yamls[i]));
  }

  scenarios::ScenarioRun run(base, scenarios::builtin_registry());
  auto t0 = Clock::now();
  run.advance_to(at);
  double prefix_wall = std::chrono::duration<double>(Clock::now() - t0).count();
  std::string prefix_fp = scenarios::format_fingerprint(run.sim().fingerprint());
  std::uint64_t prefix_events = run.sim().events_executed();
  std::printf("seed %llu: prefix to %s in %.2f s wall, %llu events, fingerprint %s\n",
              static_cast<unsigned long long>(plan.seed), at_text.c_str(), prefix_wall,
              static_cast<unsigned long long>(prefix_events), prefix_fp.c_str());

  std::vector<std::string> logs;
  for (const auto& b : plan.branches) {
    fs::create_directories(b.dir);
    logs.push_back((fs::path(b.dir) / "worker.log").string());
  }
  auto exits =
      analysis::fork_branches(plan.branches.size(), plan.jobs, logs, [&](std::size_t i) -> int {
        const analysis::ForkBranch& b = plan.branches[i];
        auto t1 = Clock::now();
        apply_at_fork(run, changes[i]);
        scenarios::RunResult r = run.run(until);
        double wall = std::chrono::duration<double>(Clock::now() - t1).count();
        run.write_outputs(b.dir, r, wall);
        analysis::add_fork_to_summary((fs::path(b.dir) / "summary.json").string(),
                                      analysis::JsonObject{{"at", at_text},
                                                           {"prefix_fingerprint", prefix_fp},
                                                           {"prefix_events", prefix_events},
                                                           {"prefix_wall_seconds", prefix_wall},
                                                           {"changes", changes_json(changes[i])}});
        // The variant as a from-the-start run would have it, marked as what it is.
        analysis::write_file_text(
            (fs::path(b.dir) / "scenario.resolved.yaml").string(),
            "# forked branch: the as-was scenario ran to " + at_text +
                "; the overrides below took effect only then (replay with skysim compare "
                "--fork-at " +
                plan.fork_at + ")\n" + yamls[i]);
        std::printf("fingerprint %s  prefix %s  outputs in %s/\n",
                    scenarios::format_fingerprint(r.fingerprint).c_str(), prefix_fp.c_str(),
                    b.dir.c_str());
        if (!r.invariants_hold()) {
          std::fprintf(stderr, "invariant failed in branch %s\n", b.dir.c_str());
          return 3;
        }
        return 0;
      });
  int failed = 0;
  for (std::size_t i = 0; i < exits.size(); ++i) {
    analysis::write_file_text((fs::path(plan.branches[i].dir) / analysis::kBranchExitFile).string(),
                              exits[i].describe() + "\n");
    if (exits[i].exit_code != 0) {
      ++failed;
      std::printf("branch %s: %s\n", plan.branches[i].dir.c_str(), exits[i].describe().c_str());
    }
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace skysim::app
