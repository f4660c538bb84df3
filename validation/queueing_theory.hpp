#pragma once
// The analytic answers the simulator is checked against. Rates are per second, times in
// seconds. Formulas: Kleinrock, "Queueing Systems" vol. 1 (1975) — Erlang C §3.5, M/M/c/K
// §3.6 (here solved numerically from the generator), Pollaczek–Khinchine §5.6; exact
// mean-value analysis: Reiser & Lavenberg, J. ACM 27(2), 1980.
#include <vector>

namespace skysim::validation {

// Erlang C: the probability that an arrival waits, c servers at offered load a = lambda/mu.
// Throws std::invalid_argument unless c >= 1 and 0 < a < c (an unstable queue has no answer).
double erlang_c(int servers, double offered_load);

// M/M/c mean wait in queue Wq = C(c, a) / (c mu - lambda).
double mmc_mean_wait(int servers, double arrival_rate, double service_rate);

// M/D/1 mean wait in queue by Pollaczek–Khinchine: Wq = rho S / (2 (1 - rho)).
double md1_mean_wait(double arrival_rate, double service_time);

// The birth–death chain of M/M/c/K (K = most customers in the system, queue + service):
// its generator Q and the stationary distribution pi solving pi Q = 0, sum(pi) = 1 with Eigen.
struct MmckSolution {
  std::vector<double> pi;  // pi[n] = P(n in system), n = 0..K
  double blocking = 0;     // pi[K]: by PASTA, also the fraction of arrivals turned away
  double mean_in_system = 0;
  double mean_in_queue = 0;
  double residual = 0;     // max |(pi Q)_j|: how well the linear solve did
};
MmckSolution solve_mmck(int servers, int system_capacity, double arrival_rate,
                        double service_rate);

// A closed product-form network: N customers think for Z on average, then visit each
// queueing station (single server, FIFO, exponential service) with total demand D_k.
struct MvaResult {
  double throughput = 0;     // X(N), cycles per second
  double response_time = 0;  // R(N) = sum of residence times over the stations
  std::vector<double> queue_length;  // Q_k(N), mean customers at station k
};
// Exact MVA recursion: R_k(n) = D_k (1 + Q_k(n-1)), X(n) = n / (Z + sum R_k(n)),
// Q_k(n) = X(n) R_k(n).
MvaResult exact_mva(int customers, double think_time, const std::vector<double>& demands);

}  // namespace skysim::validation
