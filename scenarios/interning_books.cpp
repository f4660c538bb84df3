#include "scenarios/interning_books.hpp"

#include "models/fdb/store_view.hpp"
#include "scenarios/param_builder.hpp"

namespace skysim::scenarios {

using sim::ParamType;

std::vector<sim::ParamSpec> allocator_params() {
  return {
      param("allocator", ParamType::Enum, "", "sharded-sequences",
            "UID allocator (docs/uid-interning.md)", std::nullopt, std::nullopt,
            {"single-counter", "sharded-sequences", "hca", "xxhash", "snapshot-counter-bug"}),
      param("prefix_bits", ParamType::Count, "bits", "32",
            "sequence-id width: 32 published, 16 KVDB, 14 example (domain.md §10)", 1, 32),
      param("counter_bits", ParamType::Count, "bits", "0", "0 = 64 - prefix_bits (§10.2)", 0, 63),
      param("shift", ParamType::Count, "bits", "0", "0 = counter_bits; KVDB uses 32 (§10.3)", 0,
            63),
      param("tries", ParamType::Count, "", "5", "sequences tried: 5 published, 20 KVDB (§10)", 1,
            1000),
      param("break_on_success", ParamType::Bool, "", "false",
            "stop at the first usable sequence (the published loop does not, §10.3)"),
      param("hash_bits", ParamType::Count, "bits", "64", "xxhash: UID width (64 = XXH64)", 1, 64),
      param("collision_check", ParamType::Bool, "", "true", "xxhash: refuse a taken UID"),
  };
}

uidalloc::AllocatorConfig allocator_config(const sim::ParamValues& p) {
  uidalloc::AllocatorConfig a;
  a.kind = uidalloc::parse_allocator_kind(p.choice("allocator"));
  a.prefix_bits = static_cast<int>(p.count("prefix_bits"));
  a.counter_bits = static_cast<int>(p.count("counter_bits"));
  a.shift = static_cast<int>(p.count("shift"));
  a.tries = static_cast<int>(p.count("tries"));
  a.break_on_success = p.flag("break_on_success");
  a.hash_bits = static_cast<int>(p.count("hash_bits"));
  a.collision_check = p.flag("collision_check");
  a.validate();
  return a;
}

std::vector<Invariant> InterningBooks::invariants(fdb::Database& db) {
  return {{"uid-interning.unique-and-durable",
           [this, &db]() -> std::string {
             uidalloc::CheckReport r = checker_.check(fdb::LatestStoreView(db.store()));
             return r.ok() ? "" : r.summary();
           },
           /*end_only=*/true},
          {"uid-interning.acks-unique", [this] { return acks_.error(); }},
          // Kept at every commit (models/fdb/serializability_check.hpp).
          {"fdb.serializable", [&db] { return db.serializability_error(); }}};
}

}  // namespace skysim::scenarios
