#pragma once
// Per-datacenter fingerprints: a hash of everything a datacenter's series reported, sample by
// sample. The kernel's fingerprint and the per-model ones mix every host's events together, so
// they move when any datacenter changes; this one says whether *this* datacenter's observable
// trajectory changed — what a counterfactual on one datacenter must leave alone in the others.
#include <cstdint>
#include <string>
#include <string_view>

#include "sim/metrics.hpp"

namespace skysim::scenarios {

// True when a sampler column ("name{dc=east,host=east/web/0}:p99") is labelled with the
// datacenter: a `dc` label equal to it, or a `host` label under it ("east/...").
bool column_of_datacenter(std::string_view column, std::string_view dc);

// Hash of (time, column name, value) of every sample of the datacenter's columns, in sampling
// order. Equal for two runs exactly when the datacenter's columns and values are (up to hash
// collisions).
std::uint64_t datacenter_fingerprint(const sim::TimeSeriesSampler& sampler, std::string_view dc);

}  // namespace skysim::scenarios
