#pragma once
// The cheap, incremental half of InterningChecker's rules 1 and 2, kept at each
// acknowledgement (the state change they guard) so a run can check them at every tick and the
// first offending acknowledgement is the event that breaks them: no UID acknowledged for two
// strings, no string acknowledged with two UIDs. One hash probe each way per acknowledgement
// (the ordered maps were 8 % of a fuzz-interning run); the maps are only probed, never
// iterated, so the verdict and its message do not depend on hash order. The full check
// against the store (durability, both directions) stays at the end of the run.
#include <xxhash.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace uidalloc {

class AckUniqueness {
  // xxHash (XXH3), not std::hash: the same value on every platform.
  struct Hash {
    std::size_t operator()(std::string_view s) const {
      return static_cast<std::size_t>(XXH3_64bits(s.data(), s.size()));
    }
    std::size_t operator()(std::uint64_t v) const {
      return static_cast<std::size_t>(XXH3_64bits(&v, sizeof v));
    }
  };

 public:
  void acknowledge(const std::string& str, std::uint64_t uid) {
    auto [by_uid, fresh_uid] = owner_.emplace(uid, str);
    if (!fresh_uid && by_uid->second != str && error_.empty()) {
      error_ = "UID " + std::to_string(uid) + " acknowledged for '" + by_uid->second +
               "' and for '" + str + "'";
    }
    auto [by_str, fresh_str] = uid_of_.emplace(str, uid);
    if (!fresh_str && by_str->second != uid && error_.empty()) {
      error_ = "'" + str + "' acknowledged with UID " + std::to_string(by_str->second) +
               " and with UID " + std::to_string(uid);
    }
  }
  // The first breach, "" while none.
  const std::string& error() const { return error_; }

 private:
  std::unordered_map<std::uint64_t, std::string, Hash> owner_;
  std::unordered_map<std::string, std::uint64_t, Hash> uid_of_;
  std::string error_;
};

}  // namespace uidalloc
