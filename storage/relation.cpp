// Heap, ISAM and hash storage over one contiguous page array (page.h format).
// Deleted lines are never reused and pages never move, so a tuple's Tid and
// its scan ordinal stay stable until the next modify; that is what lets
// runtime errors name "tuple N" identically for every back end.
#include "storage/relation.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "runtime/runtime_inline.h"

namespace quelkit::harness {

namespace {

// Versions are unique across all relations, not per relation: a destroyed and
// re-created relation of the same name must not hit the old plans in the cache.
std::atomic<uint64_t> g_version{0};
uint64_t fresh_version() { return ++g_version; }

void set_next(uint8_t* pg, uint32_t next) { store<uint32_t>(pg + kPageOffNext, next); }
void set_nlines(uint8_t* pg, uint16_t n) { store<uint16_t>(pg + kPageOffNLines, n); }
void set_line(uint8_t* pg, uint32_t i, uint16_t off) { store<uint16_t>(pg + kPageHeader + kLineSize * i, off); }

}  // namespace

const char* structure_name(Structure s) {
  switch (s) {
    case Structure::Heap: return "heap";
    case Structure::Isam: return "isam";
    case Structure::Hash: return "hash";
  }
  return "?";
}

Relation::Relation(std::string name, Schema schema, uint32_t page_size)
    : name_(std::move(name)), schema_(std::move(schema)), page_size_(page_size) {
  if (page_size_ < kPageHeader + kLineSize + 1 || page_size_ > kMaxPageSize)
    throw std::invalid_argument("page size " + std::to_string(page_size_) + " out of range");
  if (schema_.tuple_len == 0) throw std::invalid_argument("relation " + name_ + " has no attributes");
  tpp_ = harness::tuples_per_page(page_size_, schema_.tuple_len);
  if (tpp_ == 0)
    throw std::invalid_argument("a " + std::to_string(schema_.tuple_len) + "-byte tuple does not fit a " +
                                std::to_string(page_size_) + "-byte page");
  version_ = fresh_version();
  new_stamp();
}

// Unique across relations and threads without an atomic per change: each
// thread takes stamps from a block of its own.
void Relation::new_stamp() {
  static std::atomic<uint64_t> g_stamps{1};
  constexpr uint64_t kBlock = uint64_t(1) << 20;
  thread_local uint64_t next = 0, end = 0;
  if (next == end) {
    next = g_stamps.fetch_add(kBlock);
    end = next + kBlock;
  }
  stamp_ = next++;
}

void Relation::reserve_pages(size_t npages) {
  if (npages * page_size_ <= pages_.capacity()) return;  // (before the charge's name is made)
  reserve_charged(pages_, npages * page_size_, pages_charge_, "relation " + name_);
}

uint32_t Relation::new_page(bool overflow) {
  uint32_t n = npages();
  reserve_pages(size_t(n) + 1);
  pages_.resize(pages_.size() + page_size_, 0);
  uint8_t* pg = pages_.data() + size_t(n) * page_size_;
  set_next(pg, kNoPage);
  store<uint32_t>(pg + kPageOffSelf, n);
  set_nlines(pg, 0);
  store<uint16_t>(pg + kPageOffFlags, overflow ? 1 : 0);
  if (!overflow) ++nprimary_;
  return n;
}

bool Relation::has_room(uint32_t page_no) const { return page_nlines(page(page_no)) < tpp_; }

Tid Relation::put(uint32_t page_no, const uint8_t* tuple) {
  uint8_t* pg = pages_.data() + size_t(page_no) * page_size_;
  uint16_t i = page_nlines(pg);
  // Tuple i always sits at the same place, so offsets never collide with
  // deleted lines' old tuples and a Tid's bytes never move.
  uint32_t off = page_size_ - (uint32_t(i) + 1) * schema_.tuple_len;
  std::memcpy(pg + off, tuple, schema_.tuple_len);
  set_line(pg, i, uint16_t(off));
  set_nlines(pg, uint16_t(i + 1));
  ++ntuples_;
  new_stamp();
  return {page_no, i};
}

Tid Relation::insert(const uint8_t* tuple) {
  if (structure_ == Structure::Heap) {
    if (npages() == 0 || !has_room(npages() - 1)) new_page(false);
    return put(npages() - 1, tuple);
  }
  uint32_t p = structure_ == Structure::Isam ? isam_page_for(key_of(tuple)) : hash_bucket(key_of(tuple));
  if (has_room(p)) return put(p, tuple);
  // Every page of the chain before its tail is full (lines are never reused),
  // so only the tail can have room.
  uint32_t tail = chain_tail_[p];
  if (tail != p && has_room(tail)) return put(tail, tuple);
  uint32_t n = new_page(true);
  set_next(pages_.data() + size_t(tail) * page_size_, n);
  chain_tail_[p] = n;
  return put(n, tuple);
}

void Relation::reserve_tuples(uint64_t n) {
  if (structure_ != Structure::Heap || n == 0) return;
  const uint64_t room = npages() ? tpp_ - page_nlines(page(npages() - 1)) : 0;
  if (n <= room) return;
  reserve_pages(size_t(npages()) + size_t((n - room + tpp_ - 1) / tpp_));
}

void Relation::insert_all(size_t n, const std::function<const uint8_t*(size_t)>& tuple, std::vector<Tid>* inserted) {
  // What an insert changes: a line added at the end of an old page (kept
  // here), or of a page added at the end of the array (dropped whole), and
  // for isam/hash the next link of a chain's old tail to an added page.
  const uint32_t pages_before = npages(), primary_before = nprimary_;
  const uint64_t tuples_before = ntuples_;
  const size_t inserted_before = inserted ? inserted->size() : 0;
  std::vector<Tid> on_old_pages;
  try {
    if (inserted) inserted->reserve(inserted_before + n);  // no push below can fail
    reserve_tuples(n);
    for (size_t i = 0; i < n; ++i) {
      const Tid t = insert(tuple(i));
      if (inserted) inserted->push_back(t);
      if (t.page < pages_before) on_old_pages.push_back(t);
    }
  } catch (...) {
    if (inserted) inserted->resize(inserted_before);
    // Each such line's slot and tuple bytes zeroed again (as a page's unused
    // room always is) and its page's count put back, latest first.
    for (auto it = on_old_pages.rbegin(); it != on_old_pages.rend(); ++it) {
      uint8_t* pg = pages_.data() + size_t(it->page) * page_size_;
      std::memset(pg + page_line(pg, it->line), 0, schema_.tuple_len);
      set_line(pg, it->line, 0);
      set_nlines(pg, it->line);
    }
    // A chain whose tail is an added page: its old tail is the last of its
    // pages before the first added one (walked only here, on failure).
    for (uint32_t& tail : chain_tail_) {
      if (tail < pages_before) continue;
      uint32_t p = uint32_t(&tail - chain_tail_.data());
      for (uint32_t next = page_next(page(p)); next < pages_before; next = page_next(page(p))) p = next;
      set_next(pages_.data() + size_t(p) * page_size_, kNoPage);
      tail = p;
    }
    pages_.resize(size_t(pages_before) * page_size_);
    nprimary_ = primary_before;
    ntuples_ = tuples_before;
    throw;
  }
}

bool Relation::erase(Tid t) {
  uint8_t* pg = pages_.data() + size_t(t.page) * page_size_;
  if (page_line(pg, t.line) == 0) return false;  // already deleted: count it once
  set_line(pg, t.line, 0);
  erased_ = true;
  --ntuples_;
  new_stamp();
  return true;
}

void Relation::undo_insert(Tid t) {
  uint8_t* pg = pages_.data() + size_t(t.page) * page_size_;
  // Zeroed as a page's unused room always is, the line count put back.
  std::memset(pg + page_line(pg, t.line), 0, schema_.tuple_len);
  set_line(pg, t.line, 0);
  set_nlines(pg, t.line);
  --ntuples_;
  new_stamp();
  // Only an insert adds a page, and it put its tuple there at once: a page
  // left without lines, last in the array, is the one this insert added,
  // but for isam's and hash's primary pages, which modify made.
  if (t.line != 0 || t.page + 1 != npages()) return;
  const bool overflow = load<uint16_t>(pg + kPageOffFlags) & 1;
  if (structure_ != Structure::Heap && !overflow) return;
  if (overflow) {
    // The tail of its chain (pages added after it are gone already): its
    // chain's page before it ends the chain again.
    const auto tail = std::find(chain_tail_.begin(), chain_tail_.end(), t.page);
    uint32_t p = uint32_t(tail - chain_tail_.begin());
    while (page_next(page(p)) != t.page) p = page_next(page(p));
    set_next(pages_.data() + size_t(p) * page_size_, kNoPage);
    *tail = p;
  } else {
    --nprimary_;
  }
  pages_.resize(pages_.size() - page_size_);
}

void Relation::undo_erase(Tid t) {
  uint8_t* pg = pages_.data() + size_t(t.page) * page_size_;
  // Tuple i of a page always sits at the same place (put()).
  set_line(pg, t.line, uint16_t(page_size_ - (uint32_t(t.line) + 1) * schema_.tuple_len));
  ++ntuples_;
  new_stamp();
}

void Relation::overwrite(Tid t, const uint8_t* tuple) {
  uint8_t* pg = pages_.data() + size_t(t.page) * page_size_;
  std::memcpy(pg + page_line(pg, t.line), tuple, schema_.tuple_len);
  new_stamp();
}

void Relation::restructured() {
  const bool noted = notes_.structure_version == version_;
  version_ = fresh_version();
  if (noted) notes_.structure_version = version_;
}

// A total order (NaN last) keeps stable_sort well defined even if a NaN ever
// got stored; -0.0 == 0.0 as the language compares them.
static int float_key_cmp(double a, double b) {
  const bool an = std::isnan(a), bn = std::isnan(b);
  if (an || bn) return an == bn ? 0 : (an ? 1 : -1);
  return a < b ? -1 : (a > b ? 1 : 0);
}

// One key domain of two tuples' bytes compared in place, in key_cmp's order.
static int domain_cmp(const Attribute& ka, const uint8_t* x, const uint8_t* y) {
  auto three = [](auto a, auto b) { return a < b ? -1 : (a > b ? 1 : 0); };
  switch (ka.type.kind) {
    case Tk::I1: return three(load<int8_t>(x), load<int8_t>(y));
    case Tk::I2: return three(load<int16_t>(x), load<int16_t>(y));
    case Tk::I4: return three(load<int32_t>(x), load<int32_t>(y));
    case Tk::B: return three(load<uint8_t>(x), load<uint8_t>(y));
    case Tk::C: return rt::char_cmp(x, ka.type.len, y, ka.type.len);
    default: {
      auto f = [&](const uint8_t* p) { return ka.type.kind == Tk::F4 ? double(load<float>(p)) : load<double>(p); };
      return float_key_cmp(f(x), f(y));
    }
  }
}

void Relation::modify(Structure s, const std::vector<int>& key_attrs, int fillfactor, uint32_t minpages,
                      uint32_t maxpages) {
  if (s != Structure::Heap && key_attrs.empty()) throw std::invalid_argument("modify: no key attribute");
  for (const int a : key_attrs)
    if (a < 0 || size_t(a) >= schema_.attrs.size())
      throw std::invalid_argument("modify: no key attribute " + std::to_string(a));
  if (fillfactor == 0) fillfactor = s == Structure::Hash ? 50 : 100;
  if (fillfactor < 1 || fillfactor > 100)
    throw std::invalid_argument("modify: fillfactor " + std::to_string(fillfactor) + " not in 1..100");

  // Live tuples in the current scan order: the rebuild is deterministic given
  // the relation's history, and stable for equal keys.
  const uint32_t len = schema_.tuple_len;
  std::vector<uint8_t> old;
  MemCharge old_charge;  // the copy is a temporary of the statement: it counts too
  old_charge.set(uint64_t(ntuples_) * len, "modify of relation " + name_);
  old.reserve(size_t(ntuples_) * len);
  for_each([&](Tid, const uint8_t* t) { old.insert(old.end(), t, t + len); });
  const size_t n = old.size() / len;
  const uint32_t fill_limit =
      std::max<uint32_t>(1, uint32_t(uint64_t(tpp_) * uint32_t(fillfactor) / 100));
  size_t npri = std::max<size_t>(1, (n + fill_limit - 1) / fill_limit);
  if (s == Structure::Hash && minpages) npri = std::max<size_t>(npri, minpages);
  if (s == Structure::Hash && maxpages) npri = std::min<size_t>(npri, maxpages);
  // Checked before anything changes, so a failed modify leaves the relation as it was.
  if (s != Structure::Heap && npri >= kNoPage)
    throw std::length_error("relation " + name_ + " needs too many pages");
  // The rebuild's pages at most (hash: every bucket's overflow chain full but
  // its last page), less what the old pages give back; the copy is charged.
  {
    const size_t heap_pages = (n + tpp_ - 1) / tpp_;
    const size_t worst = s == Structure::Heap ? heap_pages : s == Structure::Isam ? npri : 2 * npri + heap_pages;
    const uint64_t want = uint64_t(worst) * page_size_, held = pages_charge_.bytes();
    memory_budget().check(want > held ? want - held : 0, "modify of relation " + name_);
  }

  // ISAM's order is found before anything changes: the sort is the step long
  // enough to be cancelled (a Ctrl-C polls in its comparisons), and a
  // cancelled modify leaves the relation as it was.
  std::vector<uint32_t> order;
  MemCharge order_charge;
  if (s == Structure::Isam) {
    order_charge.set(uint64_t(n) * sizeof(uint32_t), "modify of relation " + name_);
    // Sort tuple indexes comparing key bytes in place, domain by domain: a
    // KeyVal per tuple would cost ~48 bytes each at 10^7 tuples. Same order
    // as key_cmp.
    std::vector<const Attribute*> kas;
    for (const int a : key_attrs) kas.push_back(&schema_.attrs[size_t(a)]);
    auto at = [&](uint32_t i) { return old.data() + size_t(i) * len; };
    CancelPoll poll;
    auto less = [&](uint32_t a, uint32_t b) -> bool {
      poll();
      const uint8_t *x = at(a), *y = at(b);
      for (const Attribute* ka : kas)
        if (const int c = domain_cmp(*ka, x + ka->offset, y + ka->offset)) return c < 0;
      return false;
    };
    order.resize(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), less);
  }

  pages_.clear();
  pages_.shrink_to_fit();
  pages_charge_.reset();
  isam_dir_.clear();
  chain_tail_.clear();
  ntuples_ = 0;
  nprimary_ = 0;
  structure_ = s;
  version_ = fresh_version();
  new_stamp();

  if (s == Structure::Heap) {
    key_attrs_.clear();
    fillfactor_ = 100;
    fill_limit_ = 0;
    reserve_pages((n + tpp_ - 1) / tpp_);
    for (size_t i = 0; i < n; ++i) insert(old.data() + i * len);
    return;
  }

  key_attrs_ = key_attrs;
  fillfactor_ = fillfactor;
  fill_limit_ = fill_limit;
  reserve_pages(npri);
  for (size_t i = 0; i < npri; ++i) new_page(false);
  chain_tail_.resize(npri);
  std::iota(chain_tail_.begin(), chain_tail_.end(), 0u);

  if (s == Structure::Hash) {
    // Buckets may exceed fill_limit_ when keys collide; insert() chains them.
    // Counting bucket sizes first lets the page array be reserved exactly:
    // growing it by doubling costs more than the build itself at 10^6 tuples.
    std::vector<uint32_t> fill(npri, 0);
    for (size_t i = 0; i < n; ++i) ++fill[hash_bucket(key_of(old.data() + i * len))];
    size_t total = npri;
    for (uint32_t c : fill)
      if (c > tpp_) total += (c - tpp_ + tpp_ - 1) / tpp_;
    reserve_pages(total);
    for (size_t i = 0; i < n; ++i) insert(old.data() + i * len);
    return;
  }

  isam_dir_.resize(npri);  // an empty relation keeps one empty page with a default key
  for (size_t i = 0; i < n; ++i) {
    uint32_t pg = uint32_t(i / fill_limit_);
    const uint8_t* t = old.data() + size_t(order[i]) * len;
    if (i % fill_limit_ == 0) isam_dir_[pg] = key_of(t);
    put(pg, t);
  }
}

uint32_t Relation::isam_page_for(const KeyVal& k) const {
  // Last primary page whose first key <= k; page 0 takes keys below them all.
  auto it = std::upper_bound(isam_dir_.begin() + 1, isam_dir_.end(), k,
                             [&](const KeyVal& a, const KeyVal& b) { return key_cmp(a, b) < 0; });
  return uint32_t(it - isam_dir_.begin()) - 1;
}

// The bits one key domain's value hashes as.
static uint64_t key_bits(const Type& t, const KeyVal& k) {
  uint64_t bits;
  if (t.is_int()) {
    bits = uint64_t(k.i);
  } else if (t.is_float()) {
    double f = k.f == 0.0 ? 0.0 : k.f;  // -0.0 and 0.0 are equal keys, so one bucket
    std::memcpy(&bits, &f, sizeof bits);
  } else {
    const auto* p = reinterpret_cast<const uint8_t*>(k.s.data());
    bits = rt::fnv1a64_squeezed(p, k.s.size(), QK_FNV_OFFSET);
  }
  return bits;
}

// A key of one domain hashes as it always did; each later domain is mixed
// into the hash of those before it, so every domain moves the bucket.
uint32_t Relation::hash_bucket(const KeyVal& k) const {
  uint64_t h = rt::mix64(key_bits(schema_.attrs[size_t(key_attrs_[0])].type, k));
  for (size_t d = 1; d < key_attrs_.size() && d <= k.rest.size(); ++d)
    h = rt::mix64(h ^ key_bits(schema_.attrs[size_t(key_attrs_[d])].type, k.rest[d - 1]));
  return uint32_t(h % nprimary_);
}

int Relation::key_cmp(const KeyVal& a, const KeyVal& b) const {
  auto one = [](const Type& t, const KeyVal& x, const KeyVal& y) {
    if (t.is_int() || t.kind == Tk::B) return x.i < y.i ? -1 : (x.i > y.i ? 1 : 0);
    if (t.is_float()) return float_key_cmp(x.f, y.f);
    return rt::char_cmp(reinterpret_cast<const uint8_t*>(x.s.data()), uint32_t(x.s.size()),
                        reinterpret_cast<const uint8_t*>(y.s.data()), uint32_t(y.s.size()));
  };
  if (const int c = one(schema_.attrs[size_t(key_attrs_[0])].type, a, b)) return c;
  const size_t both = std::min(a.rest.size(), b.rest.size());
  for (size_t d = 0; d < both && d + 1 < key_attrs_.size(); ++d)
    if (const int c = one(schema_.attrs[size_t(key_attrs_[d + 1])].type, a.rest[d], b.rest[d])) return c;
  return 0;
}

uint64_t Relation::pages_within(const KeyBounds& b) const {
  if (structure_ == Structure::Heap || b.kind == KeyBounds::All) return npages();
  if (structure_ == Structure::Hash) return b.kind == KeyBounds::Eq ? 1 : npages();
  const auto [first, end] = isam_span(b);
  return end > first ? end - first : 1;
}

// Sorted equal keys can span primary pages, and a later insert of k lands on
// the last page whose first key <= k, so a lookup starts at the last page
// whose first key is strictly below the low bound and runs while the next
// page's first key is still within the high bound.
std::pair<uint32_t, uint32_t> Relation::isam_span(const KeyBounds& b) const {
  if (isam_dir_.empty()) return {0, nprimary_};
  const bool has_lo = b.kind != KeyBounds::All && (b.kind == KeyBounds::Eq || b.has_lo);
  const bool has_hi = b.kind != KeyBounds::All && (b.kind == KeyBounds::Eq || b.has_hi);
  const KeyVal& hi = b.kind == KeyBounds::Eq ? b.lo : b.hi;
  const bool hi_incl = b.kind == KeyBounds::Eq || b.hi_incl;
  uint32_t first = 0;
  if (has_lo) {
    auto it = std::lower_bound(isam_dir_.begin() + 1, isam_dir_.end(), b.lo,
                               [&](const KeyVal& a, const KeyVal& k) { return key_cmp(a, k) < 0; });
    first = uint32_t(it - isam_dir_.begin()) - 1;
  }
  if (!has_hi) return {first, nprimary_};
  // The directory is sorted: the pages after `first` still within the high bound are a prefix.
  auto beyond = std::partition_point(isam_dir_.begin() + first + 1, isam_dir_.begin() + std::min<size_t>(nprimary_, isam_dir_.size()),
                                     [&](const KeyVal& a) {
                                       const int c = key_cmp(a, hi);
                                       return c < 0 || (c == 0 && hi_incl);
                                     });
  return {first, uint32_t(beyond - isam_dir_.begin())};
}

void Relation::for_each(const std::function<void(Tid, const uint8_t*)>& f) const {
  scan_pages(KeyBounds{}, [&](uint32_t p) {
    const uint8_t* pg = page(p);
    uint16_t nl = page_nlines(pg);
    for (uint16_t i = 0; i < nl; ++i) {
      uint16_t off = page_line(pg, i);
      if (off != 0) f(Tid{p, i}, pg + off);
    }
    return true;
  });
}

KeyVal Relation::key_of(const uint8_t* tuple) const {
  if (key_attrs_.empty()) return {};  // a heap has no key
  auto one = [&](const Attribute& a) {
    const uint8_t* p = tuple + a.offset;
    KeyVal k;
    switch (a.type.kind) {
      case Tk::I1: k.i = load<int8_t>(p); break;
      case Tk::I2: k.i = load<int16_t>(p); break;
      case Tk::I4: k.i = load<int32_t>(p); break;
      case Tk::F4: k.f = load<float>(p); break;
      case Tk::F8: k.f = load<double>(p); break;
      case Tk::C: k.s.assign(reinterpret_cast<const char*>(p), rt::strip(p, a.type.len)); break;
      case Tk::B: k.i = load<uint8_t>(p); break;
    }
    return k;
  };
  KeyVal k = one(schema_.attrs[size_t(key_attrs_[0])]);
  for (size_t d = 1; d < key_attrs_.size(); ++d) k.rest.push_back(one(schema_.attrs[size_t(key_attrs_[d])]));
  return k;
}

}  // namespace quelkit::harness
