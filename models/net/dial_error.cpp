#include "models/net/dial_error.hpp"

namespace skysim::net {

const char* errno_text(Errno e) {
  switch (e) {
    case Errno::kNone:
      return "success";
    case Errno::kEADDRINUSE:
      return "address already in use";
    case Errno::kEADDRNOTAVAIL:
      return "cannot assign requested address";
    case Errno::kECONNREFUSED:
      return "connection refused";
    case Errno::kEMFILE:
      return "too many open files";
  }
  return "unknown errno";
}

const char* errno_name(Errno e) {
  switch (e) {
    case Errno::kNone:
      return "OK";
    case Errno::kEADDRINUSE:
      return "EADDRINUSE";
    case Errno::kEADDRNOTAVAIL:
      return "EADDRNOTAVAIL";
    case Errno::kECONNREFUSED:
      return "ECONNREFUSED";
    case Errno::kEMFILE:
      return "EMFILE";
  }
  return "unknown";
}

std::string DialError::text() const {
  std::string s = "dial tcp ";
  if (has_laddr) {
    s += laddr.str();
    s += "->";
  }
  s += raddr.str();
  s += step == DialStep::kBind ? ": bind: " : step == DialStep::kSocket ? ": socket: " : ": connect: ";
  s += errno_text(code);
  return s;
}

}  // namespace skysim::net
