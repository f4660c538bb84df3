#pragma once
// queue-server: the demo service kind. c workers take requests from one FIFO queue; each
// request holds a worker for a time drawn from `service_time`; an optional capacity rejects
// arrivals when the queue is full. With Poisson arrivals and exponential service it is the
// textbook M/M/c (M/M/c/K with a capacity), so its results can be checked against Erlang C
// (tests/scenarios/test_queue_server.cpp).
#include "scenarios/model_registry.hpp"

namespace skysim::scenarios {

ServiceKind queue_server_kind();

}  // namespace skysim::scenarios
