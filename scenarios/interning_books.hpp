#pragma once
// String interning as a scenario writes it (the uid_alloc step on an fdb service;
// docs/uid-interning.md): the allocator's parameters as the step declares them, and the fdb
// service's books of acknowledged UIDs, on which the interning invariants are checked.
#include <cstdint>
#include <string>
#include <vector>

#include "components/uidalloc/ack_uniqueness.hpp"
#include "components/uidalloc/allocator_config.hpp"
#include "components/uidalloc/interning_checker.hpp"
#include "models/fdb/database.hpp"
#include "scenarios/model_registry.hpp"
#include "sim/params.hpp"

namespace skysim::scenarios {

// allocator, prefix_bits, counter_bits, shift, tries, break_on_success, hash_bits,
// collision_check: every choice of docs/uid-interning.md.
std::vector<sim::ParamSpec> allocator_params();
// The allocator those parameters configure; throws std::invalid_argument naming the field.
uidalloc::AllocatorConfig allocator_config(const sim::ParamValues& p);

// Every UID acknowledged to a caller, checked against the cluster's store.
class InterningBooks {
 public:
  void acknowledge(const std::string& str, std::uint64_t uid) {
    checker_.acknowledge(str, uid);
    acks_.acknowledge(str, uid);
  }
  // uid-interning.unique-and-durable (at the end, against the store), uid-interning.acks-unique
  // (at each acknowledgement) and fdb.serializable (at every commit) of `db`.
  std::vector<Invariant> invariants(fdb::Database& db);

 private:
  uidalloc::InterningChecker checker_;
  uidalloc::AckUniqueness acks_;
};

}  // namespace skysim::scenarios
