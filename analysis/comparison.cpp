#include "analysis/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <stdexcept>

namespace skysim::analysis {

namespace {

void check_complete(const SweepSpec& spec, const std::vector<RunRecord>& records) {
  auto expected = spec.runs().size();
  std::vector<int> seen(expected, 0);
  for (const auto& r : records) {
    if (r.run.index < 0 || static_cast<std::size_t>(r.run.index) >= expected) {
      throw std::invalid_argument("run index " + std::to_string(r.run.index) +
                                  " is outside the sweep of " + std::to_string(expected) + " runs");
    }
    ++seen[static_cast<std::size_t>(r.run.index)];
  }
  std::string missing, duplicated;
  int n_missing = 0;
  for (std::size_t i = 0; i < expected; ++i) {
    if (seen[i] == 0 && n_missing++ < 10) {
      missing += (missing.empty() ? "" : ", ") + std::to_string(i);
    }
    if (seen[i] > 1) {
      duplicated += (duplicated.empty() ? "" : ", ") + std::to_string(i);
    }
  }
  if (!duplicated.empty()) {
    throw std::invalid_argument("runs given more than once: " + duplicated +
                                " (the same shard merged twice?)");
  }
  if (n_missing > 0) {
    throw std::invalid_argument(std::to_string(n_missing) + " of " + std::to_string(expected) +
                                " runs missing, e.g. run " + missing +
                                " (a shard not yet merged?)");
  }
}

std::optional<std::vector<double>> numeric_values(const Vary& v) {
  std::vector<double> out;
  for (const auto& s : v.values) {
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || !std::isfinite(d)) {
      return std::nullopt;
    }
    out.push_back(d);
  }
  return out;
}

std::vector<std::string> metric_names(const SweepSpec& spec,
                                      const std::vector<RunRecord>& records) {
  std::set<std::string> reported;
  for (const auto& r : records) {
    if (r.ok) {
      for (const auto& [name, value] : r.metrics) {
        reported.insert(name);
      }
    }
  }
  if (spec.metrics.empty()) {
    return {reported.begin(), reported.end()};
  }
  bool any_ok = std::any_of(records.begin(), records.end(), [](auto& r) { return r.ok; });
  for (const auto& m : spec.metrics) {
    if (any_ok && !reported.count(m)) {
      std::string known;
      for (const auto& k : reported) {
        known += (known.empty() ? "" : ", ") + k;
      }
      throw std::invalid_argument("--metric " + m + ": no run reported it; the runs report: " +
                                  known);
    }
  }
  return spec.metrics;
}

MetricTable table_for(const std::string& metric, const std::vector<Variant>& variants,
                      const SweepSpec& spec, const std::vector<RunRecord>& sorted) {
  MetricTable t{metric, {}, std::nullopt};
  std::vector<std::vector<double>> samples(variants.size());
  std::vector<double> xs, ys;
  auto numeric = spec.vary.size() == 1 ? numeric_values(spec.vary[0]) : std::nullopt;
  for (const auto& r : sorted) {
    auto it = r.metrics.find(metric);
    if (!r.ok || it == r.metrics.end()) {
      continue;
    }
    samples[static_cast<std::size_t>(r.run.variant)].push_back(it->second);
    if (numeric) {
      xs.push_back((*numeric)[static_cast<std::size_t>(r.run.variant)]);
      ys.push_back(it->second);
    }
  }
  for (const auto& v : variants) {
    MetricRow row;
    row.variant = v.index;
    row.label = v.label();
    const auto& xsv = samples[static_cast<std::size_t>(v.index)];
    if (!xsv.empty()) {
      row.summary = summarize(xsv);
    } else {
      row.summary.mean = row.summary.ci_low = row.summary.ci_high = std::nan("");
    }
    t.rows.push_back(row);
  }
  const auto& first = t.rows.front().summary;
  for (auto& row : t.rows) {
    bool defined = first.n > 0 && row.summary.n > 0;
    row.ratio_to_first = defined ? ratio_of_means(first, row.summary) : std::nan("");
    row.overlaps_first = defined ? intervals_overlap(first, row.summary) : false;
  }
  if (numeric && std::set<double>(xs.begin(), xs.end()).size() >= 2 && xs.size() >= 3) {
    t.trend = fit_line(xs, ys);
  }
  return t;
}

std::string fmt(const char* f, double x) {
  if (!std::isfinite(x)) {
    return "-";
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

std::string pad(std::string s, std::size_t w, bool left) {
  if (s.size() >= w) {
    return s;
  }
  return left ? s + std::string(w - s.size(), ' ') : std::string(w - s.size(), ' ') + s;
}

const char* overlap_mark(const MetricRow& row) {
  if (row.variant == 0) {
    return "base";
  }
  if (row.summary.n == 0) {
    return "-";
  }
  return row.overlaps_first ? "overlaps" : "DIFFERS";
}

Json number_or_null(double x) { return std::isfinite(x) ? Json(x) : Json(); }

}  // namespace

Comparison compare_runs(const SweepSpec& spec, std::vector<RunRecord> records) {
  check_complete(spec, records);
  std::sort(records.begin(), records.end(),
            [](const RunRecord& a, const RunRecord& b) { return a.run.index < b.run.index; });
  Comparison c;
  c.spec = spec;
  c.runs_total = static_cast<int>(records.size());
  auto variants = spec.variants();
  for (const auto& r : records) {
    if (r.ok) {
      ++c.runs_ok;
    } else {
      std::string label = variants[static_cast<std::size_t>(r.run.variant)].label();
      c.failures.push_back(FailedRun{r.run, label, r.failure, reproducer(spec, r.run)});
    }
  }
  for (const auto& m : metric_names(spec, records)) {
    c.tables.push_back(table_for(m, variants, spec, records));
  }
  return c;
}

std::string format_tables(const Comparison& c) {
  std::string out;
  out += "compare " + c.spec.scenario + ": " + std::to_string(c.runs_total) + " runs (" +
         std::to_string(c.spec.variants().size()) + " variants x " +
         std::to_string(c.spec.seeds.size()) + " seeds), " + std::to_string(c.runs_ok) +
         " ok, " + std::to_string(c.failures.size()) + " failed\n";
  std::size_t label_w = 7;
  for (const auto& v : c.spec.variants()) {
    label_w = std::max(label_w, v.label().size());
  }
  for (const auto& t : c.tables) {
    out += "\n" + t.metric + "\n";
    out += "  " + pad("variant", label_w, true) + pad("n", 5, false) + pad("mean", 14, false) +
           pad("95% CI", 30, false) + pad("ratio", 9, false) + "  vs first\n";
    for (const auto& r : t.rows) {
      std::string ci = "[" + fmt("%.6g", r.summary.ci_low) + ", " +
                       fmt("%.6g", r.summary.ci_high) + "]";
      out += "  " + pad(r.label, label_w, true) + pad(std::to_string(r.summary.n), 5, false) +
             pad(fmt("%.6g", r.summary.mean), 14, false) + pad(ci, 30, false) +
             pad(fmt("%.3f", r.ratio_to_first), 9, false) + "  " + overlap_mark(r) + "\n";
    }
    if (t.trend) {
      out += "  trend: " + fmt("%.6g", t.trend->slope) + " per unit of " +
             c.spec.vary[0].path + " (95% CI [" + fmt("%.6g", t.trend->slope_ci_low) + ", " +
             fmt("%.6g", t.trend->slope_ci_high) + "], R^2 " + fmt("%.3f", t.trend->r_squared) +
             ")\n";
    }
  }
  if (!c.failures.empty()) {
    out += "\nfailed runs (" + std::to_string(c.failures.size()) + "):\n";
    for (const auto& f : c.failures) {
      out += "  run " + std::to_string(f.run.index) + " [" + f.label + ", seed " +
             std::to_string(f.run.seed) + "]: " + f.failure + "\n    reproduce: " +
             f.reproducer + "\n";
    }
  }
  return out;
}

std::string to_csv(const Comparison& c) {
  auto field = [](const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) {
      return s;
    }
    std::string out = "\"";
    for (char ch : s) {
      out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    }
    return out + "\"";
  };
  std::string out =
      "metric,variant,label,n,mean,sd,ci95_low,ci95_high,ratio_to_first,overlaps_first\n";
  for (const auto& t : c.tables) {
    for (const auto& r : t.rows) {
      out += field(t.metric) + "," + std::to_string(r.variant) + "," + field(r.label) + "," +
             std::to_string(r.summary.n) + "," + format_double(r.summary.mean) + "," +
             format_double(r.summary.sd) + "," + format_double(r.summary.ci_low) + "," +
             format_double(r.summary.ci_high) + "," + format_double(r.ratio_to_first) + "," +
             (r.variant == 0 ? "base" : (r.overlaps_first ? "yes" : "no")) + "\n";
    }
  }
  return out;
}

Json to_json(const Comparison& c) {
  JsonArray variants;
  for (const auto& v : c.spec.variants()) {
    JsonObject o;
    for (const auto& [path, value] : v.overrides) {
      o[path] = value;
    }
    variants.push_back(JsonObject{{"index", Json(v.index)}, {"label", v.label()},
                                  {"overrides", std::move(o)}});
  }
  JsonArray tables;
  for (const auto& t : c.tables) {
    JsonArray rows;
    for (const auto& r : t.rows) {
      rows.push_back(JsonObject{{"variant", Json(r.variant)},
                                {"label", r.label},
                                {"n", Json(r.summary.n)},
                                {"mean", number_or_null(r.summary.mean)},
                                {"sd", number_or_null(r.summary.sd)},
                                {"ci95_low", number_or_null(r.summary.ci_low)},
                                {"ci95_high", number_or_null(r.summary.ci_high)},
                                {"ratio_to_first", number_or_null(r.ratio_to_first)},
                                {"overlaps_first", Json(r.overlaps_first)}});
    }
    JsonObject table{{"metric", t.metric}, {"rows", std::move(rows)}};
    if (t.trend) {
      table["trend"] = JsonObject{{"parameter", c.spec.vary[0].path},
                                  {"n", Json(t.trend->n)},
                                  {"slope", Json(t.trend->slope)},
                                  {"intercept", Json(t.trend->intercept)},
                                  {"slope_ci95_low", Json(t.trend->slope_ci_low)},
                                  {"slope_ci95_high", Json(t.trend->slope_ci_high)},
                                  {"r_squared", Json(t.trend->r_squared)}};
    }
    tables.push_back(std::move(table));
  }
  JsonArray failures;
  for (const auto& f : c.failures) {
    failures.push_back(JsonObject{{"run", Json(f.run.index)},
                                  {"variant", Json(f.run.variant)},
                                  {"label", f.label},
                                  {"seed", Json(f.run.seed)},
                                  {"failure", f.failure},
                                  {"reproducer", f.reproducer}});
  }
  return JsonObject{{"sweep", c.spec.to_json()},
                    {"variants", std::move(variants)},
                    {"runs_total", Json(c.runs_total)},
                    {"runs_ok", Json(c.runs_ok)},
                    {"tables", std::move(tables)},
                    {"failures", std::move(failures)},
                    {"exit_status", Json(c.exit_status())}};
}

}  // namespace skysim::analysis
