#pragma once
// Checks a file against the Chrome trace-event format as ui.perfetto.dev reads it, streaming
// (an April trace is tens of MB: each event is checked and dropped as it is parsed):
//   - the document is an object whose "traceEvents" is an array of event objects;
//   - every event has a string "name", a known one-letter "ph", a number "ts" >= 0, integer
//     "pid" and "tid"; "args", when present, is an object; "cat", when present, a string;
//   - X: a number "dur" >= 0; C: every arg a number; M: process_name / thread_name with a
//     string args.name; i: scope "s" one of g, p, t;
//   - nesting: on each (pid, tid) track, X slices come in (ts, longest first) order and a slice
//     that starts inside another ends inside it (Perfetto draws a track as a stack; a partial
//     overlap is what it cannot draw).
// Times are compared in integer nanoseconds (the writer prints microseconds with three
// decimals), so equal ends stay equal.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tracecheck {

using Track = std::pair<std::int64_t, std::int64_t>;  // (pid, tid)

struct Report {
  std::size_t events = 0;
  std::map<std::string, std::size_t> by_phase;       // "X" -> count
  std::map<std::string, std::size_t> slices_by_name;  // X events
  std::map<std::string, std::size_t> counters_by_name;
  std::map<std::int64_t, std::string> process_names;  // pid -> name
  std::map<Track, std::string> thread_names;
  std::map<std::int64_t, std::size_t> max_depth;  // pid -> deepest stack of X slices
  std::map<std::string, std::size_t> arg_keys;    // every args key seen on an X slice
  // Per slice name, the names of the slices it was directly inside ("" = none), with counts;
  // slices longer than zero only.
  std::map<std::string, std::map<std::string, std::size_t>> parents;
  std::vector<std::string> errors;                 // the first 20 problems
  std::size_t error_count = 0;
  nlohmann::json other_data;
};

namespace detail {

struct Open {
  std::int64_t ts, end;
  std::string name;
};
struct TrackState {
  std::vector<Open> stack;
  std::int64_t last_ts = -1, last_dur = 0;
};

inline std::int64_t ns(double micros) { return std::llround(micros * 1000.0); }

class Checker {
 public:
  explicit Checker(Report& r) : r_(r) {}

  void fail(const std::string& what, const nlohmann::json& e) {
    ++r_.error_count;
    if (r_.errors.size() < 20) r_.errors.push_back(what + ": " + e.dump());
  }

  void event(const nlohmann::json& e) {
    ++r_.events;
    if (!e.is_object()) return fail("event is not an object", e);
    for (const char* k : {"name", "ph", "ts", "pid", "tid"}) {
      if (!e.contains(k)) return fail(std::string("missing \"") + k + "\"", e);
    }
    if (!e["name"].is_string()) return fail("name is not a string", e);
    if (!e["ph"].is_string()) return fail("ph is not a string", e);
    if (!e["ts"].is_number() || e["ts"].get<double>() < 0) return fail("ts is not >= 0", e);
    if (!e["pid"].is_number_integer() || !e["tid"].is_number_integer()) {
      return fail("pid/tid are not integers", e);
    }
    if (e.contains("args") && !e["args"].is_object()) return fail("args is not an object", e);
    if (e.contains("cat") && !e["cat"].is_string()) return fail("cat is not a string", e);
    const std::string ph = e["ph"];
    const std::string name = e["name"];
    ++r_.by_phase[ph];
    const Track track{e["pid"].get<std::int64_t>(), e["tid"].get<std::int64_t>()};
    if (ph == "X") {
      if (!e.contains("dur") || !e["dur"].is_number() || e["dur"].get<double>() < 0) {
        return fail("X without a dur >= 0", e);
      }
      ++r_.slices_by_name[name];
      if (e.contains("args")) {
        for (const auto& [k, v] : e["args"].items()) ++r_.arg_keys[k];
      }
      slice(track, ns(e["ts"].get<double>()), ns(e["dur"].get<double>()), name, e);
    } else if (ph == "C") {
      if (!e.contains("args") || e["args"].empty()) return fail("C without args", e);
      for (const auto& [k, v] : e["args"].items()) {
        if (!v.is_number()) return fail("C arg is not a number", e);
      }
      ++r_.counters_by_name[name];
    } else if (ph == "M") {
      if (!e.contains("args") || !e["args"].contains("name") || !e["args"]["name"].is_string()) {
        return fail("M without a string args.name", e);
      }
      if (name == "process_name") {
        r_.process_names[track.first] = e["args"]["name"];
      } else if (name == "thread_name") {
        r_.thread_names[track] = e["args"]["name"];
      } else {
        return fail("unknown metadata", e);
      }
    } else if (ph == "i" || ph == "I") {
      if (e.contains("s")) {
        const std::string s = e["s"];
        if (s != "g" && s != "p" && s != "t") return fail("bad instant scope", e);
      }
    } else if (ph != "B" && ph != "E") {
      return fail("unknown ph", e);
    }
  }

 private:
  void slice(const Track& t, std::int64_t ts, std::int64_t dur, const std::string& name,
             const nlohmann::json& e) {
    TrackState& s = tracks_[t];
    if (ts < s.last_ts || (ts == s.last_ts && dur > s.last_dur)) {
      return fail("X out of (ts, longest first) order on its track", e);
    }
    s.last_ts = ts;
    s.last_dur = dur;
    while (!s.stack.empty() && s.stack.back().end <= ts) s.stack.pop_back();
    if (!s.stack.empty() && ts + dur > s.stack.back().end) {
      return fail("X starts inside a slice and ends after it", e);
    }
    // A zero-length slice has no inside: Perfetto closes it before the next one at its instant.
    if (dur > 0) ++r_.parents[name][s.stack.empty() ? std::string() : s.stack.back().name];
    s.stack.push_back(Open{ts, ts + dur, name});
    std::size_t& depth = r_.max_depth[t.first];
    depth = std::max(depth, s.stack.size());
  }

  Report& r_;
  std::map<Track, TrackState> tracks_;
};

}  // namespace detail

inline Report check_text(const std::string& text) {
  Report r;
  detail::Checker c(r);
  bool in_events = false;
  bool saw_events = false;
  nlohmann::json doc = nlohmann::json::parse(
      text, [&](int depth, nlohmann::json::parse_event_t ev, nlohmann::json& parsed) {
        using E = nlohmann::json::parse_event_t;
        if (depth == 1 && ev == E::key) in_events = parsed == "traceEvents";
        if (depth == 1 && ev == E::array_start && in_events) saw_events = true;
        if (in_events && depth == 2 && ev == E::object_end) {
          c.event(parsed);
          return false;  // checked: do not keep it
        }
        return true;
      });
  if (!doc.is_object() || !saw_events) {
    r.errors.push_back("not an object with a traceEvents array");
    ++r.error_count;
  }
  if (doc.is_object() && doc.contains("otherData")) r.other_data = doc["otherData"];
  return r;
}

inline Report check_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return check_text(ss.str());
}

}  // namespace tracecheck
