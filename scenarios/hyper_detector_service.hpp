#pragma once
// The `hyper-detector` kind's detector, for the writers it watches: a go-service's
// `hyper_detect` step (through a client with `driver: detector`) and a fanout-fleet's pages (its
// `detector:`), so one detector sees every timeline write the fan-out makes, as the fanout
// kind's detect_* policies' does.
#include "models/fanout/hyper_detector.hpp"
#include "scenarios/model_registry.hpp"

namespace skysim::scenarios {

ServiceKind hyper_detector_kind();
// The detector of a `hyper-detector` host; nullptr for a host of another kind, or none, or a
// detector whose feature flag is off (every write passes).
fanout::HyperFollowerDetector* hyper_detector_of(Instance* host);

}  // namespace skysim::scenarios
