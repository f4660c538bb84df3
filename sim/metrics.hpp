#pragma once
// The metrics registry: counters, gauges and histograms, each one series identified by a name
// plus labels (host, endpoint, client...). The per-client view is the point: the real system
// had no per-client metrics, so "few but huge" requests stayed invisible (domain.md §1.8).
//
//   sim::Counter& served = metrics.counter("http.requests", {{"host", "h3"}, {"client", "c7"}});
//   served.add(1);                                   // hot path: hold the reference
//   metrics.histogram("http.latency_ns", {{"endpoint", "getTimeline"}}).record(latency_ns);
//   metrics.gauge_fn("tcp.timewait", {{"host", "h3"}}, [&] { return double(tw.size()); });
//
// References returned by counter()/gauge()/histogram() stay valid for the registry's life.
// Series are kept in a std::map keyed by their canonical text "name{k1=v1,k2=v2}" (labels
// sorted by key), so every listing, CSV header and JSON snapshot has one deterministic order.
// Histograms are sim::Histogram: quantiles within 1/64 (1.6 %) relative error (histogram.hpp).
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/histogram.hpp"
#include "sim/simulation.hpp"

namespace sim {

class JsonWriter;

// Label pairs; order as given does not matter (canonicalised by key, duplicate keys rejected).
using Labels = std::vector<std::pair<std::string, std::string>>;

// A monotone count (requests served, connections refused).
class Counter {
 public:
  void add(std::int64_t n = 1) {
    if (n < 0) throw std::invalid_argument("Counter::add: a counter only grows (got a negative)");
    value_ += n;
  }
  std::int64_t value() const { return value_; }

 private:
  std::int64_t value_ = 0;
};

// A level that goes up and down (open sockets, queue depth, pool size). A double holds every
// integer up to 2^53 exactly, so integer levels lose nothing.
class Gauge {
 public:
  void set(double v) { value_ = v; }
  void add(double d) { value_ += d; }
  double value() const { return value_; }

 private:
  double value_ = 0;
};

// kCounterFn: a model's own running count read at sampling time (errors, kills, lines written):
// typed a counter in every output, read like a gauge_fn.
enum class SeriesType { kCounter, kGauge, kGaugeFn, kCounterFn, kHistogram };

// One registered series, as listed by MetricsRegistry::for_each.
struct SeriesView {
  const std::string& key;  // canonical "name{k=v,...}" ("name" when unlabelled)
  const std::string& name;
  const Labels& labels;  // sorted by key
  SeriesType type;
  const Counter* counter = nullptr;
  const Gauge* gauge = nullptr;
  const std::function<double()>* gauge_fn = nullptr;
  const Histogram* histogram = nullptr;
};

class MetricsRegistry {
 public:
  MetricsRegistry() = default;
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  // Returns the series, creating it on first use. Throws std::invalid_argument on a malformed
  // name or label, or if the same name+labels was registered as another type.
  Counter& counter(std::string_view name, Labels labels = {});
  Gauge& gauge(std::string_view name, Labels labels = {});
  Histogram& histogram(std::string_view name, Labels labels = {});
  // A gauge read at sampling time (e.g. the size of a model's table). Re-registering the same
  // series replaces the function. The function must stay callable while samplers run.
  void gauge_fn(std::string_view name, Labels labels, std::function<double()> fn);
  // A count kept by a model (never decreasing while its owner lives), read at sampling time:
  // a counter to summary.json, OpenMetrics and the report, so a reader takes its rate.
  void counter_fn(std::string_view name, Labels labels, std::function<double()> fn);

  // Current value of a counter, gauge or gauge_fn by canonical key; throws if absent.
  double value(std::string_view key) const;
  bool contains(std::string_view key) const { return series_.find(key) != series_.end(); }
  std::size_t size() const { return series_.size(); }

  // Every series in canonical-key order.
  void for_each(const std::function<void(const SeriesView&)>& f) const;

  // Final snapshot as one JSON object: {"<key>": {"type": ..., "name": ..., "labels": {...},
  // "value": ...}, ...}; histograms carry count, mean, min, max, p50, p90, p99, p999 and
  // their non-empty buckets as [[lowest_value, count], ...].
  void write_json(JsonWriter& w) const;
  std::string to_json() const;

  // "name{k1=v1,k2=v2}" with labels sorted by key; validates both (see metrics.cpp).
  static std::string canonical_key(std::string_view name, Labels& labels);

 private:
  struct Series {
    std::string name;
    Labels labels;
    SeriesType type;
    std::unique_ptr<Counter> counter;
    std::unique_ptr<Gauge> gauge;
    std::unique_ptr<Histogram> histogram;
    std::function<double()> fn;
  };
  Series& get(std::string_view name, Labels labels, SeriesType type);

  std::map<std::string, Series, std::less<>> series_;
};

// Samples every series of a registry every `interval` of simulated time, into rows kept in
// memory, and writes them as timeseries.csv (one row per sampling instant, one column per
// series, header sorted). What a column holds:
//   counter             cumulative value (a rate is the difference of two rows / interval)
//   gauge, gauge_fn     value at the sampling instant
//   histogram           over the INTERVAL since the previous sample (so a latency spike shows
//                       in the row where it happened, not diluted by hours of history), six
//                       columns <key>:count, :p50, :p90, :p99, :p999, :max. Quantiles keep the
//                       histogram's 1.6 % bound; :max is exact when the interval set a new
//                       all-time max, else the midpoint of the highest occupied bucket.
// Series registered after sampling started get their column from then on (earlier rows empty).
// Bounded: after max_samples values it stops recording and truncated() says so.
//
// The sampler schedules its own ticks (kind "metrics.sample", counted in the fingerprint). It
// may be destroyed before or after its Simulation: a tick left in the queue is disowned.
class TimeSeriesSampler {
 public:
  struct Sample {
    Time time;
    std::uint32_t column;
    double value;
  };

  static constexpr std::size_t kDefaultMaxSamples = 50'000'000;  // assumption: ~1.2 GB cap

  TimeSeriesSampler(Simulation& sim, const MetricsRegistry& metrics, Duration interval,
                    std::size_t max_samples = kDefaultMaxSamples);
  ~TimeSeriesSampler();
  TimeSeriesSampler(const TimeSeriesSampler&) = delete;
  TimeSeriesSampler& operator=(const TimeSeriesSampler&) = delete;

  // First sample at `first` (default: now + interval), then every interval. Calling it twice
  // is an error.
  void start(Time first = -1);
  // No more samples after this (a pending tick is disowned).
  void stop();
  // Takes one sample now (also used by every tick); e.g. call once more at the end of a run.
  void sample_now();

  Duration interval() const { return interval_; }
  std::size_t rows() const { return row_times_.size(); }
  bool truncated() const { return truncated_; }
  const std::vector<std::string>& columns() const { return columns_; }  // registration order
  const std::vector<Sample>& samples() const { return samples_; }
  // Row r was taken at row_times()[r]; its values are samples()[row_starts()[r]] up to the
  // next row's start. Two rows may share an instant (the last tick and a final sample_now).
  const std::vector<Time>& row_times() const { return row_times_; }
  const std::vector<std::size_t>& row_starts() const { return row_first_; }
  // Values of one column by name, as (time, value) pairs; empty if the column is unknown.
  std::vector<std::pair<Time, double>> column(std::string_view name) const;

  // timeseries.csv: "time_ns,time_s,<sorted columns...>", then one line per row.
  void write_csv(std::ostream& out) const;
  void write_csv_file(const std::string& path) const;  // throws std::runtime_error on failure

 private:
  class Tick;
  friend class Tick;
  struct HistogramMark {
    std::vector<std::uint64_t> counts;  // by bucket index, at the previous sample
    std::int64_t max = 0;
    std::uint64_t count = 0;
  };
  std::uint32_t column_id(const std::string& name);
  void put(const std::string& name, double v);
  void sample_histogram(const std::string& key, const Histogram& h);

  Simulation& sim_;
  const MetricsRegistry& metrics_;
  Duration interval_;
  std::size_t max_samples_;
  Tick* tick_ = nullptr;
  bool started_ = false;
  bool truncated_ = false;
  std::vector<std::string> columns_;
  std::map<std::string, std::uint32_t, std::less<>> column_ids_;
  std::map<std::string, HistogramMark, std::less<>> marks_;
  std::vector<Time> row_times_;
  std::vector<std::size_t> row_first_;  // index in samples_ of each row's first value
  std::vector<Sample> samples_;
};

}  // namespace sim
