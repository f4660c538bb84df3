#pragma once
// Invariants of string interning, checked against the final store and every acknowledgement a
// client received (used by the tests now and by the fuzzer later):
//  1. no UID maps to two strings (in the store, or across acknowledgements);
//  2. no string has two UIDs (two acknowledgements disagree, e.g. across commit_unknown_result
//     retries, or the store disagrees with an acknowledgement);
//  3. every acknowledged interning is durable: s/<str> and u/<uid> are in the final store;
//  4. the two directions agree: s/<str> = uid  <=>  u/<uid> = str.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace uidalloc {

struct Acknowledgement {
  std::string str;
  std::uint64_t uid = 0;
};

struct CheckReport {
  std::vector<std::string> violations;  // the first max_violations, in a deterministic order
  std::uint64_t violation_count = 0;
  std::uint64_t strings = 0;  // s/ keys in the store
  std::uint64_t uids = 0;     // u/ keys in the store
  bool ok() const { return violation_count == 0; }
  std::string summary() const;
};

// What the checker reads from a store: the latest committed value of a key, and the present
// keys of a range in key order. A model's store answers directly (no copy of the whole store:
// h-fuzzintern measured the copy and its std::map lookups at ~20 % of a fuzz-interning run).
class StoreView {
 public:
  virtual ~StoreView() = default;
  // The latest value of `key`, nullptr when absent.
  virtual const std::string* find(const std::string& key) const = 0;
  // Every present key in [begin, end), in key order, with its latest value.
  virtual void scan(const std::string& begin, const std::string& end,
                    const std::function<void(std::string_view key, const std::string& value)>&
                        visit) const = 0;
};

class InterningChecker {
 public:
  explicit InterningChecker(std::size_t max_violations = 20) : max_violations_(max_violations) {}
  void acknowledge(const std::string& str, std::uint64_t uid) { acks_.push_back({str, uid}); }
  std::size_t acknowledgements() const { return acks_.size(); }
  // `store` = the latest committed value of every key.
  CheckReport check(const std::map<std::string, std::string>& store) const;
  CheckReport check(const StoreView& store) const;

 private:
  std::vector<Acknowledgement> acks_;
  std::size_t max_violations_;
};

}  // namespace uidalloc
