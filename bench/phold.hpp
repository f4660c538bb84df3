#pragma once
// PHOLD (Fujimoto 1990), the standard synthetic load for discrete-event kernels: N logical
// processes (LPs) each start with E events at times Exp(1); processing an event at time t sends
// one event to an LP drawn uniformly among all N, at t + 0.1 + Exp(1). Every event spawns
// exactly one, so E*N events circulate forever and the mean gap between a token's events is
// 1.1: a horizon T runs about N*E*T/1.1 events. Time unit: 1.0 = one simulated second.
//
// Three implementations of the same model, drawing the same random numbers in the same order:
//   callback  one sim::Handler per LP (the kernel's raw fast path);
//   process   one long-lived sim::Process per circulating token (the coroutine path);
//   baseline  a bare loop over std::priority_queue of 16-byte events (the yardstick).
// Because draws and (time, sequence) order agree, all three count the same arrivals per LP.
#include <cstdint>
#include <string>
#include <vector>

namespace skysim::bench {

enum class PholdPath { kCallback, kProcess, kBaseline };

std::string to_string(PholdPath path);
PholdPath parse_phold_path(const std::string& name);  // throws std::invalid_argument

struct PholdConfig {
  std::uint32_t lps = 1024;
  std::uint32_t init_events = 16;  // E, events per LP at the start
  double until_s = 1343.0;         // horizon T in simulated seconds
  std::uint64_t seed = 1;
  bool keep_per_lp_counts = false;  // fill PholdResult::per_lp (tests)
};

// Throws std::invalid_argument with a message naming the bad field.
void validate(const PholdConfig& cfg);

// N*E*T/1.1: each of the N*E tokens moves on average every 1.1 time units.
double phold_expected_events(const PholdConfig& cfg);

struct PholdResult {
  PholdPath path = PholdPath::kCallback;
  std::uint64_t events = 0;       // PHOLD events processed (LP arrivals) with time <= T
  std::uint64_t kernel_events = 0;  // events the kernel executed (process starts included)
  std::uint64_t fingerprint = 0;  // the kernel's run fingerprint (0 for the baseline)
  double wall_s = 0;              // wall time of the event loop only (set-up excluded)
  double cpu_s = 0;  // CPU time of the same loop: robust when other jobs share the core
  std::vector<std::uint64_t> per_lp;  // arrivals per LP, when requested

  double events_per_s() const { return wall_s > 0 ? static_cast<double>(events) / wall_s : 0; }
  double events_per_cpu_s() const {
    return cpu_s > 0 ? static_cast<double>(events) / cpu_s : 0;
  }
};

PholdResult run_phold(const PholdConfig& cfg, PholdPath path);

}  // namespace skysim::bench
