// Access paths of a one-variable plan: which pages of its relation a scan
// visits (heap full scan, ISAM key = or range, hash key =), chosen once per
// plan from the folded qualification, and the key bounds each execution
// resolves from its parameter block (a substituted tuple's values).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/plan.h"
#include "storage/relation.h"

namespace quelkit::harness {

// Where a key bound's value comes from: a constant of the query, a
// parameter, or an expression of parameters and constants (`v.key = s.a / 10`
// once s is substituted; an aggregate's by value that is an expression joined
// back), evaluated once per execution.
struct BoundSrc {
  bool present = false;
  bool is_param = false;
  KeyVal val;            // constant
  std::shared_ptr<const ir::Node> expr;  // expression (leaves CONST and PARAM), of the comparison's type
  uint32_t offset = 0;   // parameter
  Type type;             // parameter type
  Tk param_to = kNoTk;   // the float type a parameter is converted to before comparing (kNoTk: none)
  Tk key_in = kNoTk;     // an integer key compared in f4 or f8 (kNoTk: in its own type)
  bool incl = true;
};

struct AccessSpec {
  KeyBounds::Kind kind = KeyBounds::All;
  BoundSrc lo, hi;
  // Eq on a key of several domains: the later domains' values, a prefix of
  // them (ISAM) or all (hash), and their types.
  std::vector<BoundSrc> rest;
  std::vector<Type> rest_keys;
  Type key;  // the key attribute's type (the first domain's)
  std::string text;  // "full scan", "isam key =", ...
  // Through a secondary index (storage/index.h): its name; the bounds are
  // on its domains, and the scan fetches the base tuples its entries name.
  std::string index;
};

// Key lookups and ranges come from conjuncts `key op value`, the value a
// constant, a parameter or an expression of them (no attribute of the
// scanned tuple), compared in the key's type or in a float type the key converts to (an i2
// key against 5.5, an f4 key against an i4 parameter): the bounds are then
// the keys whose converted value satisfies the comparison.
// key_attr < 0: no key is used (a full scan); else the relation's key, all
// of its domains.
AccessSpec choose_access(const Plan& plan, const Relation* rel, int key_attr);
// The same choice for a structure `st` keyed on `keys` (attributes of the
// scanned tuple, in key order), the text starting with `name`: a relation's
// own key, or a secondary index's domains.
AccessSpec choose_keyed(const Plan& plan, Structure st, const std::vector<Attribute>& keys, const std::string& name);
// One side of `key op value` as choose_access reads it, for a key of type
// `key` on `st` storage: the attribute under integer widening, or under the
// conversion of a mixed comparison to a float type (*cmp set to that type,
// else kNoTk): an integer key to f4 or f8, an f4 key to f8; not an i4 key in
// f4 on hash storage, where rounding makes many keys one value. Null for
// anything else. The caller says whether the attribute is the key.
const ir::Node* key_side(const ir::Node* n, Structure st, const Type& key, Tk* cmp);
// Whether a value of type `v` can bound such a key compared in `cmp`.
bool bounds_key(const Type& v, const Type& key, Tk cmp);
// The bounds of `a` for one execution, its parameters read from `params`. A
// bound whose expression raises an error makes the scan a full one (kind
// All): the qualification then raises it where tuple-at-a-time evaluation
// of the whole relation does, at the first tuple that reaches it.
KeyBounds resolve_bounds(const AccessSpec& a, const std::vector<uint8_t>& params);

}  // namespace quelkit::harness
