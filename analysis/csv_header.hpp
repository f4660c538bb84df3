#pragma once
// The header of a timeseries.csv, cell by cell. Columns are series keys ("name{dc=east,host=h}"),
// quoted as RFC 4180 says when they hold a comma. Files written before that wrote the label
// separator as ';' ("name{dc=east;host=h}"): such a cell is read back as the key it stood for,
// so every reader sees one name per metric whichever file it is given.
#include <string>
#include <string_view>
#include <vector>

namespace skysim::analysis {

std::vector<std::string> split_csv_header(std::string_view line);

}  // namespace skysim::analysis
