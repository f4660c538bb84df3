#pragma once
// RFC 4648 base64, as etcd's JSON gateway encodes keys and values (bytes fields in proto3 JSON).
#include <string>
#include <string_view>

namespace etcd {

std::string base64_encode(std::string_view bytes);
// Throws std::invalid_argument on a character outside the alphabet or a bad length.
std::string base64_decode(std::string_view text);

}  // namespace etcd
