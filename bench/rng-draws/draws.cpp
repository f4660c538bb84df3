// Cost of counting draws (docs/benchmarks.md, h-unseed): sim::Rng::Engine (CountingEngine) vs
// the same distributions on a bare mt19937_64, interleaved, 15 rounds of 1e7 draws each
// (exponential + uniform01); prints ns/draw per round. Not built by CMake; from the repo root:
//   g++ -std=c++20 -O2 -DNDEBUG -I. -o /tmp/draws bench/rng-draws/draws.cpp && /tmp/draws
#include <chrono>
#include <cstdio>
#include "sim/rng.hpp"
template <class E> double run(E& e, int n, double& sink) {
  auto t0 = std::chrono::steady_clock::now();
  double acc = 0;
  for (int i = 0; i < n; ++i) {
    acc += boost::random::exponential_distribution<double>(1.0)(e);
    acc += boost::random::uniform_01<double>()(e);
  }
  sink += acc;
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / (2.0 * n);
}
int main() {
  sim::Rng::Engine counted(42);
  boost::random::mt19937_64 bare(42);
  double sink = 0;
  for (int r = 0; r < 15; ++r) {
    double b = run(bare, 5'000'000, sink);
    double c = run(counted, 5'000'000, sink);
    std::printf("round %d bare %.3f ns/draw counted %.3f ns/draw ratio %.3f\n", r, b, c, c / b);
  }
  std::printf("draws counted %llu (sink %g)\n", (unsigned long long)counted.draws(), sink);
}
