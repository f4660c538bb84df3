#pragma once
// A small streaming JSON writer (summary.json, metric snapshots, trace files). Commas are
// placed automatically; strings are escaped per RFC 8259; non-finite doubles, which JSON
// cannot represent, are written as null. Numbers use the shortest text that reads back to
// the same double (std::to_chars), so output is byte-identical across runs and machines.
//
//   JsonWriter w(out);
//   w.begin_object().key("seed").value(42).key("hosts").begin_array().value("h1").end_array()
//    .end_object();
#include <charconv>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sim {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}

  JsonWriter& begin_object() {
    before_value();
    out_ << '{';
    stack_.push_back(Frame{true, true});
    return *this;
  }
  JsonWriter& end_object() {
    close(true);
    out_ << '}';
    return *this;
  }
  JsonWriter& begin_array() {
    before_value();
    out_ << '[';
    stack_.push_back(Frame{false, true});
    return *this;
  }
  JsonWriter& end_array() {
    close(false);
    out_ << ']';
    return *this;
  }
  JsonWriter& key(std::string_view k) {
    if (stack_.empty() || !stack_.back().object || key_pending_) {
      throw std::logic_error("JsonWriter: key outside an object or twice in a row");
    }
    comma();
    write_string(k);
    out_ << ':';
    key_pending_ = true;
    return *this;
  }
  JsonWriter& value(std::string_view s) {
    before_value();
    write_string(s);
    return *this;
  }
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b) {
    before_value();
    out_ << (b ? "true" : "false");
    return *this;
  }
  JsonWriter& value(double d) {
    before_value();
    if (!std::isfinite(d)) {
      out_ << "null";
      return *this;
    }
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, d);
    out_.write(buf, r.ptr - buf);
    return *this;
  }
  JsonWriter& value(std::int64_t v) { return integer(v); }
  JsonWriter& value(std::uint64_t v) { return integer(v); }
  JsonWriter& value(int v) { return integer(static_cast<std::int64_t>(v)); }
  JsonWriter& value(unsigned v) { return integer(static_cast<std::uint64_t>(v)); }
  // long long is a distinct type from int64_t (long) on LP64; without these it is ambiguous.
  JsonWriter& value(long long v) { return integer(v); }
  JsonWriter& value(unsigned long long v) { return integer(v); }
  JsonWriter& null() {
    before_value();
    out_ << "null";
    return *this;
  }
  // Inserts already-serialised JSON as one value (the caller vouches for its validity).
  JsonWriter& raw(std::string_view json) {
    before_value();
    out_ << json;
    return *this;
  }

  bool complete() const { return stack_.empty() && wrote_root_; }

  static void escape(std::ostream& out, std::string_view s) {
    static const char* kHex = "0123456789abcdef";
    for (char ch : s) {
      auto c = static_cast<unsigned char>(ch);
      switch (c) {
        case '"':
          out << "\\\"";
          break;
        case '\\':
          out << "\\\\";
          break;
        case '\n':
          out << "\\n";
          break;
        case '\r':
          out << "\\r";
          break;
        case '\t':
          out << "\\t";
          break;
        case '\b':
          out << "\\b";
          break;
        case '\f':
          out << "\\f";
          break;
        default:
          if (c < 0x20 || c == 0x7f) {
            out << "\\u00" << kHex[c >> 4] << kHex[c & 0xf];
          } else {
            out << ch;  // UTF-8 passes through unchanged
          }
      }
    }
  }

 private:
  struct Frame {
    bool object;
    bool first;
  };

  template <class I>
  JsonWriter& integer(I v) {
    before_value();
    out_ << v;
    return *this;
  }
  void write_string(std::string_view s) {
    out_ << '"';
    escape(out_, s);
    out_ << '"';
  }
  void comma() {
    if (!stack_.back().first) out_ << ',';
    stack_.back().first = false;
  }
  void before_value() {
    if (stack_.empty()) {
      if (wrote_root_) throw std::logic_error("JsonWriter: second top-level value");
      wrote_root_ = true;
      return;
    }
    if (stack_.back().object) {
      if (!key_pending_) throw std::logic_error("JsonWriter: value in an object without a key");
      key_pending_ = false;
      return;
    }
    comma();
  }
  void close(bool object) {
    if (stack_.empty() || stack_.back().object != object || key_pending_) {
      throw std::logic_error("JsonWriter: mismatched end_object/end_array");
    }
    stack_.pop_back();
  }

  std::ostream& out_;
  std::vector<Frame> stack_;
  bool key_pending_ = false;
  bool wrote_root_ = false;
};

}  // namespace sim
