#pragma once
// Digests that tie a compare's run records to what produced them: the worker program (the
// "build") and the scenario file. merge refuses shards whose digests differ, because their
// numbers would not come from the same model or the same scenario.
#include <string>

namespace skysim::app {

// "xxh64:0123456789abcdef" over the file's bytes; throws std::runtime_error naming the file.
std::string file_digest(const std::string& path);

}  // namespace skysim::app
