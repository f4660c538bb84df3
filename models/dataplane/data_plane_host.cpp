#include "models/dataplane/data_plane_host.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/trace_span.hpp"

namespace skysim::dataplane {

DialerPolicy parse_dialer_policy(std::string_view text) {
  if (text == "fixed_source") return DialerPolicy::kFixedSource;
  if (text == "random_loopback") return DialerPolicy::kRandomLoopback;
  if (text == "default") return DialerPolicy::kDefault;
  throw std::invalid_argument("unknown dialer '" + std::string(text) +
                              "' (expected fixed_source, random_loopback or default)");
}

const char* to_string(DialerPolicy p) {
  switch (p) {
    case DialerPolicy::kFixedSource: return "fixed_source";
    case DialerPolicy::kRandomLoopback: return "random_loopback";
    case DialerPolicy::kDefault: return "default";
  }
  return "?";
}

void DataPlaneConfig::validate() const {
  go.validate();
  net.validate();
  cache_server.validate();
  cache_client.validate();
  log_sink.validate();
  logger.validate();
  band_aid_spread.validate();
  auto need = [](bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("dataplane: ") + what);
  };
  need(get_post_record_limit >= -1, "get_post_record_limit must be -1 (none) or >= 0");
  need(handler_limit >= -1, "handler_limit must be -1 (none) or >= 0");
  need(max_batch_uris >= 0, "max_batch_uris must be >= 0 (0 = no cap)");
  need(cpu_per_uri >= 0, "cpu_per_uri must be >= 0");
  need(garbage_per_uri_bytes >= 0 && live_per_uri_bytes >= 0, "per-URI bytes must be >= 0");
  need(baseline_live_heap_bytes >= 0, "baseline_live_heap must be >= 0");
  need(scylla_concurrency >= 1, "scylla_concurrency must be >= 1");
  need(scylla_read_median > 0 && scylla_read_p99 >= scylla_read_median,
       "scylla read times need 0 < median <= p99");
  need(hot_posts >= 1 && cold_posts >= 1, "post key spaces must be non-empty");
  scylla_pool.validate();
  need(hot_pareto_shape > 0, "hot_pareto_shape must be > 0");
}

// The reply of one RPC. Whoever holds the last reference answers; if the handler goroutine
// dies with its process before answering, the caller hears "crashed" (its connection reset).
class DataPlaneHost::Call {
 public:
  Call(DataPlaneHost& host, RpcDone done) : host_(host), done_(std::move(done)) {
    ++host_.in_flight_;
  }
  ~Call() {
    if (done_) reply(RpcResult{false, "crashed"});
  }
  void reply(const RpcResult& r) {
    if (!done_) return;
    --host_.in_flight_;
    if (r.ok) {
      ++host_.stats_.rpcs_ok;
    } else if (r.error == "crashed") {
      ++host_.stats_.rpcs_crashed;
    }
    auto f = std::move(done_);
    done_ = nullptr;
    f(r);
  }

 private:
  DataPlaneHost& host_;
  RpcDone done_;
};

DataPlaneHost::DataPlaneHost(sim::Simulation& sim, DataPlaneConfig cfg)
    : sim_(sim),
      cfg_((cfg.validate(), std::move(cfg))),
      ns_(sim, cfg_.net, cfg_.name + "/netns"),
      cache_(sim, net::Endpoint{net::kLoopback, 11211}, cfg_.cache_server, cfg_.name + "/memcached"),
      go_(sim, cfg_.go),
      sink_(cfg_.log_sink),
      logger_(go_, sink_, cfg_.logger),
      scylla_(sim.stream(cfg_.name + "/scylla"), cfg_.scylla_concurrency, cfg_.scylla_read_median,
              cfg_.scylla_read_p99),
      scylla_pool_(sim, ns_, sim.stream(cfg_.name + "/scylla-pool"), cfg_.scylla_pool),
      keys_rng_(sim.stream(cfg_.name + "/keys")),
      fixed_dialer_(cfg_.fixed_source, cfg_.bind_address_no_port),
      random_dialer_(sim.stream(cfg_.name + "/band-aid-dialer"), cfg_.band_aid_spread) {
  scylla_.bind_clock(sim);
  fd_limit_.open_sockets = [this] {
    return static_cast<std::int64_t>((client_ ? client_->open_conns() : 0) +
                                     scylla_pool_.open_conns());
  };
  scylla_pool_.set_dialer(scylla_fd_dialer_.over(default_dialer_));
  go_.retain(cfg_.baseline_live_heap_bytes);
  scylla_pool_.start(static_cast<net::OwnerId>(go_.incarnation()));
  build_client();
  thread_watch_.host = this;
  thread_watch_.kind = sim.intern_kind("dataplane.thread_watch");
  sim.schedule_in(10 * sim::kSecond, thread_watch_);
  go_.on_crash([this](goruntime::CrashReason reason, const std::string& message) {
    last_death_was_deploy_ = reason == goruntime::CrashReason::kDeploy;
    if (reason != goruntime::CrashReason::kDeploy) {
      note("process died: " + message);
      if (reason != goruntime::CrashReason::kExternal) {
        uptimes_.push_back(sim::to_seconds(sim_.now() - up_since_));
      }
    }
    // The kernel closes every descriptor of the dead process: pooled and in-use memcached
    // connections alike go to TIME_WAIT in this namespace and stay there (domain.md §1.6 #6),
    // and so do the Scylla connections.
    scylla_pool_.crash();
    if (client_) {
      client_->crash();
      dead_clients_.push_back(std::move(client_));
    }
  });
  go_.on_restart([this] {
    up_since_ = sim_.now();
    go_.retain(cfg_.baseline_live_heap_bytes);
    // A memory limit below the baseline heap kills the new process at once (a crash loop):
    // it never got to build its pool.
    if (!go_.alive()) return;
    scylla_pool_.start(static_cast<net::OwnerId>(go_.incarnation()));
    build_client();
    std::string waited;
    if (!last_death_was_deploy_ &&
        cfg_.go.restart_policy.kind == goruntime::RestartPolicyKind::kCrashLoopBackOff) {
      waited = " after a CrashLoopBackOff of " +
               std::to_string(go_.last_restart_delay() / sim::kSecond) + " s";
    }
    note("process restarted" + waited + " with an empty memcached pool; " +
         std::to_string(ns_.time_wait_count()) + " sockets still in TIME_WAIT");
  });
}

DataPlaneHost::~DataPlaneHost() = default;

void DataPlaneHost::build_client() {
  auto owner = static_cast<net::OwnerId>(go_.incarnation());
  client_ = std::make_unique<memcached::Client>(sim_, ns_, current_dialer(),
                                                std::vector<memcached::Server*>{&cache_},
                                                cfg_.cache_client, owner);
  // A port search shorter than sysmon's shortest tick can never lose its P, and its few µs
  // are not worth two events: only longer searches go through Go as syscalls.
  client_->set_syscall_hook([this](sim::Duration d) { return go_.syscall_cpu(d); },
                            cfg_.go.sysmon_tick_min);
  // Each open connection's bufio buffers are live heap of this process (not of its successor).
  client_->set_memory_hook([this, inc = go_.incarnation()](std::int64_t delta) {
    if (go_.incarnation() != inc) return;
    if (delta > 0) {
      go_.alloc_retained_now(delta);
    } else {
      go_.release(-delta);
    }
  });
}

net::Dialer& DataPlaneHost::current_dialer() {
  switch (cfg_.dialer) {
    case DialerPolicy::kFixedSource: return cache_fd_dialer_.over(fixed_dialer_);
    case DialerPolicy::kRandomLoopback: return cache_fd_dialer_.over(random_dialer_);
    case DialerPolicy::kDefault: return cache_fd_dialer_.over(default_dialer_);
  }
  return cache_fd_dialer_.over(fixed_dialer_);
}

void DataPlaneHost::ThreadWatch::on_event(sim::Simulation& sim) {
  DataPlaneHost& h = *host;
  const std::int64_t threads = h.go_.threads();
  h.threads_peak_ = std::max(h.threads_peak_, threads);
  if (h.threads_baseline_ == 0 && sim.now() >= 10 * sim::kMinute) h.threads_baseline_ = threads;
  if (h.threads_baseline_ > 0 && threads >= 3 * h.threads_baseline_ &&
      threads >= 2 * std::max<std::int64_t>(h.threads_noted_, 1)) {
    h.note("OS threads " + std::to_string(threads) + " (baseline " +
           std::to_string(h.threads_baseline_) + ")");
    h.threads_noted_ = threads;
  }
  sim.schedule_in(10 * sim::kSecond, *this);
}

void DataPlaneHost::deploy(const std::string& what) {
  note("deploy: " + what + " (the process is replaced; threads and heap start afresh)");
  go_.kill(goruntime::CrashReason::kDeploy);
}

void DataPlaneHost::set_memory_limit(std::int64_t bytes) {
  note("container memory limit set to " + std::to_string(bytes) + " bytes");
  go_.set_container_memory_limit(bytes);
}

void DataPlaneHost::set_cache_down(bool down) {
  if (down == cache_.down()) return;
  if (!down) ++cache_restarts_;
  note(down ? "memcached down (restarting)" : "memcached back, empty");
  cache_.set_down(down);
}

void DataPlaneHost::set_log_stalled(bool stalled) {
  if (stalled == sink_.stalled()) return;
  note(stalled ? "log collector stalled (the pipe stops draining)" : "log collector reading again");
  sink_.set_stalled(stalled, sim_.now());
}

void DataPlaneHost::set_cache_syn_loss(double p) {
  cache_.set_syn_loss(p, p > 0 ? &sim_.stream(cfg_.name + "/memcached-syn-loss") : nullptr);
}

void DataPlaneHost::set_dialer(DialerPolicy p) {
  if (p != cfg_.dialer) note(std::string("memcached dialer set to ") + to_string(p));
  cfg_.dialer = p;
  if (client_) client_->set_dialer(current_dialer());
}

void DataPlaneHost::set_get_post_record_limit(std::int64_t limit) {
  if (limit != cfg_.get_post_record_limit) {
    note("GetPostRecord errgroup limit set to " + std::to_string(limit));
  }
  cfg_.get_post_record_limit = limit;
}

void DataPlaneHost::set_log_policy(logsink::LogPolicy p) {
  note("log policy changed");
  cfg_.logger.policy = p;
  logger_.set_policy(p);  // the same logger: goroutines may be parked on its fd lock
}

void DataPlaneHost::get_post_record(std::int64_t uris, PostMix mix, RpcDone done, RpcTag tag) {
  ++stats_.rpcs;
  if (!go_.alive()) {
    ++stats_.rpcs_unavailable;
    done(RpcResult{false, "unavailable"});
    return;
  }
  auto call = std::make_shared<Call>(*this, std::move(done));
  if (cfg_.max_batch_uris > 0 && uris > cfg_.max_batch_uris) {
    ++stats_.rpcs_rejected;
    call->reply(RpcResult{false, "batch_too_large"});
    return;
  }
  if (tag.endpoint.empty()) tag.endpoint = "GetPostRecord";
  go_.go(serve_batch(call, uris, mix, cfg_.get_post_record_limit, std::move(tag)));
}

void DataPlaneHost::small_rpc(std::int64_t uris, RpcDone done, RpcTag tag) {
  ++stats_.rpcs;
  if (!go_.alive()) {
    ++stats_.rpcs_unavailable;
    done(RpcResult{false, "unavailable"});
    return;
  }
  auto call = std::make_shared<Call>(*this, std::move(done));
  if (tag.endpoint.empty()) tag.endpoint = "rpc";
  go_.go(serve_batch(call, uris, PostMix::kHot, cfg_.handler_limit, std::move(tag)));
}

sim::Task<> DataPlaneHost::serve_batch(std::shared_ptr<Call> call, std::int64_t uris, PostMix mix,
                                       std::int64_t limit, RpcTag tag) {
  // The handler goroutine's lane holds the RPC; its fetchPost goroutines get lanes of their own.
  sim::TraceSpan span = co_await sim::trace_span(sim_, tag.endpoint, "rpc");
  errgroup::Group group(sim_);  // its goroutines are go_'s, started by StartFetch
  if (limit >= 0) group.set_limit(limit);
  for (std::int64_t i = 0; i < uris; ++i) {
    const StartFetch start{this, pick_post(mix)};
    co_await group.go_member(start);
  }
  co_await group.wait();
  call->reply(RpcResult{});
  if (span) {
    span.end({{"endpoint", tag.endpoint},
              {"client", tag.client},
              {"uris", uris},
              {"limit", limit}});
  }
}

void DataPlaneHost::StartFetch::operator()(errgroup::Member member) const {
  // The handler that starts fetchPost goroutines may find its own process killed within the
  // same step (a stack or buffer allocation crossed the memory limit): the dead process runs
  // no further statement, so the handler unwinds here as the kill's cancellation would at its
  // next suspension.
  if (!host->go_.alive()) throw sim::Cancelled{};
  host->go_.go_process(host->fetch_post(host->go_.incarnation(), std::move(member), post));
}

// fetchPost returns nil on every path (errors are logged, not returned: domain.md §1.5).
sim::Process DataPlaneHost::fetch_post(std::uint64_t incarnation, errgroup::Member joined,
                                       std::uint64_t post) {
  auto g = co_await go_.enter(incarnation);
  errgroup::Member member = std::move(joined);  // leaves the group before g ends, unwinding too
  const std::string key = "post/" + std::to_string(post);
  ++stats_.uris;
  sim::TraceSpan span = co_await sim::trace_span(sim_, "fetchPost", "rpc");
  co_await go_.alloc_live(cfg_.live_per_uri_bytes);
  memcached::Client& mc = *client_;
  memcached::McResult got = co_await mc.get(key);
  co_await go_.cpu(cfg_.cpu_per_uri);
  co_await go_.alloc(cfg_.garbage_per_uri_bytes);
  if (got.ok()) {
    ++stats_.cache_hits;
    go_.release(cfg_.live_per_uri_bytes);
    if (span) span.end({{"key", key}, {"cache", "hit"}});
    co_await member.finish(errgroup::Error{});
    co_return;
  }
  if (!got.resumable()) {  // not a miss: "failed to get post cache item"
    note_cache_error(got);
#ifdef SKYSIM_PLANTED_BUGS
    // Planted for the fuzzer's self-test (docs/fuzzing.md, "Planted bugs"): the error path
    // also takes its RPC off the in-flight count, which the reply does again: rpcs_accounted
    // must fail.
    --in_flight_;
#endif
    sim::TraceSpan log = co_await sim::trace_span(sim_, "log.Error", "log");
    co_await logger_.error();
  }
  if (!scylla_pool_.pick()) {
    // No node has a connection (every dial failed): the query fails at once, as gocql's
    // ErrNoConnections; logged like every other error (assumption, §1.6 #3).
    ++stats_.scylla_errors;
    sim::TraceSpan log = co_await sim::trace_span(sim_, "log.Error", "log");
    co_await logger_.error();
    go_.release(cfg_.live_per_uri_bytes);
    if (span) span.end({{"key", key}, {"cache", "miss"}, {"scylla", "no connection"}});
    co_await member.finish(errgroup::Error{});
    co_return;
  }
  {
    sim::TraceSpan read = co_await sim::trace_span(sim_, "scylla read", "scylla");
    const bool slow = slow_nodes_ > 0 && static_cast<std::int64_t>(scylla_pool_.picked()) < slow_nodes_;
    co_await scylla_.read(slow ? slow_factor_ : 1.0);
  }
  ++stats_.scylla_reads;
  // assumption: a post record is ~1 KiB in the cache.
  memcached::McResult put = co_await mc.set(key, memcached::McItem{1024, 0});
  if (!put.ok()) {  // "failed to set post cache item" (domain.md §1.5)
    note_cache_error(put);
    sim::TraceSpan log = co_await sim::trace_span(sim_, "log.Error", "log");
    co_await logger_.error();
  }
  go_.release(cfg_.live_per_uri_bytes);
  if (span) span.end({{"key", key}, {"cache", got.resumable() ? "miss" : "error"}});
  co_await member.finish(errgroup::Error{});
}

void DataPlaneHost::note_cache_error(const memcached::McResult& r) {
  ++stats_.cache_errors;
  if (r.status == memcached::McStatus::kDialError &&
      (r.dial_error.code == net::Errno::kEADDRINUSE ||
       r.dial_error.code == net::Errno::kEADDRNOTAVAIL)) {
    ++stats_.bind_errors;
    if (stats_.first_bind_error_at < 0) {
      stats_.first_bind_error_at = sim_.now();
      note("first memcached dial error: " + r.error_text());
    }
    if (stats_.last_bind_error.empty()) stats_.last_bind_error = r.error_text();
  }
}

std::uint64_t DataPlaneHost::pick_post(PostMix mix) {
  std::uint64_t id;
  if (mix == PostMix::kHot) {
    // Pareto rank: a few posts take most reads (assumption: shape 1.2).
    double rank = keys_rng_.pareto(1.0, cfg_.hot_pareto_shape);
    id = static_cast<std::uint64_t>(rank - 1.0) % cfg_.hot_posts;
  } else {
    id = cfg_.hot_posts + static_cast<std::uint64_t>(keys_rng_.uniform_int(
                              0, static_cast<std::int64_t>(cfg_.cold_posts) - 1));
  }
  return id;
}

}  // namespace skysim::dataplane
