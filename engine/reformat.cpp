// INGRES's reformat step of decomposition (Exec::reformat, exec.h): before a
// variable s is substituted, each variable v that the substituted query will
// restrict by `v.a = e(s)` on a domain v is not keyed on is projected to the
// domains the query still needs of it and hashed on a, where the estimate
// says that costs less than scanning v once per tuple of s. The
// temporary is the statement's (its pages in the memory budget, gone with
// the level's variable state); --no-reformat leaves substitution alone.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/exec.h"
#include "storage/budget.h"

namespace quelkit::harness {

namespace {
// The estimate counts tuples, as the choice of the variable to substitute
// does (decompose.cpp): the kit's relations are in memory, and its work is
// per tuple evaluated or copied, where INGRES's was per page read from disk.
// A tuple written (inserted into the projection, or moved by the hash's
// rebuild) costs about two evaluated: measured on onek1 x onek2 restricted to
// k tuples of onek2, llvm:fused and threaded:goto break even at k = 4-8.
constexpr double kWrite = 2;
// Fixed costs of a projection's and a hash's temporary (INGRES's OVHDP and
// OVHDM, in pages there, in tuples here: a plan made and run once).
constexpr double kProjectOverhead = 2, kModifyOverhead = 10;
// The temporary's fillfactor: buckets of about kBucket tuples, as few as a
// lookup evaluates, but at least a quarter full, so that a narrow projection
// (168 four-byte tuples to a page) takes at most four times its heap's pages.
// Wide tuples fill their pages (INGRES's reformat modified to fillfactor 100):
// Figure 2.5.1 at 1,000 tuples, llvm:fused 0.8-0.9 ms, 1.8 ms at the kit's
// hash default of 50 (load 7, noisy).
constexpr double kBucket = 8;
int fillfactor(uint32_t tuples_per_page) {
  return std::clamp(int(std::ceil(100 * kBucket / std::max(1u, tuples_per_page))), 25, 100);
}

// Whether `need` is every attribute of v's relation, in its order (v not
// detached: its attributes are the bound schema's).
bool every_attribute(const VarState& vs, const std::set<int>& need) {
  if (need.size() != vs.rel->schema().attrs.size()) return false;
  for (size_t a = 0; a < vs.attr_map.size(); ++a)
    if (vs.attr_map[a] != int(a) || !need.count(int(a))) return false;
  return true;
}

std::string whole(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f", x);
  return b;
}
}  // namespace

void Exec::reformat(Level& lv, int s, const std::vector<int>& live, const std::vector<const ir::Node*>& targets,
                    std::vector<uint8_t>& params) {
  if (!runner_.options().reformat) return;
  // A lookup evaluates the qualification on the tuples of one key, where a
  // scan evaluates it on all, and the temporary numbers its tuples anew: so
  // only a query none of whose conjuncts and targets can raise is reformatted,
  // and its errors stay those of substitution alone.
  bool may_raise = false;
  for (const ir::Node* c : lv.conjuncts) may_raise = may_raise || ir::may_raise(*c);
  for (const auto& t : q_.targets) may_raise = may_raise || ir::may_raise(*t.expr);
  const double outer = double(lv.vars[size_t(s)]->rel->ntuples());
  for (int v : live) {
    if (v == s || v == q_.update_var || keyed_join(lv, v, s)) continue;  // keyed usefully already
    VarState& vs = *lv.vars[size_t(v)];
    // The linking domain: the first of v's attributes a lookup would serve.
    // INGRES hashed on every linking domain; this step hashes on one, the
    // others stay in the qualification (keys of several domains exist now,
    // Relation::modify: hashing on all of them is not done here yet).
    int link = -1;
    for (size_t a = 0; a < vs.attr_map.size() && link < 0; ++a)
      if (vs.attr_map[a] >= 0 && keyed_on(lv, v, s, vs.attr_map[a], Structure::Hash)) link = int(a);
    if (link < 0) continue;
    const std::string& var = q_.vars[size_t(v)].name;
    const std::string& domain = q_.vars[size_t(v)].schema.attrs[size_t(link)].name;
    if (may_raise) {
      note_decision(var + ":no reformat on " + domain + " (the query may raise)", false);
      continue;
    }
    // INGRES's formula, in the kit's tuples: substitution as it is reads
    // every tuple of v once per tuple of s; reformatting reads them once,
    // writes the projection (not for a temporary of this level, projected
    // already: hashed in place), rebuilds it hashed, then each substitution
    // reads a bucket's tuples.
    const Relation& rel = *vs.rel;
    const bool own_temp = vs.temp != nullptr;
    const std::set<int> need = needed(lv, v, lv.conjuncts, targets);
    std::vector<std::pair<std::string, Type>> cols;
    for (int a : need) cols.emplace_back(q_.vars[size_t(v)].schema.attrs[size_t(a)].name,
                                         q_.vars[size_t(v)].schema.attrs[size_t(a)].type);
    const Relation shape("", own_temp ? rel.schema() : Schema::packed(cols), rel.page_size());
    const double n = double(rel.ntuples());
    const int ff = fillfactor(shape.tuples_per_page());
    const double bucket = std::max(1.0, std::floor(std::max(1u, shape.tuples_per_page()) * ff / 100.0));
    const double as_is = outer * n;
    const double cost = (own_temp ? kWrite * n : n + 2 * kWrite * n + kProjectOverhead) + outer * bucket +
                        kModifyOverhead;
    if (as_is <= cost) {
      note_decision(var + ":no reformat on " + domain + " (substitution " + whole(as_is) + " <= reformat " +
                        whole(cost) + " tuples)",
                    false);
      continue;
    }
    std::string path = "temp";
    if (!own_temp && every_attribute(vs, need)) {
      // The query needs all of v: the projection is its pages as they are,
      // copied whole (checked against the budget first, as inserts would be)
      // rather than a tuple at a time through a plan.
      memory_budget().check(uint64_t(rel.npages()) * rel.page_size(), "relation " + rel.name() + " (reformatted)");
      vs.temp = std::make_unique<Relation>(rel);
      vs.rel = vs.temp.get();
      path = "copy";
    } else if (!own_temp) {
      path = project(lv, v, {}, need, params, true);
    }
    vs.rel->modify(Structure::Hash, vs.attr_map[size_t(link)], ff);
    note_decision(var + ":" + path + " -> reformat to hash on " + domain + " (substitution " + whole(as_is) +
                      " > reformat " + whole(cost) + " tuples)",
                  true);
  }
}

void Exec::note_decision(const std::string& text, bool taken) {
  if (std::find(decisions_.begin(), decisions_.end(), text) != decisions_.end()) return;
  decisions_.push_back(text);
  if (taken) note_access(text);
  const RunnerOptions& o = runner_.options();
  if (o.dump_decomp && o.dump_out)
    *o.dump_out << "-- decomp " << plan_base() << " (" << runner_.label() << "): " << text << "\n";
}

}  // namespace quelkit::harness
