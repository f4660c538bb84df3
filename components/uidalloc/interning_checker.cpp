#include "components/uidalloc/interning_checker.hpp"

#include "components/uidalloc/allocator_config.hpp"
#include "components/uidalloc/interning.hpp"
#include "components/uidalloc/key_codec.hpp"

namespace uidalloc {

std::string CheckReport::summary() const {
  if (ok()) {
    return "interning invariants hold (" + std::to_string(strings) + " strings, " +
           std::to_string(uids) + " uids)";
  }
  std::string out = std::to_string(violation_count) + " interning invariant violation(s):";
  for (const auto& v : violations) {
    out += "\n  " + v;
  }
  return out;
}

namespace {

// A plain map as a StoreView (tests, and callers that already hold a snapshot).
class MapView final : public StoreView {
 public:
  explicit MapView(const std::map<std::string, std::string>& m) : m_(&m) {}
  const std::string* find(const std::string& key) const override {
    auto it = m_->find(key);
    return it == m_->end() ? nullptr : &it->second;
  }
  void scan(const std::string& begin, const std::string& end,
            const std::function<void(std::string_view, const std::string&)>& visit)
      const override {
    for (auto it = m_->lower_bound(begin); it != m_->end() && it->first < end; ++it) {
      visit(it->first, it->second);
    }
  }

 private:
  const std::map<std::string, std::string>* m_;
};

}  // namespace

CheckReport InterningChecker::check(const std::map<std::string, std::string>& store) const {
  return check(MapView(store));
}

CheckReport InterningChecker::check(const StoreView& store) const {
  CheckReport r;
  auto violate = [&](std::string what) {
    ++r.violation_count;
    if (r.violations.size() < max_violations_) {
      r.violations.push_back(std::move(what));
    }
  };
  const std::string s_end = prefix_end(kStringToUid);
  const std::string u_end = prefix_end(kUidToString);

  std::map<std::uint64_t, std::string> owner_in_store;  // uid -> first string claiming it
  store.scan(std::string(kStringToUid), s_end, [&](std::string_view key, const std::string& value) {
    ++r.strings;
    std::string str(key.substr(kStringToUid.size()));
    std::uint64_t uid = decode_uid(value);
    auto [pos, fresh] = owner_in_store.emplace(uid, str);
    if (!fresh) {
      violate("UID " + std::to_string(uid) + " maps to two strings: '" + pos->second + "' and '" +
              str + "'");
    }
    const std::string* back = store.find(uid_to_string_key(uid));
    if (back == nullptr) {
      violate("s/'" + str + "' -> " + std::to_string(uid) + " but u/" + std::to_string(uid) +
              " is missing");
    } else if (*back != str && fresh) {
      violate("s/'" + str + "' -> " + std::to_string(uid) + " but u/" + std::to_string(uid) +
              " -> '" + *back + "'");
    }
  });
  store.scan(std::string(kUidToString), u_end, [&](std::string_view key, const std::string& value) {
    ++r.uids;
    std::uint64_t uid = decode_be64(key.substr(kUidToString.size()));
    const std::string* fwd = store.find(string_to_uid_key(value));
    if (fwd == nullptr || decode_uid(*fwd) != uid) {
      violate("u/" + std::to_string(uid) + " -> '" + value +
              "' but the string does not map back to it");
    }
  });

  std::map<std::string, std::uint64_t> uid_of_ack;
  std::map<std::uint64_t, std::string> str_of_ack;
  for (const auto& a : acks_) {
    auto [s, s_fresh] = uid_of_ack.emplace(a.str, a.uid);
    if (!s_fresh && s->second != a.uid) {
      violate("string '" + a.str + "' acknowledged with two UIDs: " + std::to_string(s->second) +
              " and " + std::to_string(a.uid));
    }
    auto [u, u_fresh] = str_of_ack.emplace(a.uid, a.str);
    if (!u_fresh && u->second != a.str) {
      violate("UID " + std::to_string(a.uid) + " acknowledged for two strings: '" + u->second +
              "' and '" + a.str + "'");
    }
    if (!s_fresh || !u_fresh) {
      continue;  // durability was checked at the first acknowledgement of this pair
    }
    const std::string* fwd = store.find(string_to_uid_key(a.str));
    if (fwd == nullptr) {
      violate("acknowledged '" + a.str + "' -> " + std::to_string(a.uid) + " is not durable");
    } else if (decode_uid(*fwd) != a.uid) {
      violate("acknowledged '" + a.str + "' -> " + std::to_string(a.uid) + " but the store has " +
              std::to_string(decode_uid(*fwd)));
    }
  }
  return r;
}

}  // namespace uidalloc
