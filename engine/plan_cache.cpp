// The plan cache (engine.h): one back end's prepared plans, keyed by relation
// identity and plan key, least recently used evicted, invalidated when a
// relation changes.
#include <algorithm>

#include "engine/engine.h"

namespace quelkit::harness {

HeldPlan* PlanCache::find(const std::string& key) {
  auto it = map_.find(key);
  if (it == map_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second.lru);
  return &it->second.held;
}

HeldPlan* PlanCache::insert(const std::string& key, std::unique_ptr<Prepared> p, std::vector<uint64_t> positions) {
  while (capacity_ > 0 && map_.size() >= capacity_ && !lru_.empty()) {
    map_.erase(lru_.back());
    lru_.pop_back();
    ++evictions_;
  }
  lru_.push_front(key);
  Entry& e = map_[key];
  e = Entry{HeldPlan{std::move(p), std::move(positions), true, {}}, lru_.begin()};
  return &e.held;
}

void PlanCache::invalidate(const std::string& relation) {
  std::string prefix = relation + "#";
  for (auto it = map_.begin(); it != map_.end();) {
    if (it->first.compare(0, prefix.size(), prefix) == 0) {
      lru_.erase(it->second.lru);
      it = map_.erase(it);
    } else {
      ++it;
    }
  }
}

void PlanCache::clear() {
  if (map_.empty()) return;  // (clearing an empty map still zeroes its buckets: twice a statement)
  map_.clear();
  lru_.clear();
}

void PlanCache::set_capacity(size_t c) {
  capacity_ = c;
  while (capacity_ > 0 && map_.size() > capacity_) {
    map_.erase(lru_.back());
    lru_.pop_back();
    ++evictions_;
  }
}

}  // namespace quelkit::harness
