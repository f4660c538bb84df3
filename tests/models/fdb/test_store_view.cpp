// LatestStoreView: the interning checker reading the store in place gives the report it gives
// on a std::map snapshot of the same store (the fuzz-interning invariant's end check).
#include <catch2/catch.hpp>

#include "components/uidalloc/allocator_config.hpp"
#include "components/uidalloc/interning.hpp"
#include "components/uidalloc/interning_checker.hpp"
#include "components/uidalloc/key_codec.hpp"
#include "models/fdb/store_view.hpp"
#include "models/fdb/versioned_store.hpp"

using uidalloc::encode_be64;
using uidalloc::string_to_uid_key;
using uidalloc::uid_to_string_key;

TEST_CASE("the checker's report on the store itself equals its report on a snapshot") {
  fdb::VersionedStore store;
  auto put = [&](const std::string& k, const std::string& v, fdb::Version at) {
    store.write(k, v, at, 0);
  };
  put(string_to_uid_key("a"), encode_be64(1), 1);
  put(uid_to_string_key(1), "a", 1);
  put(string_to_uid_key("b"), encode_be64(2), 2);  // u/2 missing
  put(string_to_uid_key("c"), encode_be64(1), 3);  // UID 1 claimed twice
  put(uid_to_string_key(7), "z", 4);               // z does not map back
  put(string_to_uid_key("gone"), encode_be64(9), 5);
  store.write(string_to_uid_key("gone"), std::nullopt, 6, 0);  // cleared: absent for both
  (void)store.ordered();                                        // part of the index built...
  put("other/key", "x", 7);                                     // ...and a key after it

  uidalloc::InterningChecker checker;
  checker.acknowledge("a", 1);
  checker.acknowledge("gone", 9);  // not durable
  checker.acknowledge("d", 4);     // never written

  uidalloc::CheckReport on_map = checker.check(store.latest_snapshot());
  uidalloc::CheckReport in_place = checker.check(fdb::LatestStoreView(store));
  REQUIRE(on_map.violation_count == 5);
  CHECK(in_place.violation_count == on_map.violation_count);
  CHECK(in_place.violations == on_map.violations);
  CHECK(in_place.strings == on_map.strings);
  CHECK(in_place.uids == on_map.uids);
  CHECK(in_place.strings == 3);
}
