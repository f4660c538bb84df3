#pragma once
// kv::SyncTask<T>: the future type of a backend whose reads block the calling thread (etcd over
// HTTP in backends/etcd, an in-memory map in the tests). The coroutine starts at once and runs
// to completion before the call returns, because everything it may co_await is another
// SyncTask, already complete. So `co_await tr.get(k)` never suspends, the stack never grows
// past ordinary nesting, and a thread may run one transaction while other threads run theirs.
//
//   kv::SyncTask<int> f() { co_return 1; }
//   int v = f().get();   // rethrows what the body threw
#include <coroutine>
#include <exception>
#include <optional>
#include <utility>

namespace kv {

template <class T>
class SyncTask;

namespace detail {

template <class T>
struct SyncResult {
  std::optional<T> value;
  void return_value(T v) { value.emplace(std::move(v)); }
  T take() { return std::move(*value); }
};
template <>
struct SyncResult<void> {
  void return_void() {}
  void take() {}
};

}  // namespace detail

template <class T = void>
class [[nodiscard]] SyncTask {
 public:
  struct promise_type : detail::SyncResult<T> {
    std::exception_ptr error;
    SyncTask get_return_object() {
      return SyncTask(std::coroutine_handle<promise_type>::from_promise(*this));
    }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    void unhandled_exception() { error = std::current_exception(); }
    // Only SyncTasks may be awaited: anything else could suspend, and nothing would resume it.
    template <class U>
    SyncTask<U>&& await_transform(SyncTask<U>&& t) noexcept {
      return std::move(t);
    }
  };

  SyncTask(SyncTask&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  SyncTask& operator=(SyncTask&&) = delete;
  ~SyncTask() {
    if (h_) h_.destroy();
  }

  // The result (or the body's exception). Once only.
  T get() {
    auto h = std::exchange(h_, {});
    struct Destroy {
      std::coroutine_handle<promise_type> h;
      ~Destroy() { h.destroy(); }
    } destroy{h};
    if (h.promise().error) std::rethrow_exception(h.promise().error);
    return h.promise().take();
  }

  bool await_ready() const noexcept { return true; }  // complete since the call returned
  void await_suspend(std::coroutine_handle<>) const noexcept {}
  T await_resume() { return get(); }

 private:
  explicit SyncTask(std::coroutine_handle<promise_type> h) : h_(h) {}
  std::coroutine_handle<promise_type> h_;
};

// A backend over a blocking transaction type: `uidalloc::make_allocator<kv::Blocking<Tr>>(...)`.
template <class Tr>
struct Blocking {
  using Transaction = Tr;
  template <class T>
  using Future = SyncTask<T>;
};

}  // namespace kv
