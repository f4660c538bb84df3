#include "models/fanout/staleness_audit.hpp"

#include <cmath>

#include "components/lossy/loss_factor.hpp"

namespace fanout {

void StalenessAudit::filter(const social::UserId* page, std::size_t n, double page_r,
                            std::vector<social::UserId>& out) const {
  const auto set = snapshot_();  // the set the inner filter reads now
  const auto error = [&](social::UserId u) {
    return std::abs(lossy::loss_factor(limit_, set->follows(u)) -
                    lossy::loss_factor(limit_, truth_.true_follows(u)));
  };
  const std::size_t before = out.size();
  inner_.filter(page, n, page_r, out);
  // The kept users are the page's, in page order (PageFilter's contract): one pass over both
  // audits each decision once, its error reused for the row it kept.
  std::size_t k = before;
  for (std::size_t i = 0; i < n; ++i) {
    StalenessCounts& c = counts_[static_cast<std::size_t>(truth_.user_class(page[i]))];
    ++c.decisions;
    const double e = error(page[i]);
    c.stale_decisions += e != 0.0 ? 1 : 0;
    c.factor_error += e;
    if (k < out.size() && out[k] == page[i]) {
      ++c.kept;
      c.stale_kept += e != 0.0 ? 1 : 0;
      ++k;
    }
  }
}

}  // namespace fanout
