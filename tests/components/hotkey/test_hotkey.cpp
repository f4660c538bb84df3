#include <catch2/catch.hpp>
#include <cstdint>
#include <string>

#include "components/hotkey/hot_key_client_cache.hpp"
#include "components/hotkey/hotkey_detector.hpp"

using namespace hotkey;

TEST_CASE("Tejo's example: key A is 2 of 7 samples = 28.6 %, not hot; another A is") {
  // Window of 7, every request sampled, hot at >= 40 % (3 of 7).
  HotKeyDetector<std::string> d({1, 7, 0.4});
  for (const char* k : {"B", "A", "C", "B", "D", "E"}) {
    CHECK_FALSE(d.observe(k).hot);
  }
  Observation a = d.observe("A");
  CHECK(a.sampled);
  CHECK(a.count_in_window == 2);
  CHECK(a.window_fill == 7);
  CHECK(a.share() == Approx(2.0 / 7).epsilon(1e-12));
  CHECK(std::round(a.share() * 1000) / 10 == Approx(28.6));
  CHECK_FALSE(a.hot);
  Observation again = d.observe("A");  // pops the oldest "B"
  CHECK(again.count_in_window == 3);
  CHECK(again.hot);
  CHECK(d.count_of("B") == 1);
}

TEST_CASE("Pelikan defaults: threshold 100, counter sampling every 100th request") {
  HotKeyDetector<std::uint64_t> d;
  CHECK(d.threshold() == 100);
  int sampled = 0;
  for (int i = 0; i < 1000; ++i) {
    sampled += d.observe(static_cast<std::uint64_t>(i)).sampled ? 1 : 0;
  }
  CHECK(sampled == 10);
}

TEST_CASE("a key at 5 % share is flagged; a key at 0.5 % never is") {
  HotKeyDetector<std::uint64_t> d({1, 10'000, 0.01});
  std::uint64_t first_hot_at = 0;
  bool cold_ever_hot = false;
  for (std::uint64_t i = 1; i <= 200'000; ++i) {
    std::uint64_t key = 1'000'000 + i;  // background: all distinct
    if (i % 20 == 0) {
      key = 1;  // 5 %
    } else if (i % 200 == 1) {
      key = 2;  // 0.5 %
    }
    Observation o = d.observe(key);
    if (key == 1 && o.hot && first_hot_at == 0) {
      first_hot_at = i;
    }
    cold_ever_hot = cold_ever_hot || (key == 2 && o.hot);
  }
  // domain.md §9: first flag after ~ratio*window/p samples = 100/0.05 = 2,000.
  CHECK(first_hot_at == 2000);
  CHECK_FALSE(cold_ever_hot);
}

TEST_CASE("bad detector configuration is rejected") {
  CHECK_THROWS_AS(HotKeyDetector<int>({0, 10, 0.1}), HotKeyConfigError);
  CHECK_THROWS_AS(HotKeyDetector<int>({1, 0, 0.1}), HotKeyConfigError);
  CHECK_THROWS_AS(HotKeyDetector<int>({1, 10, 0.0}), HotKeyConfigError);
  CHECK_THROWS_AS(HotKeyDetector<int>({1, 10, 1.5}), HotKeyConfigError);
}

TEST_CASE("client cache keeps only hot replies, for the TTL") {
  HotKeyClientCache<std::uint64_t> c(1'000);
  c.on_reply(5, false, 0);
  CHECK_FALSE(c.lookup(5, 1));
  c.on_reply(5, true, 10);
  CHECK(c.lookup(5, 500));
  CHECK(c.lookup(5, 1'009));
  CHECK_FALSE(c.lookup(5, 1'010));
  CHECK(c.hits() == 2);
  CHECK(c.misses() == 2);
  CHECK_THROWS(HotKeyClientCache<int>(0));
}
