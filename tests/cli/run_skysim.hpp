#pragma once
// Runs the built skysim binary with arguments and captures what a user would see.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

namespace skysim::testing {

struct Output {
  int status = -1;  // exit status, -1 if killed
  std::string text;  // stdout and stderr together
};

inline Output run_skysim(const std::string& args) {
  std::string cmd = std::string(SKYSIM_BINARY) + " " + args + " 2>&1";
  Output out;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.text.append(buf, n);
  int raw = pclose(p);
  out.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return out;
}

}  // namespace skysim::testing
