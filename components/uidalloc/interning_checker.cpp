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

CheckReport InterningChecker::check(const std::map<std::string, std::string>& store) const {
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
  for (auto it = store.lower_bound(std::string(kStringToUid));
       it != store.end() && it->first < s_end; ++it) {
    ++r.strings;
    std::string str = it->first.substr(kStringToUid.size());
    std::uint64_t uid = decode_uid(it->second);
    auto [pos, fresh] = owner_in_store.emplace(uid, str);
    if (!fresh) {
      violate("UID " + std::to_string(uid) + " maps to two strings: '" + pos->second + "' and '" +
              str + "'");
    }
    auto back = store.find(uid_to_string_key(uid));
    if (back == store.end()) {
      violate("s/'" + str + "' -> " + std::to_string(uid) + " but u/" + std::to_string(uid) +
              " is missing");
    } else if (back->second != str && fresh) {
      violate("s/'" + str + "' -> " + std::to_string(uid) + " but u/" + std::to_string(uid) +
              " -> '" + back->second + "'");
    }
  }
  for (auto it = store.lower_bound(std::string(kUidToString));
       it != store.end() && it->first < u_end; ++it) {
    ++r.uids;
    std::uint64_t uid = decode_be64(it->first.substr(kUidToString.size()));
    auto fwd = store.find(string_to_uid_key(it->second));
    if (fwd == store.end() || decode_uid(fwd->second) != uid) {
      violate("u/" + std::to_string(uid) + " -> '" + it->second +
              "' but the string does not map back to it");
    }
  }

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
    auto fwd = store.find(string_to_uid_key(a.str));
    if (fwd == store.end()) {
      violate("acknowledged '" + a.str + "' -> " + std::to_string(a.uid) + " is not durable");
    } else if (decode_uid(fwd->second) != a.uid) {
      violate("acknowledged '" + a.str + "' -> " + std::to_string(a.uid) + " but the store has " +
              std::to_string(decode_uid(fwd->second)));
    }
  }
  return r;
}

}  // namespace uidalloc
