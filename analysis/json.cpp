#include "analysis/json.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace skysim::analysis {

namespace {

const char* type_name(const Json& j) {
  if (j.is_null()) {
    return "null";
  }
  if (j.is_bool()) {
    return "a boolean";
  }
  if (j.is_number()) {
    return "a number";
  }
  if (j.is_string()) {
    return "a string";
  }
  return j.is_array() ? "an array" : "an object";
}

[[noreturn]] void wrong_type(const Json& j, std::string_view what, const char* want) {
  throw JsonError(std::string(what) + ": expected " + want + ", found " + type_name(j));
}

class Reader {
 public:
  explicit Reader(std::string_view text) : s_(text) {}

  Json document() {
    Json v = value();
    skip_space();
    if (pos_ != s_.size()) {
      fail("trailing characters after the JSON value");
    }
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw JsonError("JSON parse error at offset " + std::to_string(pos_) + ": " + why);
  }

  void skip_space() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool consume(std::string_view word) {
    if (s_.substr(pos_, word.size()) == word) {
      pos_ += word.size();
      return true;
    }
    return false;
  }

  Json value() {
    skip_space();
    if (pos_ >= s_.size()) {
      fail("unexpected end of input");
    }
    char c = s_[pos_];
    if (c == '{') {
      return object();
    }
    if (c == '[') {
      return array();
    }
    if (c == '"') {
      return Json(string());
    }
    if (consume("true")) {
      return Json(true);
    }
    if (consume("false")) {
      return Json(false);
    }
    if (consume("null")) {
      return Json();
    }
    return number();
  }

  Json number() {
    std::size_t start = pos_;
    while (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) ||
                                s_[pos_] == '-' || s_[pos_] == '+' || s_[pos_] == '.' ||
                                s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
    }
    if (start == pos_) {
      fail(std::string("unexpected character '") + s_[pos_] + "'");
    }
    std::string text(s_.substr(start, pos_ - start));
    char* end = nullptr;
    double d = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size()) {
      pos_ = start;
      fail("malformed number '" + text + "'");
    }
    return Json(d);
  }

  std::string string() {
    ++pos_;  // opening quote
    std::string out;
    while (true) {
      if (pos_ >= s_.size()) {
        fail("unterminated string");
      }
      char c = s_[pos_++];
      if (c == '"') {
        return out;
      }
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) {
        fail("unterminated escape");
      }
      char e = s_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': out += unicode_escape(); break;
        default: fail(std::string("unknown escape '\\") + e + "'");
      }
    }
  }

  // \uXXXX as UTF-8 (surrogate pairs are not expected in skysim's own files).
  std::string unicode_escape() {
    if (pos_ + 4 > s_.size()) {
      fail("short \\u escape");
    }
    unsigned code = static_cast<unsigned>(
        std::strtoul(std::string(s_.substr(pos_, 4)).c_str(), nullptr, 16));
    pos_ += 4;
    std::string out;
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
    return out;
  }

  Json array() {
    ++pos_;
    JsonArray a;
    skip_space();
    if (consume("]")) {
      return Json(std::move(a));
    }
    while (true) {
      a.push_back(value());
      skip_space();
      if (consume("]")) {
        return Json(std::move(a));
      }
      if (!consume(",")) {
        fail(pos_ >= s_.size() ? "unexpected end of input" : "expected ',' or ']' in array");
      }
    }
  }

  Json object() {
    ++pos_;
    JsonObject o;
    skip_space();
    if (consume("}")) {
      return Json(std::move(o));
    }
    while (true) {
      skip_space();
      if (pos_ >= s_.size() || s_[pos_] != '"') {
        fail("expected a quoted key in object");
      }
      std::string key = string();
      skip_space();
      if (!consume(":")) {
        fail("expected ':' after key \"" + key + "\"");
      }
      o[key] = value();
      skip_space();
      if (consume("}")) {
        return Json(std::move(o));
      }
      if (!consume(",")) {
        fail(pos_ >= s_.size() ? "unexpected end of input" : "expected ',' or '}' in object");
      }
    }
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

}  // namespace

std::string format_double(double x) {
  if (std::isnan(x)) {
    return "nan";
  }
  if (std::isinf(x)) {
    return x > 0 ? "inf" : "-inf";
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

std::string json_quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

Json::Json(JsonArray a)
    : type_(Type::array), a_(std::make_shared<const JsonArray>(std::move(a))) {}
Json::Json(JsonObject o)
    : type_(Type::object), o_(std::make_shared<const JsonObject>(std::move(o))) {}

bool Json::as_bool(std::string_view what) const {
  if (!is_bool()) {
    wrong_type(*this, what, "a boolean");
  }
  return b_;
}

double Json::as_number(std::string_view what) const {
  if (!is_number()) {
    wrong_type(*this, what, "a number");
  }
  return d_;
}

std::int64_t Json::as_int(std::string_view what) const {
  double d = as_number(what);
  if (d != std::floor(d) || std::abs(d) > 9.0e15) {
    throw JsonError(std::string(what) + ": expected an integer, found " + format_double(d));
  }
  return static_cast<std::int64_t>(d);
}

const std::string& Json::as_string(std::string_view what) const {
  if (!is_string()) {
    wrong_type(*this, what, "a string");
  }
  return s_;
}

const JsonArray& Json::as_array(std::string_view what) const {
  if (!is_array()) {
    wrong_type(*this, what, "an array");
  }
  return *a_;
}

const JsonObject& Json::as_object(std::string_view what) const {
  if (!is_object()) {
    wrong_type(*this, what, "an object");
  }
  return *o_;
}

const Json* Json::find(const std::string& key) const {
  const auto& o = as_object("object");
  auto it = o.find(key);
  return it == o.end() ? nullptr : &it->second;
}

const Json& Json::at(const std::string& key) const {
  const Json* j = find(key);
  if (j == nullptr) {
    throw JsonError("missing key \"" + key + "\"");
  }
  return *j;
}

std::string Json::dump() const {
  std::string out;
  write(out, -1, 0);
  return out;
}

std::string Json::dump_pretty() const {
  std::string out;
  write(out, 2, 0);
  out += '\n';
  return out;
}

void Json::write(std::string& out, int indent, int depth) const {
  auto newline = [&](int d) {
    if (indent >= 0) {
      out += '\n';
      out.append(static_cast<std::size_t>(indent * d), ' ');
    }
  };
  switch (type_) {
    case Type::null: out += "null"; break;
    case Type::boolean: out += b_ ? "true" : "false"; break;
    case Type::number: {
      double d = d_;
      out += std::isfinite(d) ? format_double(d) : "null";  // JSON has no NaN or infinity
      break;
    }
    case Type::string: out += json_quote(s_); break;
    case Type::array: {
      const auto& a = *a_;
      out += '[';
      for (std::size_t i = 0; i < a.size(); ++i) {
        out += i ? "," : "";
        newline(depth + 1);
        a[i].write(out, indent, depth + 1);
      }
      if (!a.empty()) {
        newline(depth);
      }
      out += ']';
      break;
    }
    case Type::object: {
      const auto& o = *o_;
      out += '{';
      bool first = true;
      for (const auto& [k, v] : o) {
        out += first ? "" : ",";
        first = false;
        newline(depth + 1);
        out += json_quote(k);
        out += indent >= 0 ? ": " : ":";
        v.write(out, indent, depth + 1);
      }
      if (!o.empty()) {
        newline(depth);
      }
      out += '}';
    }
  }
}

Json Json::parse(std::string_view text) { return Reader(text).document(); }

}  // namespace skysim::analysis
