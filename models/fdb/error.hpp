#pragma once
// FoundationDB error codes the model raises (domain.md §6.1, §6.2; fdb error code table).
#include <stdexcept>
#include <string>

namespace fdb {

enum class ErrorCode : int {
  transaction_too_old = 1007,
  future_version = 1009,
  not_committed = 1020,
  commit_unknown_result = 1021,
  accessed_unreadable = 1036,
  used_during_commit = 2017,
  key_too_large = 2102,
  value_too_large = 2103,
  transaction_too_large = 2101,
  inverted_range = 2005,
  client_invalid_operation = 2000,
};

const char* error_name(ErrorCode code);

class Error : public std::runtime_error {
 public:
  explicit Error(ErrorCode c, const std::string& detail = "")
      : std::runtime_error(std::string(error_name(c)) + " (" +
                           std::to_string(static_cast<int>(c)) + ")" +
                           (detail.empty() ? "" : ": " + detail)),
        code(c) {}
  ErrorCode code;
};

// Errors the client's onError retries with exponential backoff (domain.md §6.2).
inline bool retryable_with_backoff(ErrorCode c) {
  return c == ErrorCode::not_committed || c == ErrorCode::commit_unknown_result;
}
// Errors retried after the flat FUTURE_VERSION_RETRY_DELAY.
inline bool retryable_flat(ErrorCode c) {
  return c == ErrorCode::transaction_too_old || c == ErrorCode::future_version;
}

}  // namespace fdb
