#pragma once
// Hot-key detection as in Twitter's caches (domain.md §9, seeds/twitter-hotkey-detection.en.txt;
// Pelikan's hotkey module): every sample_rate-th request is sampled by a deterministic counter
// (not a random draw); the sampled key is pushed onto a FIFO window of the last `window`
// samples (the oldest is popped and its count decremented when the window is full) and its count
// in the window is incremented. The key is hot when its count >= ratio * window (Pelikan's
// threshold, computed once from the configured window, so a half-empty window after start-up
// cannot flag a key that is merely early). Defaults 100 / 10,000 / 0.01 (domain.md §9.1).
// Counts live in an ordered map: O(log window) per sample, no hash order anywhere.
#include <cmath>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace hotkey {

class HotKeyConfigError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct HotKeyConfig {
  std::uint32_t sample_rate = 100;  // domain.md §9.1 hotkey_sample_rate
  std::uint32_t window = 10'000;    // domain.md §9.1 hotkey_sample_size
  double ratio = 0.01;              // domain.md §9.1 threshold ratio
};

struct Observation {
  bool sampled = false;
  bool hot = false;
  std::uint32_t count_in_window = 0;  // of this key, after the push (0 when not sampled)
  std::uint32_t window_fill = 0;      // samples currently in the window
  // The share Tejo's write-up computes: count / samples in the window (2/7 = 28.6 %).
  double share() const { return window_fill ? double(count_in_window) / window_fill : 0.0; }
};

template <class Key>
class HotKeyDetector {
 public:
  explicit HotKeyDetector(HotKeyConfig cfg = {}) : cfg_(cfg) {
    if (cfg_.sample_rate == 0) {
      throw HotKeyConfigError("hotkey: sample_rate must be >= 1");
    }
    if (cfg_.window == 0) {
      throw HotKeyConfigError("hotkey: window must be >= 1");
    }
    if (!(cfg_.ratio > 0.0 && cfg_.ratio <= 1.0)) {
      throw HotKeyConfigError("hotkey: ratio must be in (0,1], got " + std::to_string(cfg_.ratio));
    }
    threshold_ = static_cast<std::uint32_t>(std::ceil(cfg_.ratio * cfg_.window - 1e-9));
    if (threshold_ == 0) {
      threshold_ = 1;
    }
    ring_.resize(cfg_.window);
  }

  // Called on every request for `key`; only every sample_rate-th one is examined.
  Observation observe(const Key& key) {
    Observation o;
    if (++requests_since_sample_ < cfg_.sample_rate) {
      return o;
    }
    requests_since_sample_ = 0;
    o.sampled = true;
    if (fill_ == cfg_.window) {
      const Key& oldest = ring_[head_];
      auto it = counts_.find(oldest);
      if (--it->second == 0) {
        counts_.erase(it);
      }
      --fill_;
      head_ = (head_ + 1) % cfg_.window;
    }
    ring_[(head_ + fill_) % cfg_.window] = key;
    ++fill_;
    o.count_in_window = ++counts_[key];
    o.window_fill = fill_;
    o.hot = o.count_in_window >= threshold_;
    hot_signals_ += o.hot ? 1 : 0;
    return o;
  }

  std::uint32_t threshold() const { return threshold_; }
  std::uint32_t count_of(const Key& key) const {
    auto it = counts_.find(key);
    return it == counts_.end() ? 0 : it->second;
  }
  std::uint64_t hot_signals() const { return hot_signals_; }
  const HotKeyConfig& config() const { return cfg_; }

 private:
  HotKeyConfig cfg_;
  std::uint32_t threshold_ = 0;
  std::uint32_t requests_since_sample_ = 0;
  std::vector<Key> ring_;
  std::size_t head_ = 0;
  std::uint32_t fill_ = 0;
  std::map<Key, std::uint32_t> counts_;
  std::uint64_t hot_signals_ = 0;
};

}  // namespace hotkey
