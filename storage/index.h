// Secondary indexes (INGRES's `index on rel is name (domains)`): an index is
// a relation of the indexed domains and `tidp`, the tuple id of the base
// tuple they came from, ISAM-keyed on the domains. It is rebuilt from its
// base whenever the base has changed since it was built (Catalog::find
// refreshes it before anyone reads it), so append, replace, delete, copy,
// modify and an abort's undo all keep it right.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "storage/relation.h"

namespace quelkit::harness {

// The index's schema: the base's `domains` (attribute numbers) with their
// names and formats, then tidp (i4).
Schema index_schema(const Relation& base, const std::vector<int>& domains);
// tidp of a base tuple: its page times the base's tuples per page, plus its
// line. Throws std::length_error where the base has more tuple slots than an
// i4 holds.
int32_t tidp_of(const Relation& base, Tid t);
Tid tid_of(const Relation& base, int32_t tidp);
// The index `name` on `domains` of base, built now (an ISAM on the domains,
// fillfactor 100; the entries of equal keys in the base's scan order).
std::unique_ptr<Relation> build_index(const Relation& base, const std::string& name, const std::vector<int>& domains);
// Rebuilds idx (an index of base) if base changed since it was built.
void refresh_index(const Relation& base, Relation& idx);
// Whether idx's key `k` is within the bounds (a bound holds a prefix of the
// key's domains; only those are compared).
bool key_within(const Relation& idx, const KeyVal& k, const KeyBounds& b);

}  // namespace quelkit::harness
