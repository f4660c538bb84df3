#include "models/fdb/error.hpp"

namespace fdb {

const char* error_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::transaction_too_old:
      return "transaction_too_old";
    case ErrorCode::future_version:
      return "future_version";
    case ErrorCode::not_committed:
      return "not_committed";
    case ErrorCode::commit_unknown_result:
      return "commit_unknown_result";
    case ErrorCode::accessed_unreadable:
      return "accessed_unreadable";
    case ErrorCode::used_during_commit:
      return "used_during_commit";
    case ErrorCode::key_too_large:
      return "key_too_large";
    case ErrorCode::value_too_large:
      return "value_too_large";
    case ErrorCode::transaction_too_large:
      return "transaction_too_large";
    case ErrorCode::inverted_range:
      return "inverted_range";
    case ErrorCode::client_invalid_operation:
      return "client_invalid_operation";
  }
  return "unknown_error";
}

}  // namespace fdb
