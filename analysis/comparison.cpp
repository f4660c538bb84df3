#include "analysis/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <string_view>

#include "sim/edit_distance.hpp"

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
  if (any_ok) {
    check_metric_names(spec.metrics, reported, "the runs");
  }
  return spec.metrics;
}

// Per seed index, this variant's value minus the first's, where both runs reported it.
std::optional<PairedDifference> paired_with_first(const std::vector<std::optional<double>>& base,
                                                  const std::vector<std::optional<double>>& other) {
  std::vector<double> a, b;
  for (std::size_t i = 0; i < base.size(); ++i) {
    if (base[i] && other[i]) {
      a.push_back(*base[i]);
      b.push_back(*other[i]);
    }
  }
  if (a.size() < 2) {
    return std::nullopt;
  }
  return paired_difference(a, b);
}

MetricTable table_for(const std::string& metric, const std::vector<Variant>& variants,
                      const SweepSpec& spec, const std::vector<RunRecord>& sorted) {
  MetricTable t{metric, metric_unit(metric), {}, std::nullopt};
  std::vector<std::vector<double>> samples(variants.size());
  // by_seed[variant][seed index]: the pairing of the paired test (same seed, every variant).
  std::vector<std::vector<std::optional<double>>> by_seed(
      variants.size(), std::vector<std::optional<double>>(spec.seeds.size()));
  std::vector<double> xs, ys;
  auto numeric = spec.vary.size() == 1 ? numeric_values(spec.vary[0]) : std::nullopt;
  for (const auto& r : sorted) {
    auto it = r.metrics.find(metric);
    if (!r.ok || it == r.metrics.end()) {
      continue;
    }
    samples[static_cast<std::size_t>(r.run.variant)].push_back(it->second);
    by_seed[static_cast<std::size_t>(r.run.variant)]
           [static_cast<std::size_t>(r.run.index) % spec.seeds.size()] = it->second;
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
    if (row.variant != 0) {
      row.paired = paired_with_first(by_seed[0], by_seed[static_cast<std::size_t>(row.variant)]);
    }
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

// The verdict of the paired test: "same" means no difference at the 5 % level (not proof of
// equality), "DIFFERS" a difference, "-" too few common seeds to test.
const char* paired_mark(const MetricRow& row) {
  if (row.variant == 0) {
    return "base";
  }
  if (!row.paired) {
    return "-";
  }
  return row.paired->differs ? "DIFFERS" : "same";
}

std::string p_text(const MetricRow& row) {
  if (!row.paired) {
    return "-";
  }
  if (row.paired->p_value < 1e-4) {
    return "<1e-4";
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", row.paired->p_value);
  return buf;
}

double paired_field(const MetricRow& row, double PairedDifference::*field) {
  return row.paired ? (*row.paired).*field : std::nan("");
}

Json number_or_null(double x) { return std::isfinite(x) ? Json(x) : Json(); }

}  // namespace

std::string metric_unit(const std::string& metric) {
  auto ends_with = [](std::string_view s, std::string_view tail) {
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
  };
  std::string_view m = metric;
  if (ends_with(m, ".count")) {
    return "count";
  }
  // The series name carries the unit: "requests.latency_ns{...}.p99" -> "requests.latency_ns".
  std::string_view family = m.substr(0, m.find('{'));
  if (auto dot = family.rfind('.'); family.size() == m.size() && dot != std::string_view::npos) {
    std::string_view stat = family.substr(dot + 1);  // unlabelled: strip a histogram statistic
    bool quantile = stat.size() > 1 && stat[0] == 'p' &&
                    stat.find_first_not_of("0123456789", 1) == std::string_view::npos;
    if (quantile || stat == "mean" || stat == "min" || stat == "max") {
      family = family.substr(0, dot);
    }
  }
  static const std::pair<std::string_view, const char*> kSuffixes[] = {
      {"_ns", "ns"}, {"_ms", "ms"}, {"_seconds", "s"}, {"_s", "s"}, {"_bytes", "bytes"},
      {"_mb", "MB"}, {"_fraction", "fraction"}};
  for (const auto& [suffix, unit] : kSuffixes) {
    if (ends_with(family, suffix)) {
      return unit;
    }
  }
  return "";
}

void check_metric_names(const std::vector<std::string>& wanted,
                        const std::set<std::string>& reported, const std::string& source) {
  for (const auto& m : wanted) {
    if (reported.count(m)) {
      continue;
    }
    std::vector<std::pair<std::size_t, std::string>> near;
    for (const auto& k : reported) {
      near.emplace_back(sim::edit_distance(m, k), k);
    }
    std::sort(near.begin(), near.end());
    std::string msg = "--metric " + m + ": " + source + " did not report it";
    // A typo is a few characters; beyond a quarter of the name it is a different metric.
    std::size_t limit = std::max<std::size_t>(3, m.size() / 4);
    std::string guesses;
    for (std::size_t i = 0; i < near.size() && i < 3 && near[i].first <= limit; ++i) {
      guesses += (guesses.empty() ? "" : ", ") + ("'" + near[i].second + "'");
    }
    msg += guesses.empty() ? "" : "; did you mean " + guesses + "?";
    msg += " (" + std::to_string(reported.size()) + " metrics reported";
    if (reported.size() <= 12) {
      std::string all;
      for (const auto& k : reported) {
        all += (all.empty() ? ": " : ", ") + k;
      }
      msg += all;
    }
    throw std::invalid_argument(msg + ")");
  }
}

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
    out += "\n" + t.metric + (t.unit.empty() ? "" : "  [" + t.unit + "]") + "\n";
    out += "  " + pad("variant", label_w, true) + pad("n", 5, false) + pad("mean", 14, false) +
           pad("95% CI", 30, false) + pad("ratio", 9, false) + pad("diff", 14, false) +
           pad("diff 95% CI", 30, false) + pad("p", 8, false) + "  vs first (paired)\n";
    for (const auto& r : t.rows) {
      std::string ci = "[" + fmt("%.6g", r.summary.ci_low) + ", " +
                       fmt("%.6g", r.summary.ci_high) + "]";
      std::string dci = r.paired ? "[" + fmt("%.6g", r.paired->ci_low) + ", " +
                                       fmt("%.6g", r.paired->ci_high) + "]"
                                 : "-";
      out += "  " + pad(r.label, label_w, true) + pad(std::to_string(r.summary.n), 5, false) +
             pad(fmt("%.6g", r.summary.mean), 14, false) + pad(ci, 30, false) +
             pad(fmt("%.3f", r.ratio_to_first), 9, false) +
             pad(fmt("%.6g", paired_field(r, &PairedDifference::mean)), 14, false) +
             pad(dci, 30, false) + pad(p_text(r), 8, false) + "  " + paired_mark(r) + "\n";
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
      "metric,unit,variant,label,n,mean,sd,ci95_low,ci95_high,ratio_to_first,overlaps_first,"
      "pairs,diff_mean,diff_sd,diff_ci95_low,diff_ci95_high,p_paired,differs_paired\n";
  for (const auto& t : c.tables) {
    for (const auto& r : t.rows) {
      std::string verdict =
          r.variant == 0 ? "base" : !r.paired ? "" : r.paired->differs ? "yes" : "no";
      out += field(t.metric) + "," + field(t.unit) + "," + std::to_string(r.variant) + "," +
             field(r.label) + "," +
             std::to_string(r.summary.n) + "," + format_double(r.summary.mean) + "," +
             format_double(r.summary.sd) + "," + format_double(r.summary.ci_low) + "," +
             format_double(r.summary.ci_high) + "," + format_double(r.ratio_to_first) + "," +
             (r.variant == 0 ? "base" : (r.overlaps_first ? "yes" : "no")) + "," +
             std::to_string(r.paired ? r.paired->n : 0) + "," +
             format_double(paired_field(r, &PairedDifference::mean)) + "," +
             format_double(paired_field(r, &PairedDifference::sd)) + "," +
             format_double(paired_field(r, &PairedDifference::ci_low)) + "," +
             format_double(paired_field(r, &PairedDifference::ci_high)) + "," +
             format_double(paired_field(r, &PairedDifference::p_value)) + "," + verdict + "\n";
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
      Json paired;  // null for the first row and when too few seeds pair up
      if (r.paired) {
        paired = JsonObject{{"n", Json(r.paired->n)},
                            {"mean", Json(r.paired->mean)},
                            {"sd", Json(r.paired->sd)},
                            {"ci95_low", Json(r.paired->ci_low)},
                            {"ci95_high", Json(r.paired->ci_high)},
                            {"p_value", Json(r.paired->p_value)},
                            {"differs", Json(r.paired->differs)}};
      }
      rows.push_back(JsonObject{{"variant", Json(r.variant)},
                                {"paired", paired},
                                {"label", r.label},
                                {"n", Json(r.summary.n)},
                                {"mean", number_or_null(r.summary.mean)},
                                {"sd", number_or_null(r.summary.sd)},
                                {"ci95_low", number_or_null(r.summary.ci_low)},
                                {"ci95_high", number_or_null(r.summary.ci_high)},
                                {"ratio_to_first", number_or_null(r.ratio_to_first)},
                                {"overlaps_first", Json(r.overlaps_first)}});
    }
    JsonObject table{{"metric", t.metric}, {"unit", t.unit}, {"rows", std::move(rows)}};
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
