// Sorting and duplicate removal of a stored result (result_order.h).
#include "engine/result_order.h"

#include <algorithm>
#include <cstring>

#include "engine/rows.h"
#include "storage/budget.h"

namespace quelkit::harness {

void order_rows(ResultRows& rows, const Schema& s, const std::vector<frontend::SortKey>& keys, bool unique) {
  const uint32_t len = s.tuple_len;
  if (len == 0) {  // every row is the empty row ("" targets): one is left of it
    if (unique && rows.size() > 1) {
      ResultRows one(0);
      one.append(nullptr, 1);
      rows = std::move(one);
    }
    return;
  }
  std::vector<const uint8_t*> at;
  at.reserve(rows.size());
  rows.for_each_run([&](const uint8_t* run, size_t n) {
    for (size_t i = 0; i < n; ++i) at.push_back(run + i * len);
  });
  std::vector<std::pair<int, bool>> order;
  for (const auto& k : keys) order.emplace_back(k.target, k.descending);
  if (unique)
    for (size_t c = 0; c < s.attrs.size(); ++c) order.emplace_back(int(c), false);
  // Ctrl-C cancels a sort too (of millions of rows it takes seconds): the
  // comparison throws "cancelled", leaving `rows` as they were.
  CancelPoll poll;
  auto less = [&](const uint8_t* x, const uint8_t* y) {
    poll();
    for (auto [c, desc] : order) {
      int r = compare_value(s.attrs[size_t(c)], x, y);
      if (r) return desc ? r > 0 : r < 0;
    }
    return false;
  };
  std::stable_sort(at.begin(), at.end(), less);
  // Written a chunk's room at a time (one room and one commit per chunk).
  ResultRows out(len);
  uint8_t* to = nullptr;
  size_t room = 0, used = 0;
  for (size_t i = 0; i < at.size(); ++i) {
    if (unique && i > 0 && !less(at[i - 1], at[i])) continue;  // sorted: not less means equal
    if (used == room) {
      if (used) out.commit(used);
      to = out.room(1, &room);
      used = 0;
    }
    std::memcpy(to + used * len, at[i], len);
    ++used;
  }
  if (used) out.commit(used);
  rows = std::move(out);
}

}  // namespace quelkit::harness
