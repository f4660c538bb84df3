#pragma once
// A doubly linked list whose nodes live inside their owners (awaiters in coroutine frames),
// so waiting never allocates and a waiter destroyed mid-wait unlinks itself in O(1).
// Destroying the list orphans its nodes, so destruction order between a primitive and the
// frames waiting on it never matters.
#include <cassert>
#include <cstddef>

namespace sim {

struct ListNode {
  ListNode* prev = nullptr;
  ListNode* next = nullptr;

  ListNode() = default;
  ListNode(const ListNode&) = delete;
  ListNode& operator=(const ListNode&) = delete;
  ~ListNode() { unlink(); }

  bool linked() const { return next != nullptr; }
  void unlink() {
    if (next == nullptr) return;
    prev->next = next;
    next->prev = prev;
    prev = next = nullptr;
  }
};

template <class T>  // T derives from ListNode
class IntrusiveList {
 public:
  IntrusiveList() { head_.prev = head_.next = &head_; }
  IntrusiveList(const IntrusiveList&) = delete;
  IntrusiveList& operator=(const IntrusiveList&) = delete;
  ~IntrusiveList() {
    ListNode* n = head_.next;
    while (n != &head_) {
      ListNode* next = n->next;
      n->prev = n->next = nullptr;
      n = next;
    }
    head_.prev = head_.next = nullptr;
  }

  bool empty() const { return head_.next == &head_; }
  std::size_t size() const {
    std::size_t n = 0;
    for (const ListNode* p = head_.next; p != &head_; p = p->next) ++n;
    return n;
  }
  T& front() { return *static_cast<T*>(head_.next); }
  T& back() { return *static_cast<T*>(head_.prev); }
  // Links `item` after the last node n for which !before(item, n), walking from the back: a
  // list kept in order whose new items usually belong at its end stays ordered in O(1).
  template <class Before>
  void insert_from_back(T& item, Before before) {
    ListNode* n = &item;
    assert(!n->linked());
    ListNode* at = head_.prev;
    while (at != &head_ && before(item, *static_cast<T*>(at))) at = at->prev;
    n->prev = at;
    n->next = at->next;
    at->next->prev = n;
    at->next = n;
  }
  void push_back(T& item) {
    ListNode* n = &item;
    assert(!n->linked());
    n->prev = head_.prev;
    n->next = &head_;
    head_.prev->next = n;
    head_.prev = n;
  }
  T& pop_front() {
    T& item = front();
    static_cast<ListNode&>(item).unlink();
    return item;
  }

  template <class F>
  void for_each(F&& f) {
    for (ListNode* p = head_.next; p != &head_;) {
      ListNode* next = p->next;
      f(*static_cast<T*>(p));
      p = next;
    }
  }

 private:
  ListNode head_;
};

}  // namespace sim
