// The plan-cache key: everything that decides what prepared code does, and
// nothing that changes between tuple substitutions (parameter values).
#include "engine/plan.h"

namespace quelkit::harness {

static void layout_text(std::string& k, const char* tag, const Schema& s) {
  k += tag;
  for (const auto& a : s.attrs) k += type_name(a.type) + "@" + std::to_string(a.offset) + ",";
  k += "/" + std::to_string(s.tuple_len) + ";";
}

void compute_key(Plan& plan) {
  std::string k;
  layout_text(k, "in:", plan.in);
  layout_text(k, "out:", plan.out);
  layout_text(k, "par:", plan.params);
  k += "scratch:" + std::to_string(plan.scratch_size) + ";q:";
  k += plan.qual_folded ? ir::shape(*plan.qual_folded) : "true";
  for (const auto& t : plan.targets_folded) {
    k += ";t:";
    k += ir::shape(*t);
  }
  plan.key = std::move(k);
}

}  // namespace quelkit::harness

namespace quelkit::harness {

static void preorder_positions(const ir::Node& n, std::vector<uint64_t>& out) {
  out.push_back(n.pos.pack());
  for (const auto& c : n.kid)
    if (c) preorder_positions(*c, out);
}

Plan clone_plan(const Plan& plan) {
  Plan c;
  c.name = plan.name;
  c.source = plan.source;
  if (plan.qual_folded) c.qual_folded = plan.qual_folded->clone();
  for (const auto& t : plan.targets_folded) c.targets_folded.push_back(t->clone());
  c.in = plan.in;
  c.out = plan.out;
  c.params = plan.params;
  c.scratch_size = plan.scratch_size;
  c.key = plan.key;
  return c;
}

bool targets_may_raise(const Plan& plan) {
  for (const auto& t : plan.targets_folded)
    if (ir::may_raise(*t)) return true;
  return false;
}

std::vector<uint64_t> plan_positions(const Plan& plan) {
  std::vector<uint64_t> out;
  if (plan.qual_folded) preorder_positions(*plan.qual_folded, out);
  for (const auto& t : plan.targets_folded) preorder_positions(*t, out);
  return out;
}

}  // namespace quelkit::harness
