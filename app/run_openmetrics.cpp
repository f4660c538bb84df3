#include "app/run_openmetrics.hpp"

#include "analysis/sweep_runner.hpp"

namespace skysim::app {

analysis::SampledRun sampled_run(scenarios::ScenarioRun& run) {
  using Type = analysis::SeriesDescription::Type;
  analysis::SampledRun out;
  out.epoch_unix_ns = run.scenario().epoch_unix_ns;
  run.metrics().for_each([&](const sim::SeriesView& s) {
    bool counts = s.type == sim::SeriesType::kCounter || s.type == sim::SeriesType::kCounterFn;
    Type t = counts                                  ? Type::kCounter
             : s.type == sim::SeriesType::kHistogram ? Type::kHistogram
                                                     : Type::kGauge;  // gauge and gauge_fn
    out.series.emplace(s.key, analysis::SeriesDescription{s.name, s.labels, t});
  });
  const sim::TimeSeriesSampler& sampler = run.sampler();
  const auto& times = sampler.row_times();
  const auto& starts = sampler.row_starts();
  const auto& samples = sampler.samples();
  analysis::TimeSeriesTable& table = out.table;
  table.columns = sampler.columns();
  table.values.assign(table.columns.size(),
                      std::vector<std::optional<double>>(times.size(), std::nullopt));
  for (std::size_t r = 0; r < times.size(); ++r) {
    table.time_ns.push_back(times[r]);
    table.time_s.push_back(sim::to_seconds(times[r]));
    std::size_t end = r + 1 < starts.size() ? starts[r + 1] : samples.size();
    for (std::size_t i = starts[r]; i < end; ++i) {
      table.values[samples[i].column][r] = samples[i].value;
    }
  }
  return out;
}

void write_run_openmetrics(scenarios::ScenarioRun& run, const std::string& path) {
  analysis::write_file_text(path, analysis::to_openmetrics(sampled_run(run)));
}

}  // namespace skysim::app
