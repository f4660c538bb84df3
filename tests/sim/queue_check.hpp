#pragma once
// Shared by the queue tests: an LCG of their own and a std::set reference order that every
// pop is checked against (time, key, and the target travelling whole).
#include <catch2/catch.hpp>
#include <cstdint>
#include <set>
#include <utility>

#include "sim/queue_entry.hpp"

namespace queue_check {
using sim::QueueEntry;

// A small LCG: the tests' own numbers, independent of the kernel's streams.
struct Lcg {
  std::uint64_t x;
  std::uint64_t next() {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return x >> 33;
  }
  std::uint64_t below(std::uint64_t n) { return next() % n; }
};

using Ref = std::set<std::pair<sim::Time, std::uint64_t>>;

// Pops one entry from q and from the reference order; they must agree.
template <class Q>
void pop_both(Q& q, Ref& ref) {
  REQUIRE(q.size() == ref.size());
  const QueueEntry e = q.pop();
  REQUIRE(e.time == ref.begin()->first);
  REQUIRE(e.key == ref.begin()->second);
  REQUIRE(e.target == e.key * 3);  // the entry travelled whole
  ref.erase(ref.begin());
}

template <class Q>
void push_both(Q& q, Ref& ref, sim::Time t, std::uint64_t& seq) {
  q.push(QueueEntry{t, seq, seq * 3});
  ref.emplace(t, seq++);
}

}  // namespace queue_check
