#include "models/fanout/hyper_detector.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fanout {

void DetectorConfig::validate() const {
  if (window <= 0 || !(threshold_per_s > 0) || !(limit_per_s > 0)) {
    throw std::invalid_argument("fanout: detector window, threshold and limit must be > 0");
  }
}

HyperFollowerDetector::HyperFollowerDetector(std::uint32_t users, DetectorConfig cfg)
    : cfg_((cfg.validate(), cfg)),
      per_window_limit_(static_cast<std::uint64_t>(
          std::floor(cfg.threshold_per_s * static_cast<double>(cfg.window) / 1e9))),
      state_(users),
      first_seen_(users, -1) {}

void HyperFollowerDetector::admit_page(std::vector<std::uint32_t>& page, std::size_t from,
                                       sim::Time now) {
  std::size_t kept = from;
  for (std::size_t i = from; i < page.size(); ++i) {
    if (admit(page[i], now)) page[kept++] = page[i];
  }
  page.resize(kept);
}

bool HyperFollowerDetector::admit(std::uint32_t user, sim::Time now) {
  ++observed_;
  PerUser& s = state_[user];
  if (s.flag == kNone) {
    if (first_seen_[user] < 0) {
      first_seen_[user] = now;
    }
    const auto w = static_cast<std::uint32_t>(now / cfg_.window);
    if (s.window != w) {
      s.window = w;
      s.count = 0;
    }
    if (++s.count <= per_window_limit_) {
      return true;
    }
    // The crossing write is the first one the flag acts on.
    s.flag = static_cast<std::uint32_t>(flags_.size());
    flags_.push_back({user, now, first_seen_[user]});
    buckets_.push_back({cfg_.limit_per_s, now});
  }
  if (cfg_.block) {
    ++dropped_;
    return false;
  }
  Bucket& b = buckets_[s.flag];
  b.tokens = std::min(cfg_.limit_per_s,
                      b.tokens + cfg_.limit_per_s * static_cast<double>(now - b.refilled) / 1e9);
  b.refilled = now;
  if (b.tokens < 1.0) {
    ++dropped_;
    return false;
  }
  b.tokens -= 1.0;
  return true;
}

}  // namespace fanout
