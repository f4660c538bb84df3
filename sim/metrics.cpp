#include "sim/metrics.hpp"

#include <algorithm>
#include <fstream>
#include <ostream>
#include <sstream>

#include "sim/json.hpp"

namespace sim {
namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == ':' || c == '-' || c == '/';
}

// Names and label keys: [A-Za-z0-9_.:/-]+. Label values: anything printable except the
// characters that delimit a series key or a CSV cell, so keys never need quoting.
void check_name(std::string_view what, std::string_view s, std::string_view series) {
  if (s.empty() || !std::all_of(s.begin(), s.end(), is_name_char)) {
    throw std::invalid_argument("metrics: bad " + std::string(what) + " '" + std::string(s) +
                                "' in series '" + std::string(series) +
                                "' (allowed: letters, digits, _ . : / -)");
  }
}

void check_value(std::string_view v, std::string_view series) {
  for (char ch : v) {
    auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f || ch == ',' || ch == '=' || ch == '{' || ch == '}' || ch == '"') {
      throw std::invalid_argument("metrics: label value '" + std::string(v) + "' in series '" +
                                  std::string(series) +
                                  "' contains a control character or one of , = { } \"");
    }
  }
}

const char* type_name(SeriesType t) {
  switch (t) {
    case SeriesType::kCounter:
      return "counter";
    case SeriesType::kGauge:
      return "gauge";
    case SeriesType::kGaugeFn:
      return "gauge";
    case SeriesType::kCounterFn:
      return "counter";
    case SeriesType::kHistogram:
      return "histogram";
  }
  return "?";
}

}  // namespace

std::string MetricsRegistry::canonical_key(std::string_view name, Labels& labels) {
  check_name("metric name", name, name);
  std::stable_sort(labels.begin(), labels.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string key(name);
  if (labels.empty()) return key;
  key += '{';
  for (std::size_t i = 0; i < labels.size(); ++i) {
    check_name("label key", labels[i].first, name);
    check_value(labels[i].second, name);
    if (i > 0) {
      if (labels[i].first == labels[i - 1].first) {
        throw std::invalid_argument("metrics: label '" + labels[i].first +
                                    "' given twice in series '" + std::string(name) + "'");
      }
      key += ',';
    }
    key += labels[i].first;
    key += '=';
    key += labels[i].second;
  }
  key += '}';
  return key;
}

MetricsRegistry::Series& MetricsRegistry::get(std::string_view name, Labels labels,
                                              SeriesType type) {
  std::string key = canonical_key(name, labels);
  auto it = series_.find(key);
  if (it != series_.end()) {
    if (it->second.type != type) {
      bool fn = it->second.type == SeriesType::kGaugeFn || it->second.type == SeriesType::kCounterFn;
      throw std::invalid_argument("metrics: series '" + key + "' already registered as a " +
                                  type_name(it->second.type) + (fn ? " function" : ""));
    }
    return it->second;
  }
  Series s{std::string(name), std::move(labels), type, nullptr, nullptr, nullptr, {}};
  switch (type) {
    case SeriesType::kCounter:
      s.counter = std::make_unique<Counter>();
      break;
    case SeriesType::kGauge:
      s.gauge = std::make_unique<Gauge>();
      break;
    case SeriesType::kHistogram:
      s.histogram = std::make_unique<Histogram>();
      break;
    case SeriesType::kGaugeFn:
    case SeriesType::kCounterFn:
      break;
  }
  return series_.emplace(std::move(key), std::move(s)).first->second;
}

Counter& MetricsRegistry::counter(std::string_view name, Labels labels) {
  return *get(name, std::move(labels), SeriesType::kCounter).counter;
}

Gauge& MetricsRegistry::gauge(std::string_view name, Labels labels) {
  return *get(name, std::move(labels), SeriesType::kGauge).gauge;
}

Histogram& MetricsRegistry::histogram(std::string_view name, Labels labels) {
  return *get(name, std::move(labels), SeriesType::kHistogram).histogram;
}

void MetricsRegistry::gauge_fn(std::string_view name, Labels labels, std::function<double()> fn) {
  if (!fn) throw std::invalid_argument("metrics: gauge_fn '" + std::string(name) + "' is empty");
  get(name, std::move(labels), SeriesType::kGaugeFn).fn = std::move(fn);
}

void MetricsRegistry::counter_fn(std::string_view name, Labels labels, std::function<double()> fn) {
  if (!fn) throw std::invalid_argument("metrics: counter_fn '" + std::string(name) + "' is empty");
  get(name, std::move(labels), SeriesType::kCounterFn).fn = std::move(fn);
}

double MetricsRegistry::value(std::string_view key) const {
  auto it = series_.find(key);
  if (it == series_.end()) {
    throw std::out_of_range("metrics: no series '" + std::string(key) + "'");
  }
  const Series& s = it->second;
  switch (s.type) {
    case SeriesType::kCounter:
      return static_cast<double>(s.counter->value());
    case SeriesType::kGauge:
      return s.gauge->value();
    case SeriesType::kGaugeFn:
    case SeriesType::kCounterFn:
      return s.fn();
    case SeriesType::kHistogram:
      break;
  }
  throw std::invalid_argument("metrics: series '" + std::string(key) +
                              "' is a histogram; use histogram() for its quantiles");
}

void MetricsRegistry::for_each(const std::function<void(const SeriesView&)>& f) const {
  for (const auto& [key, s] : series_) {
    f(SeriesView{key, s.name, s.labels, s.type, s.counter.get(), s.gauge.get(),
                 s.fn ? &s.fn : nullptr, s.histogram.get()});
  }
}

void MetricsRegistry::write_json(JsonWriter& w) const {
  w.begin_object();
  for (const auto& [key, s] : series_) {
    w.key(key).begin_object();
    w.key("type").value(type_name(s.type));
    w.key("name").value(s.name);
    w.key("labels").begin_object();
    for (const auto& [k, v] : s.labels) w.key(k).value(v);
    w.end_object();
    switch (s.type) {
      case SeriesType::kCounter:
        w.key("value").value(s.counter->value());
        break;
      case SeriesType::kGauge:
        w.key("value").value(s.gauge->value());
        break;
      case SeriesType::kGaugeFn:
      case SeriesType::kCounterFn:
        w.key("value").value(s.fn());
        break;
      case SeriesType::kHistogram: {
        const Histogram& h = *s.histogram;
        w.key("count").value(h.count());
        w.key("mean").value(h.mean());
        w.key("min").value(h.min());
        w.key("max").value(h.max());
        w.key("p50").value(h.quantile(0.5));
        w.key("p90").value(h.quantile(0.9));
        w.key("p99").value(h.quantile(0.99));
        w.key("p999").value(h.quantile(0.999));
        w.key("relative_error").value(Histogram::kRelativeError);
        w.key("buckets").begin_array();
        h.for_each_bucket([&](std::uint64_t lowest, std::uint64_t n) {
          w.begin_array().value(lowest).value(n).end_array();
        });
        w.end_array();
        break;
      }
    }
    w.end_object();
  }
  w.end_object();
}

std::string MetricsRegistry::to_json() const {
  std::ostringstream out;
  JsonWriter w(out);
  write_json(w);
  return out.str();
}

// ---- TimeSeriesSampler -----------------------------------------------------------------------

// The queue holds a Handler by reference, so the tick lives on the heap and outlives whichever
// of sampler and Simulation goes first: a disowned tick frees itself when it fires or is
// discarded.
class TimeSeriesSampler::Tick final : public Handler {
 public:
  explicit Tick(TimeSeriesSampler* owner) : owner_(owner) {}
  void on_event(Simulation& sim) override {
    if (owner_ == nullptr) {
      delete this;
      return;
    }
    owner_->sample_now();
    if (owner_->truncated_) {  // full: stop ticking rather than spin through the run
      owner_->tick_ = nullptr;
      delete this;
      return;
    }
    sim.schedule_in(owner_->interval_, *this);
  }
  void on_discard() override {
    if (owner_ != nullptr) owner_->tick_ = nullptr;
    delete this;
  }
  void disown() { owner_ = nullptr; }

 private:
  TimeSeriesSampler* owner_;
};

TimeSeriesSampler::TimeSeriesSampler(Simulation& sim, const MetricsRegistry& metrics,
                                     Duration interval, std::size_t max_samples)
    : sim_(sim), metrics_(metrics), interval_(interval), max_samples_(max_samples) {
  if (interval <= 0) {
    throw std::invalid_argument("TimeSeriesSampler: interval must be positive, got " +
                                std::to_string(interval) + " ns");
  }
}

TimeSeriesSampler::~TimeSeriesSampler() { stop(); }

void TimeSeriesSampler::start(Time first) {
  if (started_) throw std::logic_error("TimeSeriesSampler: start() called twice");
  started_ = true;
  tick_ = new Tick(this);
  tick_->kind = sim_.intern_kind("metrics.sample");
  sim_.schedule_at(first < 0 ? sim_.now() + interval_ : first, *tick_);
}

void TimeSeriesSampler::stop() {
  if (tick_ != nullptr) {
    tick_->disown();
    tick_ = nullptr;
  }
}

std::uint32_t TimeSeriesSampler::column_id(const std::string& name) {
  auto it = column_ids_.find(name);
  if (it != column_ids_.end()) return it->second;
  auto id = static_cast<std::uint32_t>(columns_.size());
  columns_.push_back(name);
  column_ids_.emplace(name, id);
  return id;
}

void TimeSeriesSampler::put(const std::string& name, double v) {
  if (samples_.size() >= max_samples_) {
    truncated_ = true;
    return;
  }
  samples_.push_back(Sample{sim_.now(), column_id(name), v});
}

void TimeSeriesSampler::sample_histogram(const std::string& key, const Histogram& h) {
  HistogramMark& mark = marks_[key];
  // The interval's histogram = current counts minus the counts at the previous sample, each
  // bucket recorded at its midpoint so quantiles read as the cumulative histogram's would.
  Histogram interval;
  std::vector<std::uint64_t> now_counts;
  h.for_each_bucket([&](std::uint64_t lowest, std::uint64_t n) {
    std::size_t i = Histogram::index_of(lowest);
    if (i >= now_counts.size()) now_counts.resize(i + 1, 0);
    now_counts[i] = n;
    std::uint64_t before = i < mark.counts.size() ? mark.counts[i] : 0;
    if (n > before) {
      interval.record(static_cast<std::int64_t>(Histogram::midpoint_of(i)), n - before);
    }
  });
  std::int64_t max = interval.max();
  if (h.count() > mark.count && h.max() > mark.max) max = h.max();  // a new all-time max: exact
  put(key + ":count", static_cast<double>(h.count() - mark.count));
  put(key + ":p50", static_cast<double>(interval.quantile(0.5)));
  put(key + ":p90", static_cast<double>(interval.quantile(0.9)));
  put(key + ":p99", static_cast<double>(interval.quantile(0.99)));
  put(key + ":p999", static_cast<double>(interval.quantile(0.999)));
  put(key + ":max", static_cast<double>(max));
  mark.counts = std::move(now_counts);
  mark.max = h.max();
  mark.count = h.count();
}

void TimeSeriesSampler::sample_now() {
  if (truncated_) return;
  row_first_.push_back(samples_.size());
  row_times_.push_back(sim_.now());
  metrics_.for_each([&](const SeriesView& s) {
    switch (s.type) {
      case SeriesType::kCounter:
        put(s.key, static_cast<double>(s.counter->value()));
        break;
      case SeriesType::kGauge:
        put(s.key, s.gauge->value());
        break;
      case SeriesType::kGaugeFn:
      case SeriesType::kCounterFn:
        put(s.key, (*s.gauge_fn)());
        break;
      case SeriesType::kHistogram:
        sample_histogram(s.key, *s.histogram);
        break;
    }
  });
}

std::vector<std::pair<Time, double>> TimeSeriesSampler::column(std::string_view name) const {
  std::vector<std::pair<Time, double>> out;
  auto it = column_ids_.find(name);
  if (it == column_ids_.end()) return out;
  for (const Sample& s : samples_) {
    if (s.column == it->second) out.emplace_back(s.time, s.value);
  }
  return out;
}

void TimeSeriesSampler::write_csv(std::ostream& out) const {
  // Sorted header; position of each column id in it.
  std::vector<std::uint32_t> order(columns_.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::uint32_t a, std::uint32_t b) { return columns_[a] < columns_[b]; });
  std::vector<std::size_t> position(columns_.size());
  for (std::size_t p = 0; p < order.size(); ++p) position[order[p]] = p;

  // A column is named by its series key exactly as summary.json, --metric and the report name it
  // ("name{dc=east,host=h1}"): a key with a comma is quoted as RFC 4180 says, so CSV readers keep
  // it whole. Rows hold only numbers, never quoted. time_ns and time_s count from the scenario's
  // epoch; time_utc is the same instant as a date, for readers that plot or join on calendar time.
  out << "time_ns,time_s,time_utc";
  for (std::uint32_t id : order) {
    const std::string& name = columns_[id];
    if (name.find_first_of(",\"") == std::string::npos) {
      out << ',' << name;
      continue;
    }
    out << ",\"";
    for (char c : name) out << (c == '"' ? "\"\"" : std::string(1, c));
    out << '"';
  }
  out << '\n';

  std::vector<std::string> cells(columns_.size());
  char buf[32];
  for (std::size_t row = 0; row < row_times_.size(); ++row) {
    Time t = row_times_[row];
    std::fill(cells.begin(), cells.end(), std::string());
    // Samples are appended row by row, so each row's samples are contiguous.
    std::size_t end = row + 1 < row_first_.size() ? row_first_[row + 1] : samples_.size();
    for (std::size_t i = row_first_[row]; i < end; ++i) {
      auto r = std::to_chars(buf, buf + sizeof buf, samples_[i].value);
      cells[position[samples_[i].column]].assign(buf, r.ptr);
    }
    auto r = std::to_chars(buf, buf + sizeof buf, to_seconds(t));
    out << t << ',' << std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)) << ','
        << format_iso8601(sim_.epoch_unix_ns() + t);
    for (const std::string& c : cells) out << ',' << c;
    out << '\n';
  }
}

void TimeSeriesSampler::write_csv_file(const std::string& path) const {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot open '" + path + "' for writing");
  write_csv(f);
  f.close();
  if (!f) throw std::runtime_error("error writing '" + path + "'");
}

}  // namespace sim
