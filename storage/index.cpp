// Building and refreshing secondary indexes (index.h).
#include "storage/index.h"

#include <stdexcept>

#include "runtime/runtime_inline.h"

namespace quelkit::harness {

Schema index_schema(const Relation& base, const std::vector<int>& domains) {
  std::vector<std::pair<std::string, Type>> cols;
  for (const int d : domains) cols.emplace_back(base.schema().attrs[size_t(d)].name, base.schema().attrs[size_t(d)].type);
  cols.emplace_back("tidp", Type::i4());
  return Schema::packed(cols);
}

int32_t tidp_of(const Relation& base, Tid t) {
  return int32_t(uint64_t(t.page) * base.tuples_per_page() + t.line);
}

Tid tid_of(const Relation& base, int32_t tidp) {
  const uint32_t tpp = base.tuples_per_page();
  return Tid{uint32_t(uint32_t(tidp) / tpp), uint16_t(uint32_t(tidp) % tpp)};
}

namespace {

// The entries of base's live tuples into idx (an empty heap), then idx made
// an ISAM on its domains.
void fill(const Relation& base, Relation& idx, const std::vector<int>& domains) {
  if (uint64_t(base.npages()) * base.tuples_per_page() > uint64_t(INT32_MAX))
    throw std::length_error("relation " + base.name() + " has too many pages for an index's tidp (an i4)");
  const Schema& is = idx.schema();
  std::vector<uint8_t> entry(is.tuple_len);
  std::vector<Tid> tids;
  tids.reserve(size_t(base.ntuples()));
  base.for_each([&](Tid t, const uint8_t*) { tids.push_back(t); });
  idx.insert_all(tids.size(), [&](size_t i) {
    const uint8_t* t = base.tuple(tids[i]);
    for (size_t d = 0; d < domains.size(); ++d) {
      const Attribute& a = base.schema().attrs[size_t(domains[d])];
      std::memcpy(entry.data() + is.attrs[d].offset, t + a.offset, a.type.len);
    }
    store<int32_t>(entry.data() + is.attrs[domains.size()].offset, tidp_of(base, tids[i]));
    return entry.data();
  });
  std::vector<int> keys(domains.size());
  for (size_t d = 0; d < keys.size(); ++d) keys[d] = int(d);
  idx.modify(Structure::Isam, keys, 100);
}

}  // namespace

std::unique_ptr<Relation> build_index(const Relation& base, const std::string& name, const std::vector<int>& domains) {
  auto idx = std::make_unique<Relation>(name, index_schema(base, domains), base.page_size());
  fill(base, *idx, domains);
  Relation::Notes& n = idx->notes();
  n.index_of = base.name();
  n.index_domains = domains;
  n.built_at = base.change_stamp();
  return idx;
}

void refresh_index(const Relation& base, Relation& idx) {
  if (idx.notes().built_at == base.change_stamp()) return;
  Relation fresh(idx.name(), idx.schema(), idx.page_size());
  fill(base, fresh, idx.notes().index_domains);
  Relation::Notes n = idx.notes();
  n.built_at = base.change_stamp();
  fresh.notes() = std::move(n);
  idx = std::move(fresh);
}

bool key_within(const Relation& idx, const KeyVal& k, const KeyBounds& b) {
  switch (b.kind) {
    case KeyBounds::All: return true;
    case KeyBounds::Eq: return idx.key_cmp(k, b.lo) == 0;
    case KeyBounds::Range: {
      if (b.has_lo) {
        const int c = idx.key_cmp(k, b.lo);
        if (c < 0 || (c == 0 && !b.lo_incl)) return false;
      }
      if (b.has_hi) {
        const int c = idx.key_cmp(k, b.hi);
        if (c > 0 || (c == 0 && !b.hi_incl)) return false;
      }
      return true;
    }
  }
  return true;
}

}  // namespace quelkit::harness
