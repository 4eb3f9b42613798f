// A relation: schema plus its pages in one of three storage structures.
//   heap  pages in insertion order, new tuples go to the last page
//   isam  primary pages sorted on the key, filled to the fillfactor, a static
//         directory (first key of each primary page); later inserts go to the
//         overflow chain of the primary page the key belongs to
//   hash  ceil(n / floor(tpp * ff / 100)) bucket pages, bucket =
//         mix64(key) mod buckets, one overflow chain per bucket
// Scans visit pages in a fixed order (primary page, then its overflow chain),
// which defines the tuple ordinals that runtime errors report.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "frontend/schema.h"
#include "storage/budget.h"
#include "storage/page.h"

namespace quelkit::harness {

enum class Structure : uint8_t { Heap, Isam, Hash };
const char* structure_name(Structure s);

// A key value in the key attribute's domain: integers (any width) in i,
// floats (f4 widened) in f, characters (trailing blanks stripped) in s,
// compared and hashed by the comparison rule (runtime_inline.h). A key of
// several domains holds its later domains' values in `rest`, in key order; a
// bound may hold fewer (a prefix of the key): comparisons then look at the
// domains both have.
struct KeyVal {
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<KeyVal> rest;
};

// Which pages a one-variable plan fetches. The whole qualification is still
// evaluated on every fetched tuple; bounds only narrow the pages visited.
struct KeyBounds {
  enum Kind : uint8_t { All, Eq, Range } kind = All;
  KeyVal lo, hi;          // Eq uses lo
  bool has_lo = false, has_hi = false;
  bool lo_incl = true, hi_incl = true;
};

struct Tid {
  uint32_t page = 0;
  uint16_t line = 0;
  friend bool operator==(Tid a, Tid b) { return a.page == b.page && a.line == b.line; }
};

class Relation {
 public:
  Relation(std::string name, Schema schema, uint32_t page_size = kDefaultPageSize);

  const std::string& name() const { return name_; }
  const Schema& schema() const { return schema_; }
  uint32_t page_size() const { return page_size_; }
  uint32_t tuple_len() const { return schema_.tuple_len; }
  uint32_t tuples_per_page() const { return tpp_; }
  Structure structure() const { return structure_; }
  int key_attr() const { return key_attrs_.empty() ? -1 : key_attrs_[0]; }  // the first key domain; -1 for heap
  const std::vector<int>& key_attrs() const { return key_attrs_; }  // every key domain, in key order
  int fillfactor() const { return fillfactor_; }
  uint64_t ntuples() const { return ntuples_; }
  // False while no tuple was ever deleted: every line of every page is live,
  // so a scan counts a page's tuples as its line count.
  bool has_deleted() const { return erased_; }
  uint32_t npages() const { return uint32_t(pages_.size() / page_size_); }
  uint32_t nprimary() const { return nprimary_; }  // heap: all pages
  uint32_t noverflow() const { return npages() - nprimary_; }
  // Bumped whenever the structure or the pages' identity changes (modify,
  // destroy+create): part of the plan-cache key.
  uint64_t version() const { return version_; }

  const uint8_t* page(uint32_t n) const { return pages_.data() + size_t(n) * page_size_; }
  const uint8_t* tuple(Tid t) const { return page(t.page) + page_line(page(t.page), t.line); }
  // Where line t.line of its page is (put() places line i at a fixed
  // offset), without reading the line table: for a live tuple, tuple(t).
  // An index fetch prefetches by it, reading one cache line per tuple.
  const uint8_t* slot(Tid t) const { return page(t.page) + page_size_ - (uint32_t(t.line) + 1) * schema_.tuple_len; }

  // Inserts a tuple (tuple_len bytes) where the structure puts it.
  Tid insert(const uint8_t* tuple);
  // Inserts tuple(0) .. tuple(n-1) as one change (append, copy from, a
  // replace's moved tuples): if an insert fails (the memory budget refuses a
  // page) the tuples inserted are taken out again and the pages added
  // dropped, so the relation is as it was, and the error is rethrown. A heap
  // reserves its pages first, exactly when it had none. `inserted`, if
  // given, gets each new tuple's Tid in order (a transaction's undo log).
  void insert_all(size_t n, const std::function<const uint8_t*(size_t)>& tuple, std::vector<Tid>* inserted = nullptr);
  // Room for n more tuples on a heap (pages reserved, and charged, at once;
  // a generator that knows its count leaves no growth slack in the budget).
  // Nothing for isam/hash, whose overflow pages depend on the keys.
  void reserve_tuples(uint64_t n);
  bool erase(Tid t);                          // marks the line deleted; false if it was already
  void overwrite(Tid t, const uint8_t* tuple);  // same key position; caller re-inserts if the key moved
  // A transaction's undo (storage/undo.h), applied latest first. undo_insert
  // takes out the tuple an insert put at t, the last line of its page then,
  // and drops the page when the insert had added it (a heap's page, an
  // overflow page), so the pages are byte for byte as before the insert.
  // undo_erase makes an erased line live again (its bytes stay in place).
  void undo_insert(Tid t);
  void undo_erase(Tid t);
  // Rebuilds into another structure. fillfactor 0 = the structure's default
  // (isam 100, hash 50). key_attr ignored for heap. A hash has at least
  // minpages and at most maxpages primary pages (0: no bound), as INGRES's
  // modify allowed. A key of several domains (`key_attrs`) orders ISAM
  // domain by domain and hashes all of its domains.
  void modify(Structure s, const std::vector<int>& key_attrs, int fillfactor, uint32_t minpages = 0,
              uint32_t maxpages = 0);
  void modify(Structure s, int key_attr, int fillfactor, uint32_t minpages = 0, uint32_t maxpages = 0) {
    modify(s, key_attr < 0 ? std::vector<int>{} : std::vector<int>{key_attr}, fillfactor, minpages, maxpages);
  }
  // A new version() without a rebuild: what plans over the relation chose
  // is stale (an index made or destroyed on it), help's notes kept.
  void restructured();
  // Which state of its tuples the relation is in: a number no other state
  // of any relation has, renewed at every change (insert, erase, overwrite,
  // undo, modify) and at a restore of an older copy (new_stamp). An index
  // built at one stamp is stale at another (storage/index.h); a copy has
  // its original's, as it has its tuples.
  uint64_t change_stamp() const { return stamp_; }
  void new_stamp();

  // What help shows beyond the pages (engine/help.cpp): the structure as
  // modify was asked for it (`cisam on name`, `heapsort on a:descending`),
  // valid while version() is structure_version, and save's date. Copied
  // with the relation, so an abort's undo puts back the notes it had.
  struct Notes {
    std::string structure;
    uint64_t structure_version = 0;
    std::string save_until;  // YYYY-MM-DD, empty if never saved
    // Secondary indexes (storage/index.h): on a base relation the names of
    // its indexes; on an index its base, its domains (the base's attribute
    // numbers) and the base's changes() it was last built at.
    std::vector<std::string> indexes;
    std::string index_of;
    std::vector<int> index_domains;
    uint64_t built_at = 0;  // the base's change_stamp() when built
  };
  Notes& notes() { return notes_; }
  const Notes& notes() const { return notes_; }

  // Pages in scan order for these bounds; stops early if f returns false.
  // A heap's pages in order; a hash bucket's chain for a key, or every
  // bucket's; ISAM's primary pages of the key range, each followed by its
  // overflow chain.
  void scan_pages(const KeyBounds& b, const std::function<bool(uint32_t page_no)>& f) const { each_page(b, f); }
  // The same, with f inlined into the page loops (no call through a
  // std::function per page: the scan's loops, engine/scan.cpp).
  template <class F>
  void each_page(const KeyBounds& b, F&& f) const {
    if (structure_ == Structure::Heap) {
      const uint32_t n = npages();
      for (uint32_t p = 0; p < n; ++p)
        if (!f(p)) return;
      return;
    }
    // A primary page and its overflow chain; false where f stopped the scan.
    auto chain = [&](uint32_t p) {
      for (uint32_t q = p; q != kNoPage; q = page_next(page(q)))
        if (!f(q)) return false;
      return true;
    };
    if (structure_ == Structure::Hash) {
      if (b.kind == KeyBounds::Eq) {
        chain(hash_bucket(b.lo));
        return;
      }
      for (uint32_t p = 0; p < nprimary_; ++p)
        if (!chain(p)) return;
      return;
    }
    const auto [first, end] = isam_span(b);
    for (uint32_t p = first; p < end; ++p)
      if (!chain(p)) return;
  }
  // Primary pages a scan with these bounds visits (overflow pages not
  // counted): every page for a heap or an unbounded scan, one bucket for a
  // hash lookup, the directory's range for ISAM. An estimate for a back end
  // that plans ahead (ScanOutlook); the walk itself is scan_pages.
  uint64_t pages_within(const KeyBounds& b) const;
  // Every live tuple in full-scan order.
  void for_each(const std::function<void(Tid, const uint8_t*)>& f) const;

  // The key of a tuple, in KeyVal form, for every key domain.
  KeyVal key_of(const uint8_t* tuple) const;
  // Orders keys (or a key and a bound, a prefix of the key) domain by
  // domain, over the domains both hold: <0, 0, >0.
  int key_cmp(const KeyVal& a, const KeyVal& b) const;

 private:
  uint32_t new_page(bool overflow);
  // Room for `npages` pages in pages_, charged to the memory budget first.
  void reserve_pages(size_t npages);
  Tid put(uint32_t page_no, const uint8_t* tuple);  // page must have room
  bool has_room(uint32_t page_no) const;
  uint32_t isam_page_for(const KeyVal& k) const;
  uint32_t hash_bucket(const KeyVal& k) const;
  // ISAM: the primary pages [first, end) a scan with these bounds visits
  // (scan_pages walks them and their overflow chains; pages_within counts them).
  std::pair<uint32_t, uint32_t> isam_span(const KeyBounds& b) const;

  std::string name_;
  Schema schema_;
  uint32_t page_size_;
  uint32_t tpp_;
  Structure structure_ = Structure::Heap;
  std::vector<int> key_attrs_;
  uint64_t stamp_ = 0;
  int fillfactor_ = 100;
  uint32_t fill_limit_ = 0;  // tuples per primary page when built (isam/hash)
  uint64_t ntuples_ = 0;
  bool erased_ = false;  // has_deleted(); never cleared (a hint that only costs a count)
  uint32_t nprimary_ = 0;
  uint64_t version_ = 0;
  std::vector<uint8_t> pages_;
  MemCharge pages_charge_;  // pages_.capacity() bytes in the memory budget
  std::vector<KeyVal> isam_dir_;  // first key of each primary page
  // Last page of each primary page's overflow chain (isam/hash; the page
  // itself when it has none), so an insert never walks a long chain.
  std::vector<uint32_t> chain_tail_;
  Notes notes_;
};

}  // namespace quelkit::harness
