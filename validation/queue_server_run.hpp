#pragma once
// One replication of a scenarios/validation-*.yaml file: the queue-server model as a user
// runs it (loader, ScenarioRun, metrics), reduced to the numbers queueing theory predicts.
#include <cstdint>
#include <string>

namespace skysim::validation {

struct QueueServerObservation {
  double arrivals = 0;
  double rejected = 0;
  double started = 0;          // requests that reached a worker (the wait histogram's count)
  double mean_wait_s = 0;      // queue.wait_ns mean: arrival to a worker taking the request
  double waited_fraction = 0;  // started requests whose wait was > 0
  double mean_queue_length = 0;  // queue.length gauge averaged over the sampler's grid
  double window_s = 0;
  bool invariants_hold = false;
  std::uint64_t fingerprint = 0;
};

// Loads `file` with the seed and the duration replaced, runs it and reads host lab/q/0.
// Throws the loader's ScenarioError on a bad file.
QueueServerObservation run_queue_server_scenario(const std::string& file, std::uint64_t seed,
                                                 const std::string& duration);

// Where the validation scenarios live by default (the source tree's scenarios/).
std::string default_scenario_dir();

}  // namespace skysim::validation
