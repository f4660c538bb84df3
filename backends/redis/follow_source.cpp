#include "backends/redis/follow_source.hpp"

#include <hiredis/hiredis.h>

#include <limits>
#include <memory>

namespace redis {

namespace {

struct ReplyDeleter {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

std::uint64_t parse_count(const std::string& text, const std::string& what) {
  std::size_t used = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || text[0] == '-') {
    throw FollowSourceError(what + " '" + text + "' is not a non-negative integer");
  }
  return v;
}

}  // namespace

std::string RedisConfig::where() const {
  return unix_socket.empty() ? host + ":" + std::to_string(port) : unix_socket;
}

FollowSource::FollowSource(RedisConfig config) : config_(std::move(config)) { connect(); }

FollowSource::~FollowSource() {
  if (context_) redisFree(static_cast<redisContext*>(context_));
}

void FollowSource::connect() {
  if (context_) {
    redisFree(static_cast<redisContext*>(context_));
    context_ = nullptr;
  }
  timeval tv{static_cast<long>(config_.timeout_s),
             static_cast<long>((config_.timeout_s - static_cast<long>(config_.timeout_s)) * 1e6)};
  redisContext* c = config_.unix_socket.empty()
                        ? redisConnectWithTimeout(config_.host.c_str(), config_.port, tv)
                        : redisConnectUnixWithTimeout(config_.unix_socket.c_str(), tv);
  if (!c || c->err) {
    std::string why = c ? c->errstr : "out of memory";
    if (c) redisFree(c);
    throw FollowSourceError("redis unreachable at " + config_.where() + ": " + why);
  }
  redisSetTimeout(c, tv);
  context_ = c;
}

std::vector<lossy::FollowCountEntry> FollowSource::fetch(std::uint64_t min_follows) {
  try {
    return fetch_once(min_follows);
  } catch (const FollowSourceError&) {
    if (context_ && static_cast<redisContext*>(context_)->err == 0) throw;  // a data error
  }
  connect();  // the connection broke: one new one, then give up
  return fetch_once(min_follows);
}

std::vector<lossy::FollowCountEntry> FollowSource::fetch_once(std::uint64_t min_follows) {
  auto* c = static_cast<redisContext*>(context_);
  auto command = [&](const char* fmt, auto... args) {
    Reply r(static_cast<redisReply*>(redisCommand(c, fmt, args...)));
    if (!r) {
      throw FollowSourceError("redis at " + config_.where() + ": " + c->errstr);
    }
    if (r->type == REDIS_REPLY_ERROR) {
      throw FollowSourceError("redis at " + config_.where() + ": " + std::string(r->str, r->len));
    }
    return r;
  };
  // TYPE first: a missing key would read as an empty set, and that must not pass for data.
  Reply type = command("TYPE %b", config_.key.data(), config_.key.size());
  std::string kind(type->str, type->len);
  if (kind == "none") {
    throw FollowSourceError("redis at " + config_.where() + ": key '" + config_.key +
                            "' does not exist (expected a sorted set of high-follow accounts)");
  }
  if (kind != "zset") {
    throw FollowSourceError("redis at " + config_.where() + ": key '" + config_.key + "' is a " +
                            kind + ", not a sorted set");
  }
  std::string min = std::to_string(min_follows);
  Reply r = command("ZRANGEBYSCORE %b %b +inf WITHSCORES", config_.key.data(), config_.key.size(),
                    min.data(), min.size());
  if (r->type != REDIS_REPLY_ARRAY || r->elements % 2 != 0) {
    throw FollowSourceError("redis at " + config_.where() + ": unexpected ZRANGEBYSCORE reply");
  }
  std::vector<lossy::FollowCountEntry> out;
  out.reserve(r->elements / 2);
  for (std::size_t i = 0; i < r->elements; i += 2) {
    std::string member(r->element[i]->str, r->element[i]->len);
    std::string score(r->element[i + 1]->str, r->element[i + 1]->len);
    std::uint64_t user = parse_count(member, "member of '" + config_.key + "'");
    if (user > std::numeric_limits<lossy::UserId>::max()) {
      throw FollowSourceError("member of '" + config_.key + "' '" + member +
                              "' is out of the user id range");
    }
    out.push_back({static_cast<lossy::UserId>(user),
                   parse_count(score, "score of member " + member)});
  }
  return out;
}

}  // namespace redis
