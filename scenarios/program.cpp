#include "scenarios/program.hpp"

#include <utility>

#include "scenarios/interning_books.hpp"
#include "scenarios/param_builder.hpp"

namespace skysim::scenarios {

using sim::ParamType;

namespace {
sim::ParamSpec required(sim::ParamSpec s) {
  s.default_text.reset();
  return s;
}
// `keys`: how many keys a cache or fdb step draws from, uniformly.
sim::ParamSpec key_space() {
  return extensive(
      param("keys", ParamType::Count, "keys", "100k", "the key space (uniform)", 1, 1e9));
}

// on_read per_shard's placement: follower_pages (the inboxes it writes) and read_set (the one it
// scans) name the same client, so the same declaration.
sim::ParamSpec per_shard_cluster() {
  return param("cluster", ParamType::String, "", "",
               "on_read per_shard: the gocql client whose scylla service places the partitions");
}

// The client, the allocator's choices (scenarios/interning_books.hpp), the strings
// and the retry limit.
std::vector<sim::ParamSpec> uid_alloc_params() {
  std::vector<sim::ParamSpec> out = {
      required(param("client", ParamType::String, "", "", "an fdb client of this program"))};
  for (sim::ParamSpec& p : allocator_params()) out.push_back(std::move(p));
  out.push_back(param("repeat_fraction", ParamType::Percent, "", "30%",
                      "share of requests naming an already-interned string (assumption)", 0,
                      0.999));
  out.push_back(param("max_attempts", ParamType::Count, "", "1000",
                      "transactions tried before giving up (fdb's retry_limit)", 1, 1e9));
  return out;
}

}  // namespace

const std::vector<StepType>& step_types() {
  static const std::vector<StepType> types = {
      {StepKind::kCpu,
       "cpu",
       "Go code: the goroutine waits for a P and runs `time` of CPU on it (preempted every "
       "10 ms), so under load it queues behind the other goroutines",
       {param("time", ParamType::Distribution, "duration", "{constant: 20us}",
              "CPU the code needs per run of the step")}},
      {StepKind::kSleep,
       "sleep",
       "time.Sleep: the goroutine parks without a P or a thread for `time`",
       {param("time", ParamType::Distribution, "duration", "{constant: 1ms}",
              "how long it sleeps")}},
      {StepKind::kAlloc,
       "alloc",
       "allocates `bytes` of objects the handler keeps reachable until it returns, or with "
       "`live: false` short-lived garbage unreachable at once (both pace the GC; the GC "
       "assists are paid during a mark, as Go's allocator does)",
       {param("bytes", ParamType::Size, "bytes", "4KiB", "heap allocated per run of the step", 0,
              1e12),
        param("live", ParamType::Bool, "", "true",
              "true: the request holds it until the handler returns; false: garbage (decoding "
              "buffers, temporaries) the next GC finds dead")}},
      {StepKind::kCall,
       "call",
       "a request through a named client (net/http-style: an idle connection of the pool or a "
       "new dial through the host's TCP stack; the connection goes back to the pool if it has "
       "room, else it is closed and leaves TIME_WAIT); fails the handler on an error unless "
       "`on_error: continue`",
       {required(param("client", ParamType::String, "", "", "a client of this program")),
        required(param("endpoint", ParamType::String, "", "",
                       "an endpoint of the client's target (a handler if it runs a program)")),
        param("size", ParamType::Size, "bytes", "0",
              "request size passed to the target (0 = the incoming request's)", 0, 1e12),
        param("key", ParamType::Enum, "", "none",
              "none: the request names no item and the target picks (scylla: a uniform "
              "partition); cache: it names the key the enclosing cache_get missed, so a "
              "read-through reads that item's row (scylla: its partition, key mod partitions; "
              "only inside a cache_get's on_miss); item: the follower of the enclosing errgroup "
              "task (tasks_from: page), so a fan-out writes that follower's timeline; uniform: a "
              "key drawn uniformly among `keys` (a user opening their own timeline)",
              std::nullopt, std::nullopt, {"none", "cache", "item", "uniform"}),
        extensive(param("keys", ParamType::Count, "keys", "100k", "key: uniform: the key space",
                        1, 4e9)),
        param("on_error", ParamType::Enum, "", "fail",
              "fail: the handler returns the error; continue: it is counted and the handler "
              "goes on; log_and_fail / log_and_continue: the same after one log.Error line "
              "(the host's log policy, as the `log` step)",
              std::nullopt, std::nullopt,
              {"fail", "continue", "log_and_fail", "log_and_continue"}),
        param("hot_cache", ParamType::Duration, "", "0",
              "the client's hot-key cache (components/hotkey's HotKeyClientCache, Tejo's "
              "client side, domain.md §9.1): a read whose reply the storage marks hot is kept "
              "this long, and the key's reads meanwhile are answered from the copy without a "
              "request (call.hot_cache_hits; the scylla service counts the stale ones). Only a "
              "read (endpoint: read) with a key, through a client to a scylla service running "
              "hot_keys; 0 = none (the process's memory: a restart empties it)",
              0, 1e15)}},
      {StepKind::kCacheGet,
       "cache_get",
       "mc.Get(key) through a gomemcache client, key drawn uniformly among `keys`; on "
       "ErrCacheMiss the `on_miss` steps run and, if they succeed and `fill` is on, "
       "mc.Set(key) stores `value_bytes` (the read-through of domain.md §1.2)",
       {required(param("client", ParamType::String, "", "", "a gomemcache client of this program")),
        key_space(),
        param("popularity", ParamType::Enum, "", "uniform",
              "how a key is drawn among `keys`: uniform, or pareto (rank = Pareto(1, "
              "pareto_shape) - 1, modulo keys: a few hot posts most requests name)",
              std::nullopt, std::nullopt, {"uniform", "pareto"}),
        param("pareto_shape", ParamType::Double, "", "1.2",
              "popularity pareto: the shape (assumption, as the dataplane kind's hot posts)", 0.01,
              100),
        naming_clients(param("cold_clients", ParamType::String, "", "",
                             "comma-separated clients (of the scenario's sources) whose requests "
                             "name keys of a separate cold space, uniform among cold_keys (a "
                             "backfill walking old posts); \"\" = none")),
        extensive(param("cold_keys", ParamType::Count, "keys", "50M",
                        "cold_clients: the cold key space (assumption, as the dataplane kind's "
                        "cold posts)",
                        1, 1e12)),
        param("value_bytes", ParamType::Size, "bytes", "1KiB", "item size a fill stores", 0, 1e6),
        param("fill", ParamType::Bool, "", "true", "mc.Set after a miss the on_miss steps served"),
        param("on_error", ParamType::Enum, "", "miss",
              "an error other than a miss (timeout, dial error, EOF): miss (fall back to "
              "on_miss, as the April data plane did), log_and_miss (one log.Error line first, "
              "and one for a failed fill's Set) or fail (return it)",
              std::nullopt, std::nullopt, {"miss", "log_and_miss", "fail"})},
       "on_miss"},
      {StepKind::kCacheSet,
       "cache_set",
       "mc.Set(key) of `value_bytes` through a gomemcache client, key drawn uniformly among "
       "`keys`; an error fails the handler unless on_error is continue",
       {required(param("client", ParamType::String, "", "", "a gomemcache client of this program")),
        key_space(), param("value_bytes", ParamType::Size, "bytes", "1KiB", "item size", 0, 1e6),
        param("on_error", ParamType::Enum, "", "fail", "fail or continue", std::nullopt,
              std::nullopt, {"fail", "continue"})}},
      {StepKind::kErrgroup,
       "errgroup",
       "golang.org/x/sync/errgroup: `tasks` goroutines each run the `do` steps, at most "
       "`limit` at once (SetLimit; -1 = none, as the zero Group), then Wait returns the first "
       "error",
       {param("tasks", ParamType::Count, "goroutines", "1", "g.Go calls per run of the step", 1,
              1e6),
        param("limit", ParamType::Int, "goroutines", "-1", "SetLimit; -1 = no limit", -1, 1e6),
        param("tasks_from", ParamType::Enum, "", "tasks",
              "tasks: the `tasks` count; request_size: the incoming request's size (a batch "
              "of that many items, as a source's request_size draws it); page: one goroutine per "
              "follower of the enclosing follower_pages' page (after any lossy_filter), each "
              "naming its follower (a call's key: item)",
              std::nullopt, std::nullopt, {"tasks", "request_size", "page"}),
        param("func", ParamType::String, "", "",
              "the name of the function g.Go runs (fetchPost), for traces: each goroutine's "
              "steps are a slice of that name; \"\" = none")},
       "do"},
      {StepKind::kSemaphore,
       "semaphore",
       "golang.org/x/sync/semaphore.Weighted, one per step and process, shared by every "
       "request: Acquire(ctx, 1) waits in FIFO order while `limit` holders run, the `do` "
       "steps run, then Release(1) (a killed goroutine's unit goes back too)",
       {required(param("limit", ParamType::Count, "holders", "",
                       "NewWeighted(limit): how many run the body at once", 1, 1e9))},
       "do"},
      {StepKind::kUidAlloc, "uid_alloc",
       "interns the request's string into a uint64 UID through an fdb client: db.Transact "
       "runs one transaction that reads s/<str> and, if absent, allocates a UID with the "
       "chosen allocator (components/uidalloc) and writes both directions; onError retries it "
       "(backoff, a fresh read version) up to max_attempts. The string is new, or with "
       "probability repeat_fraction one this step interned before. Errors: collision, "
       "exhausted, gave_up, fdb_unavailable",
       uid_alloc_params()},
      {StepKind::kFdbTxn,
       "fdb_txn",
       "db.Transact through an fdb client: Get `reads` keys one after the other (each "
       "MustGet before the next), Set `writes` keys of `value_bytes`, commit; keys drawn "
       "uniformly among `keys`, so a small key space conflicts (not_committed) and onError "
       "retries, up to max_attempts. Errors: gave_up, fdb_unavailable",
       {required(param("client", ParamType::String, "", "", "an fdb client of this program")),
        key_space(), param("reads", ParamType::Count, "keys", "1", "keys read per attempt", 0, 1e4),
        param("writes", ParamType::Count, "keys", "1", "keys written per attempt", 0, 1e4),
        param("value_bytes", ParamType::Size, "bytes", "100", "size of each written value", 0, 1e5),
        param("max_attempts", ParamType::Count, "", "1000",
              "transactions tried before giving up (fdb's retry_limit)", 1, 1e9)}},
      {StepKind::kLog,
       "log",
       "log.Error of `lines` lines through the host's log policy: each written line is one "
       "write(2) on the process's stderr pipe, serialised by Go's fd write lock, which blocks "
       "(holding its M) while the pipe is full (models/logsink)",
       {param("lines", ParamType::Count, "lines", "1", "lines per run of the step", 1, 1e6)}},
      {StepKind::kFollowerPages,
       "follower_pages",
       "walks `author`'s followers page by page through a graph client (one page of "
       "`page_size` ids per round trip to the follow-graph service, its page_fetch): the `do` "
       "steps run once per page, in order, the next page fetched only when they have returned "
       "(Bluesky's fan-out loop, domain.md §8.2). Counts each follower offered and, when a "
       "call naming it succeeds, delivered, per class (fanout.offered, fanout.delivered), and "
       "each page's time (fanout.page_duration_ns)",
       {required(param("client", ParamType::String, "", "", "a graph client of this program")),
        required(param("author", ParamType::String, "", "",
                       "the posting account, by its name in the graph (celebrity, bot/0, ...)")),
        param("page_size", ParamType::Count, "followers", "10k", "followers per page (§8.2)", 1,
              1e8),
        param("on_read_threshold", ParamType::Count, "followers", "0",
              "fan-out-on-read (§8.5): an author with at least this many followers is not walked; "
              "the `do` steps run once on a page holding only the author's recent-post list "
              "(partition users + author), which readers merge (read_set); 0 = every author fans "
              "out",
              0, 4e9),
        param("on_read", ParamType::Enum, "", "lists",
              "what an on_read author's post writes: lists (its recent-post list, partition "
              "users + author, §8.5) or per_shard (once into the inbox of each shard that is the "
              "first replica of a follower's timeline, the inbox being the lowest user partition "
              "placed there: the write-up's discussion, models/fanout/policies/per_shard.cpp)",
              std::nullopt, std::nullopt, {"lists", "per_shard"}),
        per_shard_cluster(),
        param("split_follows", ParamType::Count, "follows", "0",
              "split timelines (the write-up's discussion: one timeline per 1,000 follows): a "
              "follower following more than this many accounts has one sub-timeline per this "
              "many, and a call's key: item names the part the author's post goes into "
              "(models/fanout/split_timelines.hpp; partitions past 2 x users, so the cluster "
              "needs that many); 0 = one timeline per user",
              0, 4e9)},
       "do"},
      {StepKind::kReadSet,
       "read_set",
       "a timeline read's partitions (§8.5): a reader drawn uniformly among the graph's "
       "accounts, their own timeline and the recent-post list of each account they follow "
       "with at least `on_read_threshold` followers (0: their timeline alone), as the page an "
       "errgroup with tasks_from: page reads in parallel (a call's key: item, with the rows "
       "the item needs); with `split_follows`, each of the reader's sub-timelines; with "
       "`on_read: per_shard`, its shard's inbox instead of the lists. Counts fanout.read_rows, "
       "fanout.reads and fanout.read_partitions",
       {required(param("client", ParamType::String, "", "", "a graph client of this program")),
        param("on_read_threshold", ParamType::Count, "followers", "0",
              "followed accounts with at least this many followers are merged at read time; "
              "0 = none",
              0, 4e9),
        param("split_follows", ParamType::Count, "follows", "0",
              "split timelines: the reader's every sub-timeline is read and merged (the same "
              "value as the follower_pages that writes them); 0 = one timeline per user",
              0, 4e9),
        param("on_read", ParamType::Enum, "", "lists",
              "lists: each followed on_read account's list, a page of rows each; per_shard: the "
              "reader's shard's inbox once, scanning page_rows x (the inbox's authors / the ones "
              "the reader follows) rows to find a page of its own (the same value as the "
              "follower_pages that writes them)",
              std::nullopt, std::nullopt, {"lists", "per_shard"}),
        per_shard_cluster(),
        param("page_rows", ParamType::Count, "rows", "50",
              "rows one timeline page needs (the scylla service's read_rows; counted in "
              "fanout.read_rows, and the per_shard inbox scan's unit)",
              1, 1e6)}},
      {StepKind::kLossyFilter,
       "lossy_filter",
       "Bluesky's lossy timelines (components/lossy, domain.md §8.3): one r in [0,1) per page, "
       "a follower kept iff its loss factor (from its follow count in the process's "
       "high-follow cache, reloaded from the sorted-set store every `refresh`) is >= r; narrows "
       "the enclosing follower_pages' page in place (an author's recent-post list, on_read, passes "
       "untouched). `enabled: false` is the feature flag off: every follower kept (full "
       "fan-out)",
       {param("enabled", ParamType::Bool, "", "true",
              "the feature flag: false keeps every follower (full fan-out)"),
        param("reasonable_limit", ParamType::Count, "follows", "2000",
              "follows above which a follower's rows are thinned (§8.3)", 1, 1e9),
        param("refresh", ParamType::Duration, "", "30s",
              "period of the process's reload of the high-follow set (§8.3: 30 s)", 2e6, 8.64e13),
        param("redis_rtt", ParamType::Duration, "", "1ms",
              "round trip of the reload's whole-set read (assumption, docs/fanout.md)", 0,
              1e12)}},
      {StepKind::kHyperDetect,
       "hyper_detect",
       "docs/fanout.md's detect_* policies: each follower of the enclosing follower_pages' "
       "page (after any lossy_filter) is a timeline write about to be made, shown to a "
       "hyper-detector service through a detector client; one it refuses (an account flagged "
       "for more than its threshold of writes/s: blocked, or past its rate limit) leaves the "
       "page. Narrows the page in place; an author's recent-post list (on_read) passes",
       {required(param("client", ParamType::String, "", "",
                       "a detector client of this program"))}},
      {StepKind::kShardQueue,
       "shard_queue",
       "docs/fanout.md's shard_queue policy: each follower of the enclosing follower_pages' "
       "page becomes one timeline write (its timeline, or under split_follows its part) in a "
       "fan-out queue partitioned by the Scylla shard it lands on (its partition's first "
       "replica, as the shard-aware driver routes it); each shard's lane drains in arrival "
       "order under its own token bucket of `rate` (burst: in_flight) and at most `in_flight` "
       "outstanding (models/fanout/shard_queue.hpp). The step returns at once, so the next page "
       "is fetched without waiting for the writes; a page's time ends at its last answer, and "
       "the follower_pages returns when every write it queued is answered. The page goes on "
       "empty (the writes are the queue's), so an errgroup after it has nothing to write: with "
       "`enabled: false` (the feature flag off) the page goes on whole instead. The client must "
       "be a gocql client to a scylla service. Metrics: "
       "fanout.queue_delay_ns (queued -> sent), fanout.queue_max_depth, "
       "fanout.queued_write_latency_ns",
       {required(param("client", ParamType::String, "", "",
                       "a gocql client of this program to a scylla service")),
        param("enabled", ParamType::Bool, "", "true",
              "the feature flag: false leaves the page to the steps after it"),
        param("rate", ParamType::Rate, "writes/s", "2000/s",
              "each shard lane's rate (assumption, docs/fanout.md's shard_queue_rate: ~4 % "
              "of a shard)",
              1, 1e9),
        param("in_flight", ParamType::Count, "writes", "32",
              "writes outstanding per shard lane (assumption, docs/fanout.md's "
              "shard_queue_in_flight)",
              1, 1e6)}},
      {StepKind::kFail,
       "fail",
       "returns an error with probability `probability` (a dependency's failure the model "
       "does not simulate, or an injected fault)",
       {param("probability", ParamType::Percent, "", "100%", "chance the step fails", 0, 1),
        param("reason", ParamType::String, "", "error", "the error's label in metrics")}},
      {StepKind::kMaxItems,
       "max_items",
       "the handler's input check: a request naming more than `limit` items (its "
       "request_size, as a source draws it) returns the error too_many_items before any "
       "further step runs, as `if len(uris) > limit { return errTooMany }` does (a batch cap)",
       {required(extensive(param("limit", ParamType::Count, "items", "",
                                 "the most items a request may name", 1, 1e9)))}},
  };
  return types;
}

const StepType* find_step_type(std::string_view name) {
  for (const auto& t : step_types()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::vector<std::string> step_type_names() {
  std::vector<std::string> out;
  for (const auto& t : step_types()) out.push_back(t.name);
  return out;
}

std::vector<sim::ParamSpec> client_params() {
  return {
      extensive(param("max_idle", ParamType::Count, "connections", "2",
                      "idle connections kept per target host (net/http "
                      "DefaultMaxIdleConnsPerHost = 2; gomemcache DefaultMaxIdleConns = 2)",
                      1, 1e6)),
      param("timeout", ParamType::Duration, "", "0",
            "deadline of one call from dial to reply (http.Client.Timeout); 0 = none, Go's zero "
            "value",
            0, 1e15),
      param("rtt", ParamType::Duration, "", "100us",
            "network round trip to the target (assumption: one datacenter's LAN, ~0.1 ms); "
            "the dial's handshake costs one, each request one",
            0, 1e12),
      param("linger_zero", ParamType::Bool, "", "false",
            "SO_LINGER 0: closing sends RST and leaves no TIME_WAIT (domain.md §2.5)"),
      param("driver", ParamType::Enum, "", "net_http",
            "net_http: an idle list per host, a dial per call it cannot serve, surplus closed "
            "(net/http, gomemcache); gocql: conns_per_host connections per host kept open, "
            "every call a stream on one of them (gocql's pool); gomemcache: memcached's protocol "
            "to a memcached service (models/memcached Client: max_idle per server, timeout 0 = "
            "gomemcache's DefaultTimeout 500 ms), used by cache_get / cache_set. Against a "
            "scylla target set rtt: 0: the cluster model's client_rtt already holds the round "
            "trip; fdb: the FoundationDB client library to an fdb service, used by uid_alloc "
            "and fdb_txn (the cluster model's latencies hold the round trips); graph: the "
            "follow-graph store's client, used by follower_pages (its page_fetch holds the "
            "round trip); detector: a hyper-detector service's counters, used by hyper_detect "
            "(assumption: updated in place, no round trip, as docs/fanout.md's detector)",
            std::nullopt, std::nullopt, {"net_http", "gocql", "gomemcache", "fdb", "graph", "detector"}),
      param("local", ParamType::Bool, "", "false",
            "the target runs beside this host as a sidecar (host i talks to host i of the "
            "target, over loopback 127.0.0.1, so tcp_tw_reuse 2 applies); the two services "
            "must have as many hosts",
            std::nullopt, std::nullopt),
      param("dialer", ParamType::Enum, "", "default",
            "how a dial picks its source: default (connect(2) autobinds: the 4-tuple rule), "
            "fixed_source (bind(source_ip, 0) then connect: one IP's ports for every "
            "destination, as the April data plane, domain.md §1.3) or random_loopback (a random "
            "127.x.y.z per dial: the April band-aid, §1.7)",
            std::nullopt, std::nullopt, {"default", "fixed_source", "random_loopback"}),
      param("source_ip", ParamType::String, "", "127.32.0.1",
            "dialer fixed_source: the address bound before connect"),
      param("bind_address_no_port", ParamType::Bool, "", "false",
            "dialer fixed_source: IP_BIND_ADDRESS_NO_PORT, the port chosen at connect under the "
            "4-tuple rule (domain.md §2.3)"),
      param("conns_per_host", ParamType::Count, "connections", "2",
            "driver gocql: connections per host (gocql ClusterConfig.NumConns default 2)", 1, 1e4),
  };
}

std::vector<std::string> Program::endpoints() const {
  std::vector<std::string> out;
  for (const auto& [name, steps] : handlers) out.push_back(name);
  return out;
}

void for_each_step(const std::vector<Step>& steps, const std::function<void(const Step&)>& f) {
  for (const Step& s : steps) {
    f(s);
    for_each_step(s.body, f);
  }
}

void for_each_step(const Program& program, const std::function<void(const Step&)>& f) {
  for (const auto& [name, steps] : program.handlers) for_each_step(steps, f);
}

namespace {
// Wiring the loader checks against the other services: fixed for the run.
constexpr std::string_view kClientWiring[] = {"driver", "local"};
constexpr std::string_view kStepWiring[] = {"client", "endpoint", "cold_clients"};
template <std::size_t N>
bool among(const std::string_view (&names)[N], std::string_view name) {
  for (std::string_view n : names) {
    if (n == name) return true;
  }
  return false;
}
template <std::size_t N>
std::string listed(const std::string_view (&names)[N]) {
  std::string out;
  for (std::size_t i = 0; i < N; ++i) {
    out += (i == 0 ? "" : i + 1 == N ? " and " : ", ") + std::string(names[i]);
  }
  return out;
}
const sim::ParamSpec* spec_named(const std::vector<sim::ParamSpec>& specs, std::string_view name) {
  for (const auto& s : specs) {
    if (s.name == name) return &s;
  }
  return nullptr;
}
std::string names_of(const std::vector<sim::ParamSpec>& specs) {
  std::string out;
  for (const auto& s : specs) out += (out.empty() ? "" : ", ") + s.name;
  return out;
}
}  // namespace

const sim::ParamSpec* deployable_param(const Program& program, std::string_view owner,
                                       std::string_view name, std::string& why) {
  if (const ClientSpec* c = program.client_at(owner)) {
    static const std::vector<sim::ParamSpec> specs = client_params();
    if (among(kClientWiring, name)) {
      why = "a client's " + std::string(name) +
            " is its wiring, checked at load; a deploy cannot change it";
      return nullptr;
    }
    if (const sim::ParamSpec* s = spec_named(specs, name)) return s;
    why = "client '" + c->name + "' has no parameter '" + std::string(name) + "' (" +
          names_of(specs) + ")";
    return nullptr;
  }
  const Step* found = program.step_at(owner);
  if (!found) {
    why = "no client or step at '" + std::string(owner) + "'";
    return nullptr;
  }
  const StepType* type = nullptr;
  for (const StepType& t : step_types()) {
    if (t.kind == found->kind) type = &t;
  }
  if (among(kStepWiring, name)) {
    why = "a step's " + std::string(name) +
          " is its wiring, checked at load; a deploy cannot change it";
    return nullptr;
  }
  if (found->kind == StepKind::kUidAlloc) {
    why =
        "a uid_alloc's allocator is built once per process from its parameters; they cannot change "
        "during a run";
    return nullptr;
  }
  if (const sim::ParamSpec* s = spec_named(type->params, name)) return s;
  why = "step '" + type->name + "' has no parameter '" + std::string(name) + "' (" +
        names_of(type->params) + ")";
  return nullptr;
}

std::string deploy_rule() {
  return "A timeline `set:` of a client's parameter (datacenters.DC.services.SVC.program.clients."
         "NAME.PARAM) or a step's (its path and PARAM, e.g. ...program.handlers.get.0.errgroup."
         "limit) is a deploy: each host's process is replaced by a new build running the changed "
         "program, with empty pools. Fixed for the run: a client's " +
         listed(kClientWiring) + "; a step's " + listed(kStepWiring) +
         " (wiring the loader checks); uid_alloc's "
         "parameters (its allocator is built once).";
}

const ClientSpec* Program::client_at(std::string_view path) const {
  for (const auto& c : clients) {
    if (c.path == path) return &c;
  }
  return nullptr;
}
ClientSpec* Program::client_at(std::string_view path) {
  return const_cast<ClientSpec*>(std::as_const(*this).client_at(path));
}

namespace {
const Step* step_in(const std::vector<Step>& steps, std::string_view path) {
  for (const Step& s : steps) {
    if (s.path == path) return &s;
    if (const Step* inner = step_in(s.body, path)) return inner;
  }
  return nullptr;
}
}  // namespace

const Step* Program::step_at(std::string_view path) const {
  for (const auto& [name, steps] : handlers) {
    if (const Step* s = step_in(steps, path)) return s;
  }
  return nullptr;
}
Step* Program::step_at(std::string_view path) {
  return const_cast<Step*>(std::as_const(*this).step_at(path));
}

const ClientSpec* Program::client(std::string_view name) const {
  for (const auto& c : clients) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

}  // namespace skysim::scenarios
