#pragma once
// Go's `make(chan token, n)` as errgroup uses it for its semaphore: a buffer of n tokens, a FIFO
// of blocked senders and one of blocked receivers. Who blocks, and how it is woken, is the
// scheduler's business (the simulator's awaiters, or threads): it hands in a Parked and is told
// through granted() when its send or receive has happened.
#include <cstdint>
#include <deque>

namespace errgroup {

class Parked {
 public:
  // The parked send or receive has completed; called once.
  virtual void granted() = 0;

 protected:
  ~Parked() = default;
};

class TokenChannel {
 public:
  explicit TokenChannel(std::int64_t capacity);

  // `select { case ch <- token{}: ... default: }`: true if the send happened now — straight to a
  // blocked receiver, or into the buffer.
  bool try_send();
  // A send that could not happen now waits here, in order.
  void park_sender(Parked& sender);
  // `<-ch` if it can happen now: takes a buffered token (and moves the longest-blocked sender's
  // token into the freed place, granting it), or takes a blocked sender's token directly.
  bool try_receive();
  void park_receiver(Parked& receiver);
  // A parked party that gives up (its goroutine was killed). False if it was already granted.
  bool withdraw(Parked& party);

  std::int64_t len() const { return len_; }  // Go's len(ch)
  std::int64_t capacity() const { return capacity_; }
  std::int64_t blocked_senders() const { return static_cast<std::int64_t>(senders_.size()); }
  std::int64_t blocked_receivers() const { return static_cast<std::int64_t>(receivers_.size()); }

 private:
  std::int64_t capacity_;
  std::int64_t len_ = 0;
  std::deque<Parked*> senders_;
  std::deque<Parked*> receivers_;
};

}  // namespace errgroup
