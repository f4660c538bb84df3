// A one-file PHOLD driver over bench/phold.cpp (E = 16, seed 42, as the anchors), for comparing
// kernel variants without rebuilding skysim: driver N T callback|process|baseline
#include <cstdio>
#include <cstdlib>

#include "bench/phold.hpp"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s N T callback|process|baseline\n", argv[0]);
    return 2;
  }
  skysim::bench::PholdConfig cfg;
  cfg.lps = static_cast<std::uint32_t>(std::atoi(argv[1]));
  cfg.init_events = 16;
  cfg.until_s = std::atof(argv[2]);
  cfg.seed = 42;
  const auto r = skysim::bench::run_phold(cfg, skysim::bench::parse_phold_path(argv[3]));
  std::printf("%s events=%llu cpu=%.3f evpcpu=%.3fM fp=%016llx\n", argv[3],
              static_cast<unsigned long long>(r.events), r.cpu_s, r.events / r.cpu_s / 1e6,
              static_cast<unsigned long long>(r.fingerprint));
}
