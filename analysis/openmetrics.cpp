#include "analysis/openmetrics.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace skysim::analysis {

namespace {

using Type = SeriesDescription::Type;

// The sampler's per-interval histogram columns, and the quantile each stands for.
constexpr std::array<std::string_view, 6> kStats = {"count", "p50", "p90", "p99", "p999", "max"};
constexpr std::array<std::string_view, 5> kQuantiles = {"0.5", "0.9", "0.99", "0.999", "1"};

bool is_om_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

std::string mapped(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (!is_om_char(c)) c = '_';
  }
  return out;
}

const char* type_text(Type t) {
  switch (t) {
    case Type::kCounter:
      return "counter";
    case Type::kGauge:
      return "gauge";
    case Type::kHistogram:
      return "summary";
  }
  return "unknown";
}

std::string help_text(Type t, const std::string& name) {
  switch (t) {
    case Type::kCounter:
      return "skysim counter " + name +
             ": cumulative since the series was registered, at simulated sampling instants";
    case Type::kGauge:
      return "skysim gauge " + name + ": the value at each simulated sampling instant";
    case Type::kHistogram:
      break;
  }
  return "skysim histogram " + name +
         " as a summary: each quantile (1 = the max) covers only the observations since the "
         "series' previous sample, NaN when there were none, within 1.6 % relative error; "
         "_count is cumulative; no _sum is kept";
}

struct Family {
  std::string skysim_name;
  Type type;
  std::vector<const std::string*> keys;  // skysim series keys, in key order
};

// Consecutive rows at one instant, [begin, end).
struct Instant {
  std::int64_t time_ns;
  std::size_t begin, end;
};

std::vector<Instant> instants(const TimeSeriesTable& t) {
  if (t.time_ns.size() != t.time_s.size()) {
    throw std::invalid_argument(
        "openmetrics: the time series has no time_ns column (exact instants are needed)");
  }
  std::vector<Instant> out;
  for (std::size_t r = 0; r < t.time_ns.size(); ++r) {
    if (!out.empty() && t.time_ns[r] == out.back().time_ns) {
      out.back().end = r + 1;
      continue;
    }
    if (!out.empty() && t.time_ns[r] < out.back().time_ns) {
      throw std::invalid_argument("openmetrics: time goes backwards at row " +
                                  std::to_string(r + 1));
    }
    out.push_back(Instant{t.time_ns[r], r, r + 1});
  }
  return out;
}

std::string labels_text(const SeriesDescription& s, const std::string& key,
                        std::string_view quantile) {
  std::string out;
  std::set<std::string> seen;
  for (const auto& [k, v] : s.labels) {
    std::string name = openmetrics_label_name(k);
    if (name.rfind("__", 0) == 0) {
      throw std::invalid_argument("openmetrics: label '" + k + "' of series '" + key +
                                  "' maps to '" + name + "', a name Prometheus reserves");
    }
    if (!seen.insert(name).second) {
      throw std::invalid_argument("openmetrics: two labels of series '" + key +
                                  "' map to the label name '" + name + "'");
    }
    if (!quantile.empty() && name == "quantile") {
      throw std::invalid_argument("openmetrics: histogram '" + key +
                                  "' has a label 'quantile', which its summary needs for itself");
    }
    out += (out.empty() ? "" : ",") + name + "=\"" + escape_label_value(v) + '"';
  }
  if (!quantile.empty())
    out += (out.empty() ? "" : ",") + std::string("quantile=\"") + std::string(quantile) + '"';
  return out.empty() ? out : "{" + out + "}";
}

class Writer {
 public:
  Writer(std::ostream& out, const SampledRun& run)
      : out_(out), run_(run), instants_(instants(run.table)) {
    for (std::size_t c = 0; c < run.table.columns.size(); ++c) {
      columns_.emplace(run.table.columns[c], c);
    }
  }

  void write() {
    std::map<std::string, Family> families;
    std::map<std::string, std::string> sample_owner;  // sample name -> family
    for (const auto& [key, s] : run_.series) {
      std::string fam = openmetrics_name(s.name);
      auto [it, fresh] = families.emplace(fam, Family{s.name, s.type, {}});
      if (it->second.skysim_name != s.name) {
        throw std::invalid_argument("openmetrics: '" + it->second.skysim_name + "' and '" + s.name +
                                    "' both map to the name '" + fam + "'");
      }
      if (it->second.type != s.type) {
        throw std::invalid_argument("openmetrics: series of '" + s.name +
                                    "' have different types (" + type_text(s.type) + ", " +
                                    type_text(it->second.type) + "); one family has one type");
      }
      it->second.keys.push_back(&key);
      if (fresh) claim_samples(fam, s.type, sample_owner);
    }
    std::vector<bool> used(run_.table.columns.size(), false);
    for (const auto& [fam, f] : families) {
      out_ << "# TYPE " << fam << ' ' << type_text(f.type) << '\n';
      std::string unit = openmetrics_unit(fam);
      if (!unit.empty()) out_ << "# UNIT " << fam << ' ' << unit << '\n';
      out_ << "# HELP " << fam << ' ' << escape_label_value(help_text(f.type, f.skysim_name))
           << '\n';
      for (const std::string* key : f.keys) {
        const SeriesDescription& s = run_.series.at(*key);
        if (s.type == Type::kHistogram) {
          write_histogram(fam, *key, s, used);
        } else {
          write_scalar(fam, *key, s, used);
        }
      }
    }
    for (std::size_t c = 0; c < used.size(); ++c) {
      if (!used[c]) {
        throw std::invalid_argument("openmetrics: column '" + run_.table.columns[c] +
                                    "' belongs to no series in the run's metrics");
      }
    }
    out_ << "# EOF\n";
  }

 private:
  // OpenMetrics names the samples of a family with suffixes; two families must not share one.
  static void claim_samples(const std::string& fam, Type t,
                            std::map<std::string, std::string>& owner) {
    std::vector<std::string> names;
    if (t == Type::kCounter) names = {fam + "_total"};
    if (t == Type::kGauge) names = {fam};
    if (t == Type::kHistogram) names = {fam, fam + "_count"};
    for (const auto& n : names) {
      auto [it, fresh] = owner.emplace(n, fam);
      if (!fresh) {
        throw std::invalid_argument("openmetrics: families '" + it->second + "' and '" + fam +
                                    "' would both write samples named '" + n + "'");
      }
    }
  }

  const std::optional<double>& cell(std::size_t col, std::size_t row) const {
    return run_.table.values[col][row];
  }

  std::optional<std::size_t> column(const std::string& name) const {
    auto it = columns_.find(name);
    if (it == columns_.end()) return std::nullopt;
    return it->second;
  }

  void sample(const std::string& name, const std::string& labels, double v, std::int64_t t) {
    out_ << name << labels << ' ' << openmetrics_value(v) << ' '
         << openmetrics_timestamp(run_.epoch_unix_ns + t) << '\n';
  }

  void write_scalar(const std::string& fam, const std::string& key, const SeriesDescription& s,
                    std::vector<bool>& used) {
    auto col = column(key);
    if (!col) return;  // registered, never sampled
    used[*col] = true;
    bool counter = s.type == Type::kCounter;
    std::string name = counter ? fam + "_total" : fam;
    std::string labels = labels_text(s, key, "");
    for (const Instant& in : instants_) {
      std::optional<double> v;
      for (std::size_t r = in.begin; r < in.end; ++r) {
        if (cell(*col, r)) v = cell(*col, r);  // the last row at the instant: after every event
      }
      if (!v) continue;
      if (counter && !(*v >= 0)) {
        throw std::invalid_argument("openmetrics: counter '" + key + "' is " +
                                    openmetrics_value(*v) + " at " +
                                    openmetrics_timestamp(run_.epoch_unix_ns + in.time_ns) +
                                    " (a counter is never negative or NaN)");
      }
      sample(name, labels, *v, in.time_ns);
    }
  }

  void write_histogram(const std::string& fam, const std::string& key, const SeriesDescription& s,
                       std::vector<bool>& used) {
    std::array<std::size_t, kStats.size()> cols{};
    std::size_t found = 0;
    for (std::size_t i = 0; i < kStats.size(); ++i) {
      if (auto c = column(key + ":" + std::string(kStats[i]))) {
        cols[i] = *c;
        used[*c] = true;
        ++found;
      }
    }
    if (found == 0) return;  // registered, never sampled
    if (found != kStats.size()) {
      throw std::invalid_argument(
          "openmetrics: histogram '" + key + "' has " + std::to_string(found) + " of its " +
          std::to_string(kStats.size()) + " columns (:count :p50 :p90 :p99 :p999 :max)");
    }
    std::array<std::string, kQuantiles.size()> labels;
    for (std::size_t q = 0; q < kQuantiles.size(); ++q)
      labels[q] = labels_text(s, key, kQuantiles[q]);
    std::string count_labels = labels_text(s, key, "");
    double cumulative = 0;
    for (const Instant& in : instants_) {
      double count = 0;
      std::optional<std::size_t> fullest;  // the row with the most observations
      double fullest_count = 0;
      bool any = false;
      for (std::size_t r = in.begin; r < in.end; ++r) {
        const auto& n = cell(cols[0], r);
        if (!n) continue;
        if (!(*n >= 0) || *n != std::floor(*n)) {
          throw std::invalid_argument("openmetrics: histogram '" + key + "' counts " +
                                      openmetrics_value(*n) + " observations at " +
                                      openmetrics_timestamp(run_.epoch_unix_ns + in.time_ns));
        }
        any = true;
        count += *n;
        if (*n > fullest_count) {
          fullest_count = *n;
          fullest = r;
        }
      }
      if (!any) continue;
      cumulative += count;
      for (std::size_t q = 0; q < kQuantiles.size(); ++q) {
        double v = std::nan("");
        if (fullest) {
          const auto& c = cell(cols[q + 1], *fullest);
          v = c ? *c : v;
        }
        if (q + 1 == kQuantiles.size()) {  // the max: the largest of the rows that saw any
          for (std::size_t r = in.begin; r < in.end; ++r) {
            const auto& n = cell(cols[0], r);
            const auto& m = cell(cols[q + 1], r);
            if (n && *n > 0 && m && !(*m <= v)) v = *m;
          }
        }
        sample(fam, labels[q], v, in.time_ns);
      }
      sample(fam + "_count", count_labels, cumulative, in.time_ns);
    }
  }

  std::ostream& out_;
  const SampledRun& run_;
  std::vector<Instant> instants_;
  std::map<std::string, std::size_t> columns_;
};

}  // namespace

std::string openmetrics_name(std::string_view skysim_name) {
  return "skysim_" + mapped(skysim_name);
}

std::string openmetrics_label_name(std::string_view skysim_key) {
  std::string out = mapped(skysim_key);
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out.insert(out.begin(), '_');
  return out;
}

// OpenMetrics escapes label values and HELP texts alike.
std::string escape_label_value(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string openmetrics_unit(std::string_view family_name) {
  for (std::string_view unit : {"ns", "us", "ms", "seconds", "bytes"}) {
    if (family_name.size() > unit.size() + 1 &&
        family_name.substr(family_name.size() - unit.size()) == unit &&
        family_name[family_name.size() - unit.size() - 1] == '_') {
      return std::string(unit);
    }
  }
  return "";
}

std::string openmetrics_timestamp(std::int64_t unix_ns) {
  constexpr std::int64_t kNsPerS = 1'000'000'000;
  std::int64_t s = unix_ns / kNsPerS, ns = unix_ns % kNsPerS;
  if (ns < 0) {  // before 1970: floor, so the fraction stays positive
    ns += kNsPerS;
    s -= 1;
  }
  std::string out = std::to_string(s);
  if (ns == 0) return out;
  char frac[16];
  std::snprintf(frac, sizeof frac, "%09lld", static_cast<long long>(ns));
  std::string f(frac);
  while (f.back() == '0') f.pop_back();
  return out + "." + f;
}

std::string openmetrics_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == 0) return "0";                                         // also -0
  if (v == std::floor(v) && std::fabs(v) < 9007199254740992.0) {  // 2^53: every integer exact
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::map<std::string, SeriesDescription> series_from_summary(const Json& summary) {
  std::map<std::string, SeriesDescription> out;
  std::optional<Json> metrics = summary.find("metrics");
  if (!metrics || !metrics->is_object()) {
    throw std::invalid_argument("summary.json has no \"metrics\" object");
  }
  for (const auto& [key, m] : metrics->as_object()) {
    try {
      SeriesDescription d;
      const std::string& type = m.at("type").as_string("type");
      if (type == "counter") {
        d.type = Type::kCounter;
      } else if (type == "gauge") {
        d.type = Type::kGauge;
      } else if (type == "histogram") {
        d.type = Type::kHistogram;
      } else {
        throw std::invalid_argument("unknown type '" + type + "'");
      }
      d.name = m.at("name").as_string("name");
      for (const auto& [k, v] : m.at("labels").as_object("labels")) {
        d.labels.emplace_back(k, v.as_string("label value"));
      }
      out.emplace(key, std::move(d));
    } catch (const std::exception& e) {
      throw std::invalid_argument("summary.json metrics['" + key + "']: " + e.what());
    }
  }
  return out;
}

void write_openmetrics(std::ostream& out, const SampledRun& run) { Writer(out, run).write(); }

std::string to_openmetrics(const SampledRun& run) {
  std::ostringstream out;
  write_openmetrics(out, run);
  return out.str();
}

}  // namespace skysim::analysis
