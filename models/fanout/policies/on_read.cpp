#include "models/fanout/policies/on_read.hpp"

namespace fanout {

void OnRead::read_keys(std::uint32_t reader, std::vector<ReadKey>& keys) const {
  for (social::UserId f : graph_.follows(reader)) {
    if (merged_at_read(f)) {
      keys.push_back({lists_base_ + f, page_rows_});
    }
  }
}

std::unique_ptr<Policy> make_on_read_policy(const PolicyContext& ctx) {
  return std::make_unique<OnRead>(ctx);
}

}  // namespace fanout
