#include "models/social/graph_file.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "sim/rng.hpp"

namespace social {
namespace {

// A field added to PopulationSpec changes the draws: it must be added to population_key too
// (else two specs differing only in it would share a cached graph). This size check fails to
// compile until someone has looked.
static_assert(sizeof(PopulationSpec) == 96,
              "PopulationSpec changed: add the new field to population_key, then this size");

constexpr char kMagic[16] = "skysim-graph-1\n";

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

void put_double(std::string& out, const char* name, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s=%a\n", name, v);  // hex float: exact
  out += buf;
}

template <class T>
bool write_all(std::FILE* f, const T* data, std::size_t n) {
  return n == 0 || std::fwrite(data, sizeof(T), n, f) == n;
}
template <class T>
bool read_all(std::FILE* f, T* data, std::size_t n) {
  return n == 0 || std::fread(data, sizeof(T), n, f) == n;
}

bool write_csr(std::FILE* f, const FollowGraph::Csr& g) {
  const auto& rows = g.m_forward.m_rowstart;
  const auto& cols = g.m_forward.m_column;
  return write_all(f, rows.data(), rows.size()) && write_all(f, cols.data(), cols.size());
}

// A CSR of `users` rows and `edges` columns; false if the file is short or the row starts are
// not a valid prefix sum ending at `edges`, or a column names a user >= users.
bool read_csr(std::FILE* f, std::uint32_t users, std::uint64_t edges, FollowGraph::Csr& g) {
  auto& rows = g.m_forward.m_rowstart;
  auto& cols = g.m_forward.m_column;
  rows.resize(static_cast<std::size_t>(users) + 1);
  cols.resize(edges);
  if (!read_all(f, rows.data(), rows.size()) || !read_all(f, cols.data(), cols.size())) {
    return false;
  }
  if (rows.front() != 0 || rows.back() != edges) return false;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (rows[i] < rows[i - 1]) return false;
  }
  for (UserId v : cols) {
    if (v >= users) return false;
  }
  return true;
}

// FNV-1a: a stable file name for a key (std::hash is not stable across builds).
std::string key_file_name(const std::string& key) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : key) {
    h = (h ^ c) * 0x100000001b3ULL;
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "graph-%016llx.bin", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace

std::string population_key(const PopulationSpec& spec, std::uint64_t seed) {
  std::string out = "seed=" + std::to_string(seed) + "\n";
  out += "users=" + std::to_string(spec.users) + "\n";
  put_double(out, "mean_follows", spec.mean_follows);
  put_double(out, "follows_alpha", spec.follows_alpha);
  out += "max_follows=" + std::to_string(spec.max_follows) + "\n";
  put_double(out, "popularity_zipf_s", spec.popularity_zipf_s);
  for (const auto& c : spec.celebrities) {
    out += "celebrity=" + std::to_string(c.count) + " " + c.name + "\n";
  }
  for (const auto& b : spec.bots) {
    out += "bot=" + std::to_string(b.count) + " " + b.name + "\n";
  }
  out += "bots_follow_celebrities=" + std::to_string(spec.bots_follow_celebrities ? 1 : 0) + "\n";
  out += "exact_follow_counts=" + std::to_string(spec.exact_follow_counts ? 1 : 0) + "\n";
  return out;
}

void save_graph(const FollowGraph& g, const std::string& key, const std::string& path) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    File f(std::fopen(tmp.c_str(), "wb"));
    if (!f) {
      throw std::system_error(errno, std::generic_category(), "graph cache: cannot write " + tmp);
    }
    const std::uint64_t key_len = key.size();
    const std::uint32_t users = g.users();
    const std::uint64_t edges = g.edges();
    const auto names = static_cast<std::uint32_t>(g.named().size());
    bool ok = write_all(f.get(), kMagic, sizeof kMagic) && write_all(f.get(), &key_len, 1) &&
              write_all(f.get(), key.data(), key.size()) && write_all(f.get(), &users, 1) &&
              write_all(f.get(), &edges, 1) && write_all(f.get(), &names, 1);
    for (const auto& [id, name] : g.named()) {
      const auto len = static_cast<std::uint32_t>(name.size());
      ok = ok && write_all(f.get(), &id, 1) && write_all(f.get(), &len, 1) &&
           write_all(f.get(), name.data(), name.size());
    }
    ok = ok && write_csr(f.get(), g.follows_csr()) && write_csr(f.get(), g.followers_csr());
    if (!ok || std::fflush(f.get()) != 0) {
      std::remove(tmp.c_str());
      throw std::runtime_error("graph cache: writing " + tmp + " failed");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw std::system_error(ec, "graph cache: cannot rename " + tmp + " to " + path);
  }
}

std::optional<FollowGraph> load_graph(const std::string& path, const std::string& key) {
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) return std::nullopt;
  char magic[sizeof kMagic];
  std::uint64_t key_len = 0;
  if (!read_all(f.get(), magic, sizeof magic) || std::memcmp(magic, kMagic, sizeof kMagic) != 0 ||
      !read_all(f.get(), &key_len, 1) || key_len != key.size()) {
    return std::nullopt;
  }
  std::string saved(key_len, '\0');
  std::uint32_t users = 0;
  std::uint64_t edges = 0;
  std::uint32_t names = 0;
  if (!read_all(f.get(), saved.data(), saved.size()) || saved != key ||
      !read_all(f.get(), &users, 1) || !read_all(f.get(), &edges, 1) ||
      !read_all(f.get(), &names, 1) || edges >= UINT32_MAX || names > users) {
    return std::nullopt;
  }
  std::vector<std::pair<UserId, std::string>> named;
  for (std::uint32_t i = 0; i < names; ++i) {
    UserId id = 0;
    std::uint32_t len = 0;
    if (!read_all(f.get(), &id, 1) || !read_all(f.get(), &len, 1) || id >= users || len > 4096) {
      return std::nullopt;
    }
    std::string name(len, '\0');
    if (!read_all(f.get(), name.data(), name.size())) return std::nullopt;
    named.emplace_back(id, std::move(name));
  }
  FollowGraph::Csr follows;
  FollowGraph::Csr followers;
  if (!read_csr(f.get(), users, edges, follows) || !read_csr(f.get(), users, edges, followers) ||
      std::fgetc(f.get()) != EOF) {
    return std::nullopt;
  }
  FollowGraph g(users, std::move(follows), std::move(followers));
  for (auto& [id, name] : named) {
    g.name(id, std::move(name));
  }
  return g;
}

FollowGraph cached_population(const PopulationSpec& spec, std::uint64_t seed,
                              const std::string& dir) {
  if (dir.empty()) {
    sim::Rng rng(seed);
    return build_population(spec, rng);
  }
  const std::string key = population_key(spec, seed);
  const std::string path = (std::filesystem::path(dir) / key_file_name(key)).string();
  if (auto g = load_graph(path, key)) {
    return std::move(*g);
  }
  sim::Rng rng(seed);
  FollowGraph g = build_population(spec, rng);
  try {
    save_graph(g, key, path);
  } catch (const std::exception&) {
    // Best effort: the graph in hand is the drawn one either way.
  }
  return g;
}

std::string graph_cache_dir() {
  const char* dir = std::getenv(kGraphCacheEnv);
  return dir != nullptr ? std::string(dir) : std::string();
}

}  // namespace social
