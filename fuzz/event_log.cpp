#include "fuzz/event_log.hpp"

#include <cstdio>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace skysim::fuzz {
namespace {

constexpr std::uint64_t kMagic = 0x3130'5456'4559'4B53ULL;  // "SKYEVT01" little-endian

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

template <class T>
void put(std::FILE* f, const T& v) {
  if (std::fwrite(&v, sizeof v, 1, f) != 1) throw std::runtime_error("event log: write failed");
}
template <class T>
T get(std::FILE* f, const std::string& path) {
  T v{};
  if (std::fread(&v, sizeof v, 1, f) != 1) {
    throw std::runtime_error("event log " + path + ": truncated");
  }
  return v;
}

std::string line_of(const char* label, const EventRecord& e, const LoadedLog& log,
                    std::int64_t epoch) {
  std::ostringstream o;
  o << label << " event #" << e.seq << " at " << sim::format_iso8601(epoch + e.time) << " (+"
    << sim::format_duration(e.time) << ") kind " << log.kind_name(e.kind) << " actor " << e.actor;
  return o.str();
}

}  // namespace

void EventLog::on_event(sim::Time now, sim::Kind kind, sim::ActorId actor) {
  // The kernel has already counted the event and folded it into the fingerprint.
  records_.push_back(EventRecord{sim_.events_executed(), now, sim_.fingerprint(), actor, kind});
}

std::vector<std::string> EventLog::kind_names() const {
  std::vector<std::string> out;
  for (std::size_t k = 0; k < sim_.kind_count(); ++k) {
    out.push_back(sim_.kind_name(static_cast<sim::Kind>(k)));
  }
  return out;
}

void EventLog::write_file(const std::string& path) const {
  File f(std::fopen(path.c_str(), "wb"));
  if (!f) throw std::runtime_error("event log: cannot write " + path);
  put(f.get(), kMagic);
  auto kinds = kind_names();
  put(f.get(), static_cast<std::uint32_t>(kinds.size()));
  for (const auto& k : kinds) {
    put(f.get(), static_cast<std::uint32_t>(k.size()));
    if (std::fwrite(k.data(), 1, k.size(), f.get()) != k.size()) {
      throw std::runtime_error("event log: write failed");
    }
  }
  put(f.get(), static_cast<std::uint64_t>(records_.size()));
  for (const auto& r : records_) {
    put(f.get(), r.time);
    put(f.get(), r.hash);
    put(f.get(), r.actor);
    put(f.get(), static_cast<std::uint32_t>(r.kind));
  }
  if (std::fflush(f.get()) != 0) throw std::runtime_error("event log: write failed");
}

std::string LoadedLog::kind_name(sim::Kind k) const {
  return k < kinds.size() ? kinds[k] : "kind-" + std::to_string(k);
}

LoadedLog read_event_log(const std::string& path) {
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) throw std::runtime_error("event log: cannot read " + path);
  if (get<std::uint64_t>(f.get(), path) != kMagic) {
    throw std::runtime_error("event log " + path + ": not an event log");
  }
  LoadedLog log;
  auto nkinds = get<std::uint32_t>(f.get(), path);
  if (nkinds > 0x10000) throw std::runtime_error("event log " + path + ": corrupt kind table");
  for (std::uint32_t i = 0; i < nkinds; ++i) {
    auto len = get<std::uint32_t>(f.get(), path);
    if (len > 4096) throw std::runtime_error("event log " + path + ": corrupt kind name");
    std::string name(len, '\0');
    if (std::fread(name.data(), 1, len, f.get()) != len) {
      throw std::runtime_error("event log " + path + ": truncated");
    }
    log.kinds.push_back(std::move(name));
  }
  auto n = get<std::uint64_t>(f.get(), path);
  log.records.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(n, 1ULL << 26)));
  for (std::uint64_t i = 0; i < n; ++i) {
    EventRecord r;
    r.seq = i + 1;
    r.time = get<sim::Time>(f.get(), path);
    r.hash = get<std::uint64_t>(f.get(), path);
    r.actor = get<sim::ActorId>(f.get(), path);
    r.kind = static_cast<sim::Kind>(get<std::uint32_t>(f.get(), path));
    log.records.push_back(r);
  }
  return log;
}

std::optional<Divergence> first_divergence(const std::vector<EventRecord>& a,
                                           const std::vector<EventRecord>& b) {
  std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i].time != b[i].time || a[i].kind != b[i].kind || a[i].actor != b[i].actor) {
      return Divergence{i, a[i], b[i]};
    }
  }
  if (a.size() == b.size()) return std::nullopt;
  Divergence d{n, std::nullopt, std::nullopt};
  if (n < a.size()) d.a = a[n];
  if (n < b.size()) d.b = b[n];
  return d;
}

std::string describe_divergence(const Divergence& d, const LoadedLog& a, const LoadedLog& b,
                                std::int64_t epoch) {
  std::ostringstream o;
  o << "first diverging event: #" << d.index + 1 << "\n";
  if (d.index > 0) {
    o << "  " << line_of("last common", a.records[d.index - 1], a, epoch) << "\n";
  } else {
    o << "  (the runs differ from their first event)\n";
  }
  o << "  " << (d.a ? line_of("run A", *d.a, a, epoch) : "run A: ended here") << "\n";
  o << "  " << (d.b ? line_of("run B", *d.b, b, epoch) : "run B: ended here") << "\n";
  return o.str();
}

}  // namespace skysim::fuzz
