#include "analysis/run_record.hpp"

namespace skysim::analysis {

namespace {

void flatten(const Json& j, const std::string& prefix, std::map<std::string, double>& out) {
  if (j.is_number()) {
    out[prefix] = j.as_number();
  } else if (j.is_bool()) {
    out[prefix] = j.as_bool() ? 1.0 : 0.0;
  } else if (j.is_object()) {
    // A kernel metric series (sim/metrics.cpp): {"type", "name", "labels", "value"} for
    // counters and gauges — the series key alone names it; histograms keep .count, .p99, ...
    auto type = j.find("type");
    auto value = j.find("value");
    if (type && type->is_string() && value && value->is_number()) {
      out[prefix] = value->as_number();
      return;
    }
    for (const auto& [k, v] : j.as_object()) {
      if (k == "relative_error") {
        continue;  // a constant of the histogram, not an outcome of the run
      }
      flatten(v, prefix.empty() ? k : prefix + "." + k, out);
    }
  }
  // Strings, arrays and nulls are descriptions, not metrics to average.
}

}  // namespace

std::string to_json_line(const SweepSpec& spec, const RunRecord& r) {
  JsonArray overrides;
  for (const auto& [path, value] : spec.variant(r.run.variant).overrides) {
    overrides.push_back(JsonObject{{"path", path}, {"value", value}});
  }
  JsonObject metrics;
  for (const auto& [name, value] : r.metrics) {
    metrics[name] = Json(value);
  }
  JsonObject line{{"run", Json(r.run.index)},
                  {"variant", Json(r.run.variant)},
                  {"overrides", std::move(overrides)},
                  {"seed", Json(r.run.seed)},
                  {"status", r.ok ? "ok" : "failed"},
                  {"exit_code", Json(r.exit_code)},
                  {"metrics", std::move(metrics)},
                  {"reproducer", reproducer(spec, r.run)}};
  if (!r.failure.empty()) {
    line["failure"] = r.failure;
  }
  if (!r.fingerprint.empty()) {
    line["fingerprint"] = r.fingerprint;
  }
  return Json(std::move(line)).dump();
}

std::string header_line(const RunsHeader& h) {
  return Json(JsonObject{{"format", kRunsFormat},
                         {"sweep", h.spec.to_json()},
                         {"build", h.build},
                         {"scenario_hash", h.scenario_hash}})
      .dump();
}

RunsHeader header_from_line(std::string_view text, std::string_view where) {
  try {
    Json j = Json::parse(text);
    auto format = j.is_object() ? j.find("format") : std::nullopt;
    if (!format || !format->is_string() || format->as_string() != kRunsFormat) {
      throw JsonError(std::string("not a runs header (expected {\"format\": \"") + kRunsFormat +
                      "\", ...} as the first line; a file from an older skysim carries the "
                      "sweep on every line: re-run it, or merge it with that skysim)");
    }
    return RunsHeader{SweepSpec::from_json(j.at("sweep")), j.at("build").as_string("build"),
                      j.at("scenario_hash").as_string("scenario_hash")};
  } catch (const JsonError& e) {
    throw JsonError(std::string(where) + ": " + e.what());
  }
}

RunRecord from_json_line(std::string_view text, std::string_view where, const SweepSpec& spec) {
  try {
    Json j = Json::parse(text);
    if (j.is_object() && j.find("format")) {
      throw JsonError("a second header record (two runs files concatenated?)");
    }
    RunRecord r;
    r.run.index = static_cast<int>(j.at("run").as_int("run"));
    r.run.variant = static_cast<int>(j.at("variant").as_int("variant"));
    r.run.seed = j.at("seed").as_uint64("seed");
    auto seeds = static_cast<int>(spec.seeds.size());
    auto variants = static_cast<int>(spec.variants().size());
    if (seeds == 0 || r.run.index < 0 || r.run.index >= seeds * variants ||
        r.run.index / seeds != r.run.variant ||
        spec.seeds[static_cast<std::size_t>(r.run.index % seeds)] != r.run.seed) {
      throw JsonError("run " + std::to_string(r.run.index) + " (variant " +
                      std::to_string(r.run.variant) + ", seed " + std::to_string(r.run.seed) +
                      ") is not a run of the sweep in the file's header");
    }
    const auto& status = j.at("status").as_string("status");
    if (status != "ok" && status != "failed") {
      throw JsonError("status: expected \"ok\" or \"failed\", found \"" + status + "\"");
    }
    r.ok = status == "ok";
    r.exit_code = static_cast<int>(j.at("exit_code").as_int("exit_code"));
    if (auto f = j.find("failure")) {
      r.failure = f->as_string("failure");
    }
    if (auto f = j.find("fingerprint")) {
      r.fingerprint = f->as_string("fingerprint");
    }
    for (const auto& [name, value] : j.at("metrics").as_object("metrics")) {
      r.metrics[name] = value.as_number("metrics." + name);
    }
    return r;
  } catch (const JsonError& e) {
    throw JsonError(std::string(where) + ": " + e.what());
  }
}

std::map<std::string, double> metrics_from_summary(const Json& summary) {
  std::map<std::string, double> out;
  flatten(summary.at("metrics"), "", out);
  return out;
}

}  // namespace skysim::analysis
