#include "app/provenance.hpp"

#include <xxhash.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <vector>

namespace skysim::app {

std::string file_digest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
  }
  // Streamed: the skysim binary is tens of MB with debug information.
  std::unique_ptr<XXH64_state_t, decltype(&XXH64_freeState)> state(XXH64_createState(),
                                                                    &XXH64_freeState);
  XXH64_reset(state.get(), 0);
  std::vector<char> buf(1 << 16);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    XXH64_update(state.get(), buf.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) {
    throw std::runtime_error("read failed: " + path);
  }
  char hex[32];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(XXH64_digest(state.get())));
  return std::string("xxh64:") + hex;
}

}  // namespace skysim::app
