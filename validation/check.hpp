#pragma once
// One line of the selftest table and the two ways a line earns its verdict:
//
//   ReplicatedCheck  a number with an analytic value: one observation per seed (independent
//                    replications), a Student-t interval from them, PASS when the analytic value
//                    lies inside. The verdict interval is family-wise (Bonferroni over every
//                    statistical line of the table), so one table of many lines still has <= 5 %
//                    chance of a false FAIL; the 95 % interval is shown too.
//   BandCheck        a published figure that is a range or a bound ("~600 us", "> 90 %"): one
//                    observation per seed, PASS only when the whole 95 % interval lies inside
//                    the accepted range (so a noisy run cannot pass by straddling it).
//   DirectCheck      a property that is exact (FIFO order, determinism) or already a test
//                    statistic (chi-square, KS p-values, published arithmetic).
//
// A band or direct line may name a known departure: a published figure the model is known not to
// reproduce, with the page that says why. It is still measured and judged; when it fails its
// verdict reads DEPARTS and it does not fail the table, and the table's last line counts it, so
// a departure is shown, never dropped. If it starts to hold, the verdict says so.
#include <string>
#include <vector>

#include "validation/confidence.hpp"

namespace skysim::validation {

struct ReplicatedCheck {
  std::string claim;
  std::string source;           // a file in docs/ or the seeds, or a textbook reference
  double expected = 0;
  std::vector<double> per_seed;  // the observation of each replication at the full length
  std::vector<double> per_seed_short;  // at a quarter of the length, other seeds (optional)
  std::string unit;             // for display: "ms", "/s", ""
  double display_scale = 1;     // value * display_scale is printed
  double resolution = 0;        // widest 95 % half-width the check accepts as informative
};

struct BandCheck {
  std::string claim;
  std::string source;
  std::string expected;  // the published figure and the range read from it
  double low = 0;        // accepted range of the mean, in the per-seed unit
  double high = 0;
  std::vector<double> per_seed;
  std::string unit;
  double display_scale = 1;
  std::string note;  // shown after the interval (how the number was obtained)
  std::string known_departure;  // "" or the doc that explains why the model departs
};

struct DirectCheck {
  std::string claim;
  std::string source;
  std::string expected;
  std::string simulated;
  bool pass = false;
  bool statistical = false;  // a p-value test: counts in the family-wise correction
  std::string known_departure;  // as BandCheck's: shown as DEPARTS, never dropped
};

struct CheckRow {
  std::string claim;
  std::string source;
  std::string expected;
  std::string simulated;
  std::string verdict;  // PASS, PASS (family-wise), FAIL (...), DEPARTS (...)
  bool pass = false;
  bool known_departure = false;  // failed, and documented as a departure: does not fail the table
  bool holds() const { return pass || known_departure; }
};

// The lines one model contributes to the published-figures part of the table.
struct FigureChecks {
  std::vector<BandCheck> band;
  std::vector<DirectCheck> direct;
};

// Per-line confidence that keeps the family-wise error at `family_alpha` over `lines` lines.
double bonferroni_confidence(int lines, double family_alpha = 0.05);

// Turns a replicated check into a row, judged at `verdict_confidence`.
CheckRow judge(const ReplicatedCheck& c, double verdict_confidence);
CheckRow judge(const DirectCheck& c);
CheckRow judge(const BandCheck& c);

// The 1/sqrt(T) law for the confidence intervals: over the checks that have short runs, the
// geometric mean of half_width(T/4) / half_width(T) must be 2; the accepted range comes from
// the sampling spread of a standard deviation (Var log s ~ 1 / (2 (n - 1)) per run length).
CheckRow judge_shrinkage(const std::vector<const ReplicatedCheck*>& checks,
                         double verdict_confidence);

// The table, one line per row, columns padded; ends with a "N/M checks hold" line (and how
// many of the others are known departures).
std::string format_table(const std::vector<CheckRow>& rows);

std::string format_number(double v, int significant = 4);

}  // namespace skysim::validation
