#pragma once
// Thread growth from blocking syscalls (domain.md §3.2), through models/goruntime's GoProcess.
#include <vector>

#include "validation/check.hpp"
#include "validation/selftest.hpp"

namespace skysim::validation {

struct GoruntimeChecks {
  std::vector<ReplicatedCheck> replicated;  // analytic, at two run lengths
  std::vector<DirectCheck> direct;
};

GoruntimeChecks goruntime_checks(const SelftestOptions& options);

}  // namespace skysim::validation
