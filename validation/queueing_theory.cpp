#include "validation/queueing_theory.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace skysim::validation {

double erlang_c(int servers, double offered_load) {
  if (servers < 1 || !(offered_load > 0) || offered_load >= servers) {
    throw std::invalid_argument("erlang_c: need c >= 1 and 0 < a < c (got c=" +
                                std::to_string(servers) + ", a=" +
                                std::to_string(offered_load) + ")");
  }
  double term = 1;  // a^k / k!
  double sum = 0;
  for (int k = 0; k < servers; ++k) {
    sum += term;
    term *= offered_load / (k + 1);
  }
  double top = term / (1 - offered_load / servers);
  return top / (sum + top);
}

double mmc_mean_wait(int servers, double arrival_rate, double service_rate) {
  double a = arrival_rate / service_rate;
  return erlang_c(servers, a) / (servers * service_rate - arrival_rate);
}

double md1_mean_wait(double arrival_rate, double service_time) {
  double rho = arrival_rate * service_time;
  if (!(rho > 0) || rho >= 1) {
    throw std::invalid_argument("md1_mean_wait: need 0 < rho < 1 (got " + std::to_string(rho) +
                                ")");
  }
  return rho * service_time / (2 * (1 - rho));
}

MmckSolution solve_mmck(int servers, int system_capacity, double arrival_rate,
                        double service_rate) {
  if (servers < 1 || system_capacity < servers || !(arrival_rate > 0) || !(service_rate > 0)) {
    throw std::invalid_argument("solve_mmck: need 1 <= c <= K and positive rates");
  }
  const int states = system_capacity + 1;
  Eigen::MatrixXd q = Eigen::MatrixXd::Zero(states, states);
  for (int n = 0; n < states; ++n) {
    if (n < system_capacity) q(n, n + 1) = arrival_rate;
    if (n > 0) q(n, n - 1) = std::min(n, servers) * service_rate;
    q(n, n) = -q.row(n).sum();
  }
  // pi Q = 0  <=>  Q^T pi^T = 0; one balance equation is redundant, so replace it by sum = 1.
  Eigen::MatrixXd a = q.transpose();
  a.row(states - 1).setOnes();
  Eigen::VectorXd b = Eigen::VectorXd::Zero(states);
  b(states - 1) = 1;
  Eigen::VectorXd pi = a.fullPivLu().solve(b);

  MmckSolution s;
  s.pi.assign(pi.data(), pi.data() + states);
  s.blocking = pi(states - 1);
  for (int n = 0; n < states; ++n) {
    s.mean_in_system += n * pi(n);
    s.mean_in_queue += std::max(0, n - servers) * pi(n);
  }
  s.residual = (pi.transpose() * q).cwiseAbs().maxCoeff();
  return s;
}

MvaResult exact_mva(int customers, double think_time, const std::vector<double>& demands) {
  if (customers < 1 || think_time < 0 || demands.empty()) {
    throw std::invalid_argument("exact_mva: need N >= 1, Z >= 0 and at least one station");
  }
  MvaResult r;
  r.queue_length.assign(demands.size(), 0.0);
  std::vector<double> residence(demands.size());
  for (int n = 1; n <= customers; ++n) {
    r.response_time = 0;
    for (std::size_t k = 0; k < demands.size(); ++k) {
      residence[k] = demands[k] * (1 + r.queue_length[k]);
      r.response_time += residence[k];
    }
    r.throughput = n / (think_time + r.response_time);
    for (std::size_t k = 0; k < demands.size(); ++k) {
      r.queue_length[k] = r.throughput * residence[k];
    }
  }
  return r;
}

}  // namespace skysim::validation
