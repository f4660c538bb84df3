#pragma once
// The cheap, incremental half of InterningChecker's rules 1 and 2, kept at each
// acknowledgement (the state change they guard) so a run can check them at every tick and the
// first offending acknowledgement is the event that breaks them: no UID acknowledged for two
// strings, no string acknowledged with two UIDs. O(log n) per acknowledgement; the full check
// against the store (durability, both directions) stays at the end of the run.
#include <cstdint>
#include <map>
#include <string>

namespace uidalloc {

class AckUniqueness {
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
  std::map<std::uint64_t, std::string> owner_;
  std::map<std::string, std::uint64_t> uid_of_;
  std::string error_;
};

}  // namespace uidalloc
