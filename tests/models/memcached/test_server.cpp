#include <catch2/catch.hpp>

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
