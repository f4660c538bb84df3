#include "backends/etcd/client.hpp"

#include <curl/curl.h>

#include <mutex>
#include <nlohmann/json.hpp>

#include "backends/etcd/base64.hpp"

namespace etcd {

namespace {

using nlohmann::json;

std::size_t append(char* data, std::size_t size, std::size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// proto3 JSON writes int64 as a string and omits zero values.
std::int64_t int64_field(const json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end()) return 0;
  return it->is_string() ? std::stoll(it->get<std::string>()) : it->get<std::int64_t>();
}

json parse_reply(const std::string& endpoint, const std::string& path, const std::string& body) {
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("header")) {
    throw Unreachable("etcd at " + endpoint + path +
                      " answered something that is not etcd's v3 API: " + body.substr(0, 200));
  }
  return j;
}

}  // namespace

Client::Client(std::string endpoint, long timeout_ms)
    : endpoint_(std::move(endpoint)), timeout_ms_(timeout_ms) {
  static std::once_flag global;
  std::call_once(global, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  curl_ = curl_easy_init();
  if (!curl_) throw std::runtime_error("etcd: curl_easy_init failed");
}

Client::~Client() { curl_easy_cleanup(static_cast<CURL*>(curl_)); }

std::string Client::post(const std::string& path, const std::string& body) {
  CURL* c = static_cast<CURL*>(curl_);
  std::string url = endpoint_ + path;
  std::string reply;
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, append);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &reply);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms_);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) {
    throw Unreachable("etcd unreachable at " + url + ": " + curl_easy_strerror(rc));
  }
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  if (status != 200) {
    throw Unreachable("etcd at " + url + " answered HTTP " + std::to_string(status) + ": " +
                      reply.substr(0, 200));
  }
  return reply;
}

RangeResult Client::range(const RangeRequest& r) {
  json req = {{"key", base64_encode(r.key)}};
  if (!r.range_end.empty()) req["range_end"] = base64_encode(r.range_end);
  if (r.revision) req["revision"] = std::to_string(r.revision);
  if (r.limit) req["limit"] = std::to_string(r.limit);
  if (r.descending) {
    req["sort_order"] = "DESCEND";
    req["sort_target"] = "KEY";
  }
  json j = parse_reply(endpoint_, "/v3/kv/range", post("/v3/kv/range", req.dump()));
  RangeResult out;
  out.revision = int64_field(j["header"], "revision");
  if (auto kvs = j.find("kvs"); kvs != j.end()) {
    for (const json& kv : *kvs) {
      out.kvs.push_back({base64_decode(kv.value("key", "")), base64_decode(kv.value("value", "")),
                         int64_field(kv, "create_revision"), int64_field(kv, "mod_revision")});
    }
  }
  return out;
}

TxnResult Client::txn(const TxnRequest& r) {
  json compares = json::array();
  for (const Compare& c : r.compares) {
    json jc = {{"key", base64_encode(c.key)},
               {"result", c.result == Compare::Result::equal ? "EQUAL" : "LESS"}};
    if (!c.range_end.empty()) jc["range_end"] = base64_encode(c.range_end);
    if (c.target == Compare::Target::mod) {
      jc["target"] = "MOD";
      jc["mod_revision"] = std::to_string(c.revision);
    } else {
      jc["target"] = "CREATE";
      jc["create_revision"] = std::to_string(c.revision);
    }
    compares.push_back(std::move(jc));
  }
  json success = json::array();
  for (const auto& [b, e] : r.delete_ranges) {
    json d = {{"key", base64_encode(b)}};
    if (!e.empty()) d["range_end"] = base64_encode(e);
    success.push_back({{"request_delete_range", d}});
  }
  for (const auto& [k, v] : r.puts) {
    success.push_back({{"request_put", {{"key", base64_encode(k)}, {"value", base64_encode(v)}}}});
  }
  json req = {{"compare", compares}, {"success", success}};
  json j = parse_reply(endpoint_, "/v3/kv/txn", post("/v3/kv/txn", req.dump()));
  return TxnResult{j.value("succeeded", false), int64_field(j["header"], "revision")};
}

}  // namespace etcd
