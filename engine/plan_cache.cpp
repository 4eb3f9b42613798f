// The plan cache (engine.h): one back end's prepared plans, keyed by relation
// identity and plan key, least recently used evicted, invalidated when a
// relation changes.
#include <algorithm>

#include "engine/engine.h"

namespace quelkit::harness {

Prepared* PlanCache::find(const std::string& key, const std::vector<uint64_t>** positions) {
  auto it = map_.find(key);
  if (it == map_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second.lru);
  if (positions) *positions = &it->second.positions;
  return it->second.prepared.get();
}

Prepared* PlanCache::insert(const std::string& key, std::unique_ptr<Prepared> p, std::vector<uint64_t> positions,
                            const std::vector<uint64_t>** stored) {
  while (capacity_ > 0 && map_.size() >= capacity_ && !lru_.empty()) {
    map_.erase(lru_.back());
    lru_.pop_back();
    ++evictions_;
  }
  lru_.push_front(key);
  auto* raw = p.get();
  Entry& e = map_[key];
  e = Entry{std::move(p), lru_.begin(), std::move(positions)};
  if (stored) *stored = &e.positions;
  return raw;
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
