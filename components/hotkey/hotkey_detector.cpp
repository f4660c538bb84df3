// The detector and client cache are templates (headers); this unit checks they compile alone.
#include "components/hotkey/hot_key_client_cache.hpp"
#include "components/hotkey/hotkey_detector.hpp"

namespace hotkey {
template class HotKeyDetector<std::uint64_t>;
template class HotKeyClientCache<std::uint64_t>;
}  // namespace hotkey
