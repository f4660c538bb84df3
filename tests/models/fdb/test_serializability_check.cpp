// SerializabilityCheck: the read-set check kept outside the resolver (fdb.serializable).
#include <catch2/catch.hpp>

#include "models/fdb/serializability_check.hpp"

using fdb::ConflictRange;
using fdb::Mutation;
using fdb::MutationType;
using fdb::SerializabilityCheck;

TEST_CASE("a read overwritten in (RV, CV] is reported, one outside it is not") {
  SerializabilityCheck c;
  Mutation set{MutationType::set, "k", "v", "", 0, /*write_conflict=*/true};
  c.note_writes({}, {set}, 10);
  c.on_commit({ConflictRange{"k", {}}}, 10, 20);  // written at RV itself: seen by the read
  CHECK(c.error().empty());
  c.on_commit({ConflictRange{"other", {}}}, 5, 20);
  CHECK(c.error().empty());
  c.on_commit({ConflictRange{"k", {}}}, 9, 20);
  CHECK(c.error() ==
        "a transaction committed at version 20 read 'k' at version 9, overwritten at version 10");
}

TEST_CASE("range reads meet point writes, point reads meet range writes") {
  SerializabilityCheck points;
  points.note_writes({ConflictRange{"b", {}}}, {}, 7);
  points.on_commit({ConflictRange{"a", "c"}}, 6, 8);
  CHECK_FALSE(points.error().empty());

  SerializabilityCheck ranges;
  ranges.note_writes({ConflictRange{"a", "c"}}, {}, 7);
  ranges.on_commit({ConflictRange{"c", {}}}, 6, 8);  // end is exclusive
  CHECK(ranges.error().empty());
  ranges.on_commit({ConflictRange{"b", {}}}, 6, 8);
  CHECK_FALSE(ranges.error().empty());
}

TEST_CASE("writes without a conflict range are not FoundationDB's to check; pruning forgets") {
  SerializabilityCheck c;
  Mutation blind{MutationType::set, "k", "v", "", 0, /*write_conflict=*/false};
  c.note_writes({}, {blind}, 10);
  c.on_commit({ConflictRange{"k", {}}}, 5, 20);
  CHECK(c.error().empty());
  Mutation set{MutationType::add, "n", "1", "", 0, true};
  c.note_writes({}, {set}, 10);
  c.prune(11);  // a reader before version 11 is too old anyway
  c.on_commit({ConflictRange{"n", {}}}, 12, 20);
  CHECK(c.error().empty());
}

TEST_CASE("the ordered index, built at the first range read, sees later writes and forgets pruned ones") {
  SerializabilityCheck c;
  c.note_writes({ConflictRange{"a1", {}}}, {}, 5);
  c.on_commit({ConflictRange{"a", "b"}}, 5, 6);  // builds the index; a1 at 5 is seen by RV 5
  CHECK(c.error().empty());
  c.note_writes({ConflictRange{"a2", {}}}, {}, 8);  // a key new after the index was built
  c.note_writes({ConflictRange{"a1", {}}}, {}, 9);  // and an existing key rewritten
  c.prune(7);                                       // a1 (now 9) and a2 (8) survive
  c.on_commit({ConflictRange{"a", "a2"}}, 8, 10);   // only a1 in range: its 9 is in (8, 10]
  CHECK(c.error() ==
        "a transaction committed at version 10 read 'a'..'a2' at version 8, overwritten at "
        "version 9");

  SerializabilityCheck pruned;
  pruned.note_writes({ConflictRange{"k1", {}}}, {}, 5);
  pruned.on_commit({ConflictRange{"k", "l"}}, 5, 6);
  pruned.prune(6);  // k1 forgotten, from the hash map and from the ordered index
  pruned.on_commit({ConflictRange{"k", "l"}}, 1, 7);
  CHECK(pruned.error().empty());
}
