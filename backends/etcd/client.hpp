#pragma once
// A blocking client of etcd's v3 KV API through its JSON gateway (POST /v3/kv/range and
// /v3/kv/txn over HTTP, keys and values base64; etcd 3.4 serves /v3/). One Client per thread:
// it keeps one libcurl handle and so one keep-alive connection.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace etcd {

// etcd did not answer, or answered something that is not its API (bad endpoint, not etcd).
class Unreachable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct KeyValue {
  std::string key;
  std::string value;
  std::int64_t create_revision = 0;
  std::int64_t mod_revision = 0;
};

struct RangeRequest {
  std::string key;
  std::string range_end;      // empty: the one key
  std::int64_t revision = 0;  // 0: the newest
  std::int64_t limit = 0;     // 0: no limit
  bool descending = false;    // sort by key, descending
};

struct RangeResult {
  std::int64_t revision = 0;  // the store's revision the read saw
  std::vector<KeyValue> kvs;
};

// One compare of a txn: key (or [key, range_end)) compared on its mod or create revision.
struct Compare {
  enum class Target { mod, create };
  enum class Result { equal, less };
  std::string key;
  std::string range_end;
  Target target = Target::mod;
  Result result = Result::equal;
  std::int64_t revision = 0;
};

struct TxnRequest {
  std::vector<Compare> compares;
  std::vector<std::pair<std::string, std::string>> puts;
  std::vector<std::pair<std::string, std::string>> delete_ranges;  // [begin, end); end "" = key
};

struct TxnResult {
  bool succeeded = false;
  std::int64_t revision = 0;
};

class Client {
 public:
  // endpoint: "http://127.0.0.1:2379". timeout_ms bounds each request.
  explicit Client(std::string endpoint, long timeout_ms = 10'000);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  RangeResult range(const RangeRequest& request);
  TxnResult txn(const TxnRequest& request);
  const std::string& endpoint() const { return endpoint_; }

 private:
  std::string post(const std::string& path, const std::string& body);
  std::string endpoint_;
  long timeout_ms_;
  void* curl_;  // CURL*
};

}  // namespace etcd
