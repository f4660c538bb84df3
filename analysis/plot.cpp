#include "analysis/plot.hpp"

#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "analysis/csv_header.hpp"
#include "analysis/sweep_runner.hpp"
#include "analysis/worker_pool.hpp"

namespace skysim::analysis {

namespace fs = std::filesystem;

namespace {

std::string safe_name(const std::string& s) {
  std::string out;
  for (char c : s) {
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c
                                                                                             : '_';
  }
  return out;
}

// A string literal for a gnuplot script (single quotes; a quote is doubled).
std::string gp_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    out += c == '\'' ? std::string("''") : std::string(1, c);
  }
  return out + "'";
}

std::string gp_number(double x) { return std::isfinite(x) ? format_double(x) : "NaN"; }

const char* kTerminal =
    "set terminal svg size 760,420 noenhanced font 'sans,11' background rgb 'white'\n"
    "set grid ytics lc rgb '#dddddd'\nset border 3\nset tics nomirror\n";

void run_gnuplot(const std::string& script_path) {
  std::string gnuplot = find_program("gnuplot");
  if (gnuplot.empty()) {
    throw std::runtime_error("gnuplot not found in PATH (install gnuplot-nox); no plots written");
  }
  std::string log = script_path + ".log";
  auto exits = run_workers({WorkerJob{{gnuplot, script_path}, log}}, 1);
  if (exits[0].exit_code != 0) {
    throw std::runtime_error("gnuplot " + script_path + " failed (" + exits[0].describe() +
                             "); see " + log);
  }
}

}  // namespace

std::string find_program(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) {
      return candidate.string();
    }
  }
  return "";
}

std::vector<std::string> plot_metrics(const Comparison& c, const std::string& dir) {
  fs::create_directories(dir);
  std::vector<std::string> written;
  std::string script = kTerminal;
  for (const auto& t : c.tables) {
    std::string base = (fs::path(dir) / ("metric-" + safe_name(t.metric))).string();
    std::string data;
    for (const auto& r : t.rows) {
      std::string label = r.label;
      for (auto& ch : label) {
        ch = ch == '"' ? '\'' : ch;
      }
      data += std::to_string(r.variant) + " \"" + label + "\" " + gp_number(r.summary.mean) +
              " " + gp_number(r.summary.ci_low) + " " + gp_number(r.summary.ci_high) + "\n";
    }
    write_file_text(base + ".dat", data);
    script += "set output " + gp_quote(base + ".svg") + "\n";
    script += "set title " + gp_quote(t.metric + " by variant (mean, 95% CI over seeds)") + "\n";
    script += "set xrange [-0.5:" + std::to_string(t.rows.size()) + "-0.5]\n";
    script += "set xtics rotate by -15\nset ylabel " + gp_quote(t.metric) + "\n";
    script += "plot " + gp_quote(base + ".dat") +
              " using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#1f77b4' "
              "notitle\n";
    written.push_back(base + ".svg");
  }
  if (written.empty()) {
    return written;
  }
  std::string script_path = (fs::path(dir) / "metrics.gp").string();
  write_file_text(script_path, script + "unset output\n");
  run_gnuplot(script_path);
  return written;
}

int TimeSeries::time_column() const {
  int seconds = column("time_s");
  return seconds >= 0 ? seconds : 0;
}

int TimeSeries::column(const std::string& name) const {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == name) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

TimeSeries read_timeseries(const std::string& path) {
  std::stringstream in(read_file_text(path));
  TimeSeries ts;
  std::string line;
  if (!std::getline(in, line)) {
    throw std::runtime_error(path + ": empty time series (no header)");
  }
  ts.columns = split_csv_header(line);
  std::string cell;
  int lineno = 1;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) {
      continue;
    }
    std::vector<double> row;
    std::stringstream cells(line);
    while (std::getline(cells, cell, ',')) {
      char* end = nullptr;
      double v = std::strtod(cell.c_str(), &end);
      row.push_back(end == cell.c_str() ? std::nan("") : v);
    }
    if (row.size() != ts.columns.size()) {
      throw std::runtime_error(path + ":" + std::to_string(lineno) + ": " +
                               std::to_string(row.size()) + " cells, header has " +
                               std::to_string(ts.columns.size()));
    }
    ts.rows.push_back(std::move(row));
  }
  return ts;
}

std::vector<std::string> plot_series(const Comparison& c, const std::vector<RunRecord>& records,
                                     const std::string& runs_dir,
                                     const std::vector<std::string>& names,
                                     const std::string& dir, std::ostream& warn) {
  fs::create_directories(dir);
  auto variants = c.spec.variants();
  std::vector<std::string> written;
  std::string script = kTerminal;
  for (const auto& name : names) {
    // Per variant: the sum of the series over its seeds, row by row, and the seed count.
    std::vector<std::vector<double>> sum(variants.size());
    std::vector<int> count(variants.size(), 0);
    std::vector<double> time;
    for (const auto& r : records) {
      if (!r.ok) {
        continue;
      }
      auto path = (fs::path(runs_dir) / run_dir_name(r.run) / "timeseries.csv").string();
      TimeSeries ts = read_timeseries(path);
      int col = ts.column(name);
      if (col < 0) {
        warn << "compare: --series " << name << ": not a column of " << path << "\n";
        break;
      }
      auto& s = sum[static_cast<std::size_t>(r.run.variant)];
      if (s.empty()) {
        s.assign(ts.rows.size(), 0.0);
      }
      std::size_t n = std::min(s.size(), ts.rows.size());  // runs may stop at different times
      s.resize(n);
      if (time.empty() || time.size() > n) {
        time.clear();
        for (std::size_t i = 0; i < n; ++i) {
          time.push_back(ts.rows[i][static_cast<std::size_t>(ts.time_column())]);
        }
      }
      for (std::size_t i = 0; i < n; ++i) {
        s[i] += ts.rows[i][static_cast<std::size_t>(col)];
      }
      ++count[static_cast<std::size_t>(r.run.variant)];
    }
    if (time.empty()) {
      continue;
    }
    std::string base = (fs::path(dir) / ("series-" + safe_name(name))).string();
    std::string data;
    for (std::size_t i = 0; i < time.size(); ++i) {
      data += gp_number(time[i]);
      for (std::size_t v = 0; v < variants.size(); ++v) {
        bool have = count[v] > 0 && i < sum[v].size();
        data += " " + gp_number(have ? sum[v][i] / count[v] : std::nan(""));
      }
      data += "\n";
    }
    write_file_text(base + ".dat", data);
    script += "set output " + gp_quote(base + ".svg") + "\n";
    script += "set title " + gp_quote(name + " over time (mean over seeds)") + "\n";
    script += "set key outside bottom center horizontal\nset xlabel 'time (s)'\nset ylabel " +
              gp_quote(name) + "\nplot ";
    for (std::size_t v = 0; v < variants.size(); ++v) {
      script += (v ? ", " : "") + gp_quote(base + ".dat") + " using 1:" + std::to_string(v + 2) +
                " with lines lw 2 title " + gp_quote(variants[v].label());
    }
    script += "\n";
    written.push_back(base + ".svg");
  }
  if (written.empty()) {
    return written;
  }
  std::string script_path = (fs::path(dir) / "series.gp").string();
  write_file_text(script_path, script + "unset output\n");
  run_gnuplot(script_path);
  return written;
}

}  // namespace skysim::analysis
