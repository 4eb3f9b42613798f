// The plan-cache key: everything that decides what prepared code does, and
// nothing that changes between tuple substitutions or between statements
// that differ only in literals (parameter values); and the lifting of a
// plan's literals into parameter slots that makes them values, not shape.
#include "engine/plan.h"

#include <charconv>

#include "engine/rows.h"
#include "runtime/accumulate.h"

namespace quelkit::harness {

namespace {

// A comparison of two character values (a pattern match is not one: its
// pattern keeps its own width, the value side is never a literal).
bool char_compare(const ir::Node& n) {
  const ir::OpInfo& o = ir::op_info(n.op);
  return o.cls() == ir::Class::Compare && o.left == Tk::C && o.generic != ir::Generic::Match &&
         o.generic != ir::Generic::NoMatch;
}

// The literals of one plan's folded trees, in preorder (qual first), each
// made a parameter slot after the substitution slots (decompose.cpp appends
// those level by level, so a plan's own slots go last and the levels' stay put).
class Lifter {
 public:
  explicit Lifter(Plan& p) : p_(p) { p_.literal_at = p_.params.tuple_len; }

  // `width`: the width a character literal is widened to (0: its own), the
  // other operand's of a character comparison: blanks are ignored in
  // comparing, so padding changes no answer, and a literal no wider
  // than the attribute it is compared with is one shape whatever its length.
  void lift(ir::NodePtr& n, uint8_t width) {
    if (n->op == ir::Op::CONST) {
      Type t = n->type;
      if (t.kind == Tk::B) return;  // a folded condition: decides the shape (always_qualifies, and/or)
      // Past kMaxLiteralSlots the rest stay constants, in the key: threaded
      // code gives each parameter read a register but shares one per constant
      // value, and a 100,000-term `or` of a few thousand values needed more
      // than its 65,535 (Nary.HundredThousandTerms...). Such a statement is no
      // short one: its prepare is its cost whatever the cache does.
      if (lifted_ == kMaxLiteralSlots) return;
      if (t.kind == Tk::C && width > t.len) t.len = width;
      if (t.kind == Tk::C && t.len == 0) return;  // "" has one value: nothing to share
      Attribute slot{"$" + std::to_string(p_.params.attrs.size()), t, p_.params.tuple_len};
      p_.literal_block.resize(p_.literal_block.size() + t.len);
      Attribute at = slot;
      at.offset -= p_.literal_at;
      put_value(at, n->val, p_.literal_block.data());  // characters blank padded to the slot
      ir::NodePtr param = ir::make_node(ir::Op::PARAM, t, n->pos);
      param->slot = int32_t(p_.params.attrs.size());
      param->offset = slot.offset;
      p_.params.tuple_len += t.len;
      p_.params.attrs.push_back(std::move(slot));
      n = std::move(param);
      ++lifted_;
      return;
    }
    const bool cmp = char_compare(*n);
    for (size_t i = 0; i < n->kid.size(); ++i) {
      if (!n->kid[i]) continue;
      uint8_t w = 0;
      if (cmp && n->kid.size() == 2 && n->kid[1 - i]) w = n->kid[1 - i]->type.len;
      lift(n->kid[i], w);
    }
  }

  static constexpr int kMaxLiteralSlots = 1024;

 private:
  Plan& p_;
  int lifted_ = 0;
};

}  // namespace

void lift_literals(Plan& plan) {
  Lifter l(plan);
  if (plan.qual_folded) l.lift(plan.qual_folded, 0);
  for (auto& t : plan.targets_folded) l.lift(t, 0);
}

std::string literal_text(const Plan& plan) {
  std::string text;
  for (const Attribute& a : plan.params.attrs) {
    if (a.offset < plan.literal_at) continue;
    Attribute at = a;
    at.offset -= plan.literal_at;
    const ir::Value v = get_value(at, plan.literal_block.data());
    const std::string shown = ir::format_value(a.type, v);
    text += (text.empty() ? "" : ", ") + a.name + " = " +
            (a.type.kind == Tk::C ? "\"" + shown + "\" (" + type_name(a.type) + ")" : shown + " (" + type_name(a.type) + ")");
  }
  return text;
}

// A number appended in place: the key is made for every plan of every
// statement, and a temporary string per attribute was most of its cost.
static void append_number(std::string& k, uint64_t v) {
  char buf[24];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  k.append(buf, size_t(end - buf));
}

static void layout_text(std::string& k, const char* tag, const Schema& s) {
  k += tag;
  for (const auto& a : s.attrs) {
    if (a.type.kind == Tk::C) {
      k += 'c';
      append_number(k, a.type.len);
    } else {
      k += type_info(a.type.kind).format;
    }
    k += '@';
    append_number(k, a.offset);
    k += ',';
  }
  k += '/';
  append_number(k, s.tuple_len);
  k += ';';
}

void compute_key(Plan& plan) {
  std::string k;
  k.reserve(256);
  layout_text(k, "in:", plan.in);
  layout_text(k, "out:", plan.out);
  layout_text(k, "par:", plan.params);
  k += "scratch:";
  append_number(k, plan.scratch_size);
  k += ";q:";
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
  c.literal_at = plan.literal_at;
  c.literal_block = plan.literal_block;
  c.scratch_size = plan.scratch_size;
  c.accumulates = plan.accumulates;
  c.accumulated = plan.accumulated;
  c.by_count = plan.by_count;
  c.by_len = plan.by_len;
  c.keyed_lookup = plan.keyed_lookup;
  c.key = plan.key;
  return c;
}

void note_accumulation(Plan& plan, const qk_accum& acc) {
  plan.accumulates = true;
  plan.by_count = acc.nby;
  plan.by_len = acc.by_len;
  plan.accumulated.clear();
  const qk_agg* protos = qk_accum_protos(&acc);
  plan.key += "|acc" + std::to_string(acc.nby) + ',' + std::to_string(acc.by_len);
  for (uint32_t i = 0; i < acc.naggs; ++i) {
    const qk_agg& g = protos[i];
    plan.accumulated.push_back({g.fn, g.is_unique, g.int_sum, g.arg.kind, g.arg.offset});
    plan.key += ':' + std::to_string(g.fn) + ',' + std::to_string(g.is_unique) + ',' + std::to_string(g.int_sum) +
                ',' + std::to_string(g.arg.kind) + ',' + std::to_string(g.arg.offset);
  }
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
