#include "components/errgroup/token_channel.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace errgroup {

TokenChannel::TokenChannel(std::int64_t capacity) : capacity_(capacity) {
  if (capacity < 0) {
    throw std::invalid_argument("errgroup: channel capacity must be >= 0, got " +
                                std::to_string(capacity));
  }
}

bool TokenChannel::try_send() {
  if (!receivers_.empty()) {
    Parked* r = receivers_.front();
    receivers_.pop_front();
    r->granted();
    return true;
  }
  if (len_ < capacity_) {
    ++len_;
    return true;
  }
  return false;
}

void TokenChannel::park_sender(Parked& sender) { senders_.push_back(&sender); }

bool TokenChannel::try_receive() {
  if (len_ == 0 && senders_.empty()) {
    return false;
  }
  if (len_ > 0) {
    --len_;
  }
  if (!senders_.empty()) {
    // Into the freed buffer place (or, unbuffered, straight to us): the sender is done.
    Parked* s = senders_.front();
    senders_.pop_front();
    if (capacity_ > 0) {
      ++len_;
    }
    s->granted();
  }
  return true;
}

void TokenChannel::park_receiver(Parked& receiver) { receivers_.push_back(&receiver); }

bool TokenChannel::withdraw(Parked& party) {
  for (auto* queue : {&senders_, &receivers_}) {
    auto it = std::find(queue->begin(), queue->end(), &party);
    if (it != queue->end()) {
      queue->erase(it);
      return true;
    }
  }
  return false;
}

}  // namespace errgroup
