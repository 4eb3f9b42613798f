// The reference loops (reference.h). Written the way a competent programmer
// would write each query by hand against the page format: constants hoisted
// (log(9.5) once), attribute offsets fixed, no dispatch, the run-time checks
// the language requires (a float result must be finite) kept. pnum is i2 up
// to 32767 tuples and i4 above, so each loop is a template on its width.
#include "bench/measure/reference.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "storage/checksum.h"
#include "storage/page.h"
#include "storage/page_walk.h"
#include "engine/result_rows.h"
#include "runtime/runtime_inline.h"

namespace quelkit::bench {

using harness::Checksum;
using harness::KeyBounds;
using harness::load;
using harness::Relation;
using harness::store;

namespace {

struct Cols {
  uint32_t pnum, pname, color, weight, qoh;
};

Cols columns(const Relation& r) {
  const Schema& s = r.schema();
  auto at = [&](const char* n) { return s.attrs[size_t(s.find(n))].offset; };
  return {at("pnum"), at("pname"), at("color"), at("weight"), at("qoh")};
}

// Scans the pages `b` selects; `page(pg, rows)` runs the query over one page,
// writing its rows at `rows`, and returns how many (or -1 on a failed check).
// The rows are the statement's stored result, as an engine's are: packed
// rows in chunked result memory (engine/result_rows.h, the same pooled
// chunks), each written once where it stays. (It was a page-sized buffer
// reused for every page: it stayed in L1, so the reference did less than the
// engines it is set beside, megabytes of rows it never wrote at 1M tuples.)
// The pages are visited by Relation::each_page, the page loop
// inlined, as the harness's scan loops visit them (engine/scan.cpp): through
// scan_pages, a std::function call a page, the reference paid a call the
// engines do not, enough to move its ratio to the floor (docs/DESIGN.md,
// "Measurements"). The rows are checksummed after the scan when out->verify
// asks for it (timed runs do not: the engine's checksum is off its clock
// too).
template <class PageFn>
bool scan(const Relation& r, const KeyBounds& b, const Schema& layout, PageFn page, ReferenceResult* out) {
  harness::ResultRows result(layout.tuple_len);
  const size_t tpp = r.tuples_per_page();
  uint8_t* at = nullptr;
  size_t room = 0;
  bool ok = true;
  r.each_page(b, [&](uint32_t pno) {
    if (room < tpp) at = result.room(tpp, &room);
    const int64_t n = page(r.page(pno), at);
    if (n < 0) return ok = false;
    result.commit(size_t(n));
    at += size_t(n) * layout.tuple_len;
    room -= size_t(n);
    return true;
  });
  out->rows = result.size();
  Checksum cs;
  if (out->verify) result.for_each_run([&](const uint8_t* rows, size_t n) { cs.add_rows(layout, rows, n); });
  out->checksum = out->verify ? cs.sum : 0;
  return ok;
}

Schema layout_of(std::initializer_list<std::pair<const char*, Type>> cols) {
  std::vector<std::pair<std::string, Type>> v;
  for (const auto& [n, t] : cols) v.emplace_back(n, t);
  return Schema::packed(v);
}

// The page loops below keep every offset and constant in a local (so stores
// into the row buffer, which may alias anything, force no reloads), select
// without a data-dependent branch (each tuple's row is written into the next
// slot, and the slot is kept only if the tuple qualifies), and visit a page's
// tuples by the one page walk (storage/page_walk.h), as every back end does.

// (b) retrieve (p.pnum)
template <class P>
bool query_b(const Relation& r, ReferenceResult* out) {
  Schema lay = layout_of({{"pnum", sizeof(P) == 2 ? Type::i2() : Type::i4()}});
  const uint32_t pnum_at = columns(r).pnum, len = r.tuple_len();
  return scan(r, KeyBounds{}, lay, [pnum_at, len](const uint8_t* pg, uint8_t* o) -> int64_t {
    const uint32_t pn = pnum_at;
    int64_t n = 0;
    harness::walk_page(pg, len, [&](uint32_t, const uint8_t* t) {
      store<P>(o + n * sizeof(P), load<P>(t + pn));
      ++n;
      return true;
    });
    return n;
  }, out);
}

// (c) retrieve (p.pname, p.pnum) where p.pnum > 3 or p.pname = "processor" or p.color = "black"
template <class P>
bool query_c(const Relation& r, ReferenceResult* out) {
  Schema lay = layout_of({{"pname", Type::c(20)}, {"pnum", sizeof(P) == 2 ? Type::i2() : Type::i4()}});
  const Cols c = columns(r);
  const uint32_t tlen = r.tuple_len();
  return scan(r, KeyBounds{}, lay, [c, tlen](const uint8_t* pg, uint8_t* o) -> int64_t {
    static const uint8_t processor[] = "processor", black[] = "black";
    constexpr size_t len = 20 + sizeof(P);
    const uint32_t pn = c.pnum, name = c.pname, color = c.color;
    int64_t n = 0;
    harness::walk_page(pg, tlen, [&](uint32_t, const uint8_t* t) {
      const P pnum = load<P>(t + pn);
      uint8_t* row = o + n * len;
      std::memcpy(row, t + name, 20);
      store<P>(row + 20, pnum);
      n += pnum > 3 || rt::char_cmp(t + name, 20, processor, 9) == 0 || rt::char_cmp(t + color, 8, black, 5) == 0;
      return true;
    });
    return n;
  }, out);
}

// (d) retrieve (p.pnum) where p.qoh < log(9.5) * p.weight
template <class P>
bool query_d(const Relation& r, ReferenceResult* out) {
  Schema lay = layout_of({{"pnum", sizeof(P) == 2 ? Type::i2() : Type::i4()}});
  const Cols c = columns(r);
  const double k = std::log(9.5);
  const uint32_t tlen = r.tuple_len();
  return scan(r, KeyBounds{}, lay, [c, k, tlen](const uint8_t* pg, uint8_t* o) -> int64_t {
    const uint32_t pn = c.pnum, weight = c.weight, qoh = c.qoh;
    const double kk = k;
    int64_t n = 0;
    bool ok = true;
    harness::walk_page(pg, tlen, [&](uint32_t, const uint8_t* t) {
      const double w = kk * double(load<int16_t>(t + weight));
      if (!std::isfinite(w)) return ok = false;  // FLOAT_RESULT, as every back end checks
      store<P>(o + n * sizeof(P), load<P>(t + pn));
      n += double(load<int16_t>(t + qoh)) < w;
      return true;
    });
    return ok ? n : -1;
  }, out);
}

// (e) retrieve (p.qoh) where p.pnum < 2500, through the ISAM key range
template <class P>
bool query_e(const Relation& r, ReferenceResult* out) {
  Schema lay = layout_of({{"qoh", Type::i2()}});
  const Cols c = columns(r);
  KeyBounds b;
  if (r.structure() == harness::Structure::Isam) {
    b.kind = KeyBounds::Range;
    b.has_hi = true;
    b.hi.i = 2500;
    b.hi_incl = false;
  }
  const uint32_t tlen = r.tuple_len();
  return scan(r, b, lay, [c, tlen](const uint8_t* pg, uint8_t* o) -> int64_t {
    const uint32_t pn = c.pnum, qoh = c.qoh;
    int64_t n = 0;
    harness::walk_page(pg, tlen, [&](uint32_t, const uint8_t* t) {
      store<int16_t>(o + n * 2, load<int16_t>(t + qoh));
      n += load<P>(t + pn) < 2500;
      return true;
    });
    return n;
  }, out);
}

}  // namespace

bool has_reference(char query) { return query >= 'b' && query <= 'e'; }

bool run_reference(char query, const Relation& parts, ReferenceResult* out, std::string* err) {
  const Schema& s = parts.schema();
  int p = s.find("pnum");
  if (p < 0 || s.find("pname") < 0 || s.find("color") < 0 || s.find("weight") < 0 || s.find("qoh") < 0) {
    if (err) *err = "not a PARTS relation";
    return false;
  }
  const bool wide_pnum = s.attrs[size_t(p)].type.kind == Tk::I4;
  bool ok = false;
  switch (query) {
    case 'b': ok = wide_pnum ? query_b<int32_t>(parts, out) : query_b<int16_t>(parts, out); break;
    case 'c': ok = wide_pnum ? query_c<int32_t>(parts, out) : query_c<int16_t>(parts, out); break;
    case 'd': ok = wide_pnum ? query_d<int32_t>(parts, out) : query_d<int16_t>(parts, out); break;
    case 'e': ok = wide_pnum ? query_e<int32_t>(parts, out) : query_e<int16_t>(parts, out); break;
    default:
      if (err) *err = std::string("no reference loop for query (") + query + ")";
      return false;
  }
  if (!ok && err) *err = "floating-point result is infinite or NaN";
  return ok;
}

}  // namespace quelkit::bench
