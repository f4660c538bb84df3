#pragma once
// Each subcommand lives in its own file and registers itself on the CLI here.
#include <CLI/CLI.hpp>
#include <stdexcept>
#include <string>

namespace skysim::app {

// Bad input from the user: printed as one line, exit status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A command that already printed its diagnostics and only needs to exit with `code`.
struct ExitCode {
  int code;
};

void register_run(CLI::App& app);
void register_validate(CLI::App& app);
void register_bench(CLI::App& app);
void register_compare(CLI::App& app);
void register_merge(CLI::App& app);
void register_report(CLI::App& app);
void register_explain(CLI::App& app);
void register_selftest(CLI::App& app);
void register_fuzz(CLI::App& app);
void register_openmetrics(CLI::App& app);

}  // namespace skysim::app
