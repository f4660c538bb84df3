#include <catch2/catch.hpp>

#include <list>
#include <string>

#include "models/memcached/item_store.hpp"
#include "models/memcached/server.hpp"

using namespace skysim::memcached;

TEST_CASE("the item store evicts the least recently used item at capacity") {
  LruItemStore store(3);
  store.set("a", McItem{1, 0});
  store.set("b", McItem{2, 0});
  store.set("c", McItem{3, 0});
  REQUIRE(store.get("a").has_value());  // a is now most recently used
  store.set("d", McItem{4, 0});         // evicts b
  CHECK_FALSE(store.get("b").has_value());
  CHECK(store.get("a")->value_bytes == 1);
  CHECK(store.get("c")->value_bytes == 3);
  CHECK(store.size() == 3);
  CHECK(store.evictions() == 1);
  store.set("c", McItem{30, 0});  // overwrite: no eviction
  CHECK(store.get("c")->value_bytes == 30);
  CHECK(store.evictions() == 1);
  CHECK(store.erase("c"));
  CHECK_FALSE(store.erase("c"));
}

TEST_CASE("server configuration errors name the field") {
  skysim::net::Endpoint addr = skysim::net::Endpoint::parse("127.0.0.1:11211");
  sim::Simulation sim(1);
  ServerConfig c;
  c.worker_threads = 0;
  CHECK_THROWS_WITH(Server(sim, addr, c, "mc"), Catch::Contains("worker_threads"));
  c = ServerConfig{};
  c.capacity_items = 0;
  CHECK_THROWS_WITH(Server(sim, addr, c, "mc"), Catch::Contains("capacity_items"));
  c = ServerConfig{};
  c.max_connections = 0;
  CHECK_THROWS_WITH(Server(sim, addr, c, "mc"), Catch::Contains("max_connections"));
}

TEST_CASE("legal keys follow gomemcache's rule") {
  CHECK(legal_key("at://did:plc:abc/app.bsky.feed.post/3mim4uloar22m"));
  CHECK_FALSE(legal_key("has space"));
  CHECK_FALSE(legal_key(std::string("ctl\x01", 4)));
  CHECK_FALSE(legal_key(std::string(251, 'k')));
  CHECK(legal_key(std::string(250, 'k')));
}

TEST_CASE("the item store matches a reference LRU under random churn") {
  // A reference LRU (std::list + std::map) and the flat store see the same random operations;
  // small key space and capacity so evictions, overwrites, erases and index shifts all happen.
  LruItemStore store(64);
  std::list<std::pair<std::string, McItem>> ref;  // front = most recently used
  std::uint64_t ref_evictions = 0;
  std::uint64_t x = 12345;
  auto next = [&] {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return x >> 33;
  };
  auto ref_find = [&](const std::string& k) {
    for (auto it = ref.begin(); it != ref.end(); ++it) {
      if (it->first == k) return it;
    }
    return ref.end();
  };
  for (int step = 0; step < 200000; ++step) {
    std::string key = "post/" + std::to_string(next() % 200);
    auto it = ref_find(key);
    switch (next() % 4) {
      case 0:
      case 1: {
        auto got = store.get(key);
        REQUIRE(got.has_value() == (it != ref.end()));
        if (got) {
          REQUIRE(got->value_bytes == it->second.value_bytes);
          ref.splice(ref.begin(), ref, it);
        }
        break;
      }
      case 2: {
        McItem item{static_cast<std::uint32_t>(step), 0};
        store.set(key, item);
        if (it != ref.end()) {
          it->second = item;
          ref.splice(ref.begin(), ref, it);
        } else {
          if (ref.size() >= 64) {
            ref.pop_back();
            ++ref_evictions;
          }
          ref.emplace_front(key, item);
        }
        break;
      }
      default:
        REQUIRE(store.erase(key) == (it != ref.end()));
        if (it != ref.end()) ref.erase(it);
    }
    REQUIRE(store.size() == ref.size());
    REQUIRE(store.evictions() == ref_evictions);
    if (step % 1000 == 0) {  // the items' memory is the sum of what the reference holds
      std::uint64_t bytes = 0;
      for (const auto& [k, item] : ref) bytes += LruItemStore::item_bytes(k, item);
      REQUIRE(store.bytes() == bytes);
    }
  }
}

TEST_CASE("an item takes memcached's ITEM_ntotal: header and CAS, key and NUL, value and CRLF") {
  LruItemStore store(2);
  store.set("post/1", McItem{1024, 0});
  CHECK(store.bytes() == 48 + 8 + 7 + 1026);
  store.set("post/1", McItem{10, 0});  // overwritten in place
  CHECK(store.bytes() == 48 + 8 + 7 + 12);
  store.set("k", McItem{0, 0});
  store.set("kk", McItem{0, 0});  // evicts post/1
  CHECK(store.bytes() == (56 + 2 + 2) + (56 + 3 + 2));
  store.erase("k");
  CHECK(store.bytes() == 56 + 3 + 2);
}
