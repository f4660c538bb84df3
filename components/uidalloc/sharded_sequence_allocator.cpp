#include "components/uidalloc/allocators.hpp"
#include "components/uidalloc/key_codec.hpp"

namespace uidalloc {

ShardedSequenceAllocator::ShardedSequenceAllocator(const AllocatorConfig& config, sim::Rng& rng)
    : prefix_bits_(config.prefix_bits),
      shift_(config.effective_shift()),
      tries_(config.tries),
      break_on_success_(config.break_on_success),
      counter_max_((std::uint64_t{1} << config.effective_counter_bits()) - 1),
      rng_(&rng) {
  config.validate();
}

kv::Future<std::uint64_t> ShardedSequenceAllocator::allocate(kv::Transaction& tr,
                                                             const std::string&) {
  // Variable names follow the published Go (domain.md §10.2).
  std::uint64_t sequence_num = 0;
  std::string sequence_key;
  std::uint64_t assigned_uid = 0;
  for (int i = 0; i < tries_; ++i) {
    // rand.Uint32(), narrowed to the configured prefix width.
    sequence_num = rng_->next_u64() >> (64 - prefix_bits_);
    sequence_key = std::string(kSequencePrefix) + std::to_string(sequence_num);
    kv::Value val = co_await tr.get(sequence_key);
    if (!val) {
      assigned_uid = 1;  // start each sequence at 1
    } else {
      std::uint64_t last_uid = parse_decimal(*val);
      if (last_uid >= counter_max_) {
        continue;  // exhausted: pick another sequence
      }
      assigned_uid = last_uid + 1;
    }
    if (break_on_success_) {
      break;
    }
  }
  if (assigned_uid == 0) {
    throw AllocationError("failed to allocate new UID after " + std::to_string(tries_) +
                          " attempts");
  }
  std::uint64_t new_uid = (sequence_num << shift_) | assigned_uid;
  tr.set(sequence_key, std::to_string(assigned_uid));
  co_return new_uid;
}

}  // namespace uidalloc
