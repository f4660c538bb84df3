#pragma once
// The time-weighted average of an integer level (customers in a system) over the window
// [from, until): what "L" means in Little's law, and, per level, the fraction of time spent
// in each state (the empirical stationary distribution of a Markov chain).
#include <cstdint>
#include <vector>

#include "sim/time.hpp"

namespace skysim::validation {

class TimeAverage {
 public:
  TimeAverage(sim::Time from, sim::Time until) : from_(from), until_(until), last_(from) {}

  // The level changes to `level` at `now` (times never go backwards).
  void set(sim::Time now, std::int64_t level) {
    advance(now);
    level_ = level;
  }
  void advance(sim::Time now) {
    if (now > until_) now = until_;  // after the window: nothing more is counted
    if (now <= from_) {
      return;  // before the window: only the level matters
    }
    sim::Time start = last_ > from_ ? last_ : from_;
    if (now > start) {
      auto span = static_cast<double>(now - start);
      area_ += static_cast<double>(level_) * span;
      if (static_cast<std::size_t>(level_) >= in_state_.size()) in_state_.resize(level_ + 1, 0.0);
      in_state_[level_] += span;
      elapsed_ += span;
    }
    last_ = now;
  }
  std::int64_t level() const { return level_; }
  double mean() const { return elapsed_ > 0 ? area_ / elapsed_ : 0.0; }
  // Fraction of the window spent at level n (0 for levels never reached).
  // Levels 0..levels()-1 have been seen inside the window.
  std::size_t levels() const { return in_state_.size(); }
  double fraction_at(std::size_t n) const {
    return n < in_state_.size() && elapsed_ > 0 ? in_state_[n] / elapsed_ : 0.0;
  }

 private:
  sim::Time from_;
  sim::Time until_;
  sim::Time last_;
  std::int64_t level_ = 0;
  double area_ = 0;
  double elapsed_ = 0;
  std::vector<double> in_state_;
};

}  // namespace skysim::validation
