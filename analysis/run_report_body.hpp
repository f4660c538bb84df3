#pragma once
// The body of a run directory's report page: the run at a glance, its timeline and phases, the
// panels each service kind declares (drawn by svg_chart), one table row per metric and label
// set, the invariants, and the rest of summary.json.
#include <filesystem>
#include <string>

#include "analysis/json.hpp"
#include "analysis/report.hpp"

namespace skysim::analysis {

std::string run_body(const Json& summary, const std::filesystem::path& dir,
                     const RunReportInputs& run);

// A change's label on the charts: its number and the note's first words ("2 band-aid").
std::string change_tag(std::size_t number, const std::string& note);

}  // namespace skysim::analysis
