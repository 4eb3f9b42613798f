// Query modification (query_modification.h): views, integrity constraints
// and permits kept for the session, and the rewriting of a statement's parse
// tree by them before it is bound, so that every back end evaluates the
// modified statement as an ordinary one.
#include "engine/query_modification.h"

#include "engine/aggregate.h"

#include <algorithm>
#include <ctime>
#include <functional>
#include <ostream>
#include <set>

namespace quelkit::harness {


using frontend::ast::Expr;
using frontend::ast::ExprPtr;
using frontend::ast::Stmt;

WallClock wall_clock_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  return {tm.tm_wday, tm.tm_hour * 60 + tm.tm_min};
}

namespace {

constexpr int kMaxViewDepth = 32;

// Where a variable occurs in a statement: the qualification slots of the
// scopes it occurs in (the statement's own where, or an aggregate's
// qualification: an aggregate's variables are its own, INGRES's rule),
// where it is first written, and the domains it names.
struct VarUse {
  std::vector<ExprPtr*> slots;
  SrcPos pos;
  std::set<std::string> attrs;
};
using Uses = std::map<std::string, VarUse>;

void note(Uses& u, const std::string& var, ExprPtr* slot, SrcPos pos, const std::string& attr) {
  auto [it, fresh] = u.try_emplace(var);
  if (fresh) it->second.pos = pos;
  if (std::find(it->second.slots.begin(), it->second.slots.end(), slot) == it->second.slots.end())
    it->second.slots.push_back(slot);
  if (!attr.empty()) it->second.attrs.insert(attr);
}

void walk(ExprPtr& e, ExprPtr* slot, Uses& u) {
  if (!e) return;
  if (e->kind == Expr::Attr) return note(u, e->text, slot, e->pos, e->attr);
  ExprPtr* inner = e->kind == Expr::Aggregate ? &e->qual : slot;
  for (auto& a : e->args) walk(a, inner, u);
  for (auto& b : e->by) walk(b, inner, u);
  if (e->qual) walk(e->qual, inner, u);
}

// Every variable of a retrieve, append, replace or delete and its scopes.
Uses uses_of(Stmt& s) {
  Uses u;
  if (s.kind == Stmt::Replace || s.kind == Stmt::Delete) note(u, s.var, &s.where, s.var_pos, "");
  for (auto& t : s.targets) walk(t.expr, &s.where, u);
  walk(s.where, &s.where, u);
  return u;
}

void set_pos(Expr& e, SrcPos pos) {
  e.pos = pos;
  for (auto& a : e.args) set_pos(*a, pos);
  for (auto& b : e.by) set_pos(*b, pos);
  if (e.qual) set_pos(*e.qual, pos);
}

// Every Attr of `var` in `e` replaced by what `f` makes of it.
void replace_attrs(ExprPtr& e, const std::string& var, const std::function<ExprPtr(const Expr&)>& f) {
  if (!e) return;
  if (e->kind == Expr::Attr && e->text == var) {
    e = f(*e);
    return;
  }
  for (auto& a : e->args) replace_attrs(a, var, f);
  for (auto& b : e->by) replace_attrs(b, var, f);
  replace_attrs(e->qual, var, f);
}

void rename_vars(Expr& e, const std::map<std::string, std::string>& names) {
  if (e.kind == Expr::Attr)
    if (auto it = names.find(e.text); it != names.end()) e.text = it->second;
  for (auto& a : e.args) rename_vars(*a, names);
  for (auto& b : e.by) rename_vars(*b, names);
  if (e.qual) rename_vars(*e.qual, names);
}

// A definition's expression as the query uses it: its variables renamed,
// every node at `pos` (the query's text, where its errors are said).
ExprPtr instance(const Expr& e, const std::map<std::string, std::string>& names, SrcPos pos) {
  ExprPtr c = frontend::clone(e);
  rename_vars(*c, names);
  set_pos(*c, pos);
  return c;
}

void conjoin(ExprPtr& slot, ExprPtr q) {
  if (!slot) {
    slot = std::move(q);
    return;
  }
  auto a = std::make_unique<Expr>();
  a->kind = Expr::Binary;
  a->op = "and";
  a->pos = slot->pos;
  a->args.push_back(std::move(slot));
  a->args.push_back(std::move(q));
  slot = std::move(a);
}

ExprPtr disjoin(std::vector<ExprPtr> qs) {
  if (qs.size() == 1) return std::move(qs[0]);
  auto o = std::make_unique<Expr>();
  o->kind = Expr::Binary;
  o->op = "or";
  o->pos = qs[0]->pos;
  for (auto& q : qs) o->args.push_back(std::move(q));
  return o;
}

bool names_attr(const Expr& e, const std::string& var, const std::string& attr) {
  if (e.kind == Expr::Attr && e.text == var && e.attr == attr) return true;
  for (const auto& a : e.args)
    if (names_attr(*a, var, attr)) return true;
  for (const auto& b : e.by)
    if (names_attr(*b, var, attr)) return true;
  return e.qual && names_attr(*e.qual, var, attr);
}

}  // namespace

std::vector<std::pair<std::string, SrcPos>> variables_of(const Stmt& s) {
  auto c = clone_statement(s);
  std::vector<std::pair<std::string, SrcPos>> out;
  for (const auto& [v, use] : uses_of(*c)) out.emplace_back(v, use.pos);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.second.line < b.second.line || (a.second.line == b.second.line && a.second.col < b.second.col);
  });
  return out;
}

const Expr* first_aggregate(const Expr& e) {
  if (e.kind == Expr::Aggregate) return &e;
  for (const auto& a : e.args)
    if (const Expr* f = first_aggregate(*a)) return f;
  return nullptr;
}

ScopedVars::ScopedVars(frontend::RangeTable& ranges, std::vector<std::pair<std::string, std::string>> vars)
    : ranges_(ranges), vars_(std::move(vars)) {
  for (const auto& v : vars_) ranges_.vars.push_back(v);
}

ScopedVars::~ScopedVars() {
  for (const auto& v : vars_) std::erase_if(ranges_.vars, [&](const auto& p) { return p.first == v.first; });
}

namespace {

const char* op_word(Stmt::Kind k) { return frontend::ast::statement_word(k); }

std::string clock_text(int minute) {
  char b[16];
  std::snprintf(b, sizeof b, "%d:%02d", minute / 60, minute % 60);
  return b;
}

const char* kDayNames[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

bool within(int v, int from, int to) {
  if (from < 0) return true;
  return from <= to ? v >= from && v <= to : v >= from || v <= to;  // a span over midnight or the week's end
}

// The value an append stores in a domain it does not give: 0, or blanks.
ExprPtr default_value(const Type& t, SrcPos pos) {
  auto e = std::make_unique<Expr>();
  e->pos = pos;
  if (t.is_char()) e->kind = Expr::String;
  else e->kind = Expr::Int;
  return e;
}

}  // namespace

std::string QueryModification::relation_of(const std::string& var, const frontend::RangeTable& ranges,
                                           const CatalogView& cat) const {
  if (const std::string* r = ranges.find(var)) return *r;
  if (views_.count(var) || cat.find_schema(var)) return var;
  return "";
}

QueryModification::Modified QueryModification::modify(const Stmt& s0, const frontend::RangeTable& ranges,
                                                       const CatalogView& cat, const Asker& who,
                                                       const SourceRef& src) const {
  Modified m;
  if (idle(who.user, who.owner)) return m;
  frontend::RangeTable rt = ranges;
  auto s = clone_statement(s0);
  bool changed = false;
  auto rel_of = [&](const std::string& v) { return relation_of(v, rt, cat); };
  auto fresh_var = [&](const std::string& v, const std::string& rel) {
    rt.set(v, rel);
    m.vars.emplace_back(v, rel);
  };

  // Views: each round replaces the variables over views (a view over views
  // takes a round a level).
  for (int round = 0;; ++round) {
    std::vector<std::string> over_views;
    const bool append_view = s->kind == Stmt::Append && views_.count(lowercase(s->relation));
    Uses u = uses_of(*s);
    for (const auto& [v, use] : u)
      if (views_.count(rel_of(v))) over_views.push_back(v);
    if (over_views.empty() && !append_view) break;
    if (round == kMaxViewDepth)
      throw_error(ErrKind::Name, s->pos, src,
                  "views nested more than " + std::to_string(kMaxViewDepth) + " deep (is a view defined over itself?)");
    changed = true;
    // append to a view of one relation: its domains are the relation's.
    if (append_view) {
      const View& view = views_.at(lowercase(s->relation));
      update_through(view, "append", s->relation_pos, s->targets, src);
      s->relation = view.vars.front().second;
    }
    for (const std::string& v : over_views) {
      const View& view = views_.at(rel_of(v));
      const VarUse& use = u.at(v);
      std::map<std::string, std::string> names;
      for (const auto& [dv, rel] : view.vars) {
        names[dv] = v + "%" + dv;
        fresh_var(v + "%" + dv, rel);
      }
      const bool result = (s->kind == Stmt::Replace || s->kind == Stmt::Delete) && s->var == v;
      if (result) {
        update_through(view, op_word(s->kind), s->var_pos, s->targets, src);
        s->var = names.at(view.vars.front().first);
      }
      // `v.all`: the view's domains, in order.
      for (size_t i = 0; i < s->targets.size(); ++i) {
        auto& t = s->targets[i];
        if (!t.all || t.expr->text != v) continue;
        const SrcPos pos = t.pos;
        s->targets.erase(s->targets.begin() + long(i));
        for (size_t k = 0; k < view.targets.size(); ++k) {
          frontend::ast::Target n;
          n.name = view.targets[k].name;
          n.pos = pos;
          n.expr = std::make_unique<Expr>();
          n.expr->kind = Expr::Attr;
          n.expr->text = v;
          n.expr->attr = n.name;
          n.expr->pos = pos;
          s->targets.insert(s->targets.begin() + long(i + k), std::move(n));
        }
        i += view.targets.size() - 1;
      }
      // The view's qualification, in every scope the variable is in.
      if (view.qual)
        for (ExprPtr* slot : use.slots) conjoin(*slot, instance(*view.qual, names, use.pos));
      auto substitute = [&](const Expr& a) -> ExprPtr {
        for (const auto& vt : view.targets)
          if (vt.name == a.attr) return instance(*vt.expr, names, a.pos);
        throw_error(ErrKind::Name, a.pos, src, "view " + view.name + " has no domain '" + a.attr + "'");
      };
      for (auto& t : s->targets) replace_attrs(t.expr, v, substitute);
      replace_attrs(s->where, v, substitute);
    }
  }

  // Integrity: an append or replace stores only tuples that satisfy every
  // constraint, the constraint's domains being the values stored.
  if (s->kind == Stmt::Append || s->kind == Stmt::Replace) {
    const std::string rel = s->kind == Stmt::Append ? lowercase(s->relation) : rel_of(s->var);
    auto rit = rules_.find(rel);
    const Schema* schema = cat.find_schema(rel);
    if (rit != rules_.end() && schema && !rit->second.integrity.empty()) {
      changed = true;
      std::map<std::string, const Expr*> stored;
      std::vector<ExprPtr> expanded;  // the domains of a `p.all` target
      for (const auto& t : s->targets) {
        if (!t.all) {
          stored[t.name] = t.expr.get();
          continue;
        }
        const Schema* from = cat.find_schema(rel_of(t.expr->text));
        if (!from) continue;  // the binder says so
        for (const auto& a : from->attrs) {
          auto e = std::make_unique<Expr>();
          e->kind = Expr::Attr;
          e->text = t.expr->text;
          e->attr = a.name;
          e->pos = t.pos;
          stored[a.name] = e.get();
          expanded.push_back(std::move(e));
        }
      }
      for (const Rule& ig : rit->second.integrity) {
        ExprPtr q = frontend::clone(*ig.qual);
        set_pos(*q, s->pos);
        replace_attrs(q, ig.var, [&](const Expr& a) -> ExprPtr {
          if (auto it = stored.find(a.attr); it != stored.end()) return frontend::clone(*it->second);
          if (s->kind == Stmt::Replace) {
            auto e = frontend::clone(a);
            e->text = s->var;
            return e;
          }
          const int i = schema->find(a.attr);
          return default_value(i >= 0 ? schema->attrs[size_t(i)].type : Type::i4(), a.pos);
        });
        conjoin(s->where, std::move(q));
      }
    }
  }

  // Permits: a user other than the owner reaches a relation only through the
  // permits that apply to him now; their qualifications are disjoined.
  if (who.user != who.owner) {
    Uses u = uses_of(*s);
    struct Need {
      std::string var, rel, op;
      std::vector<std::string> domains;
      SrcPos pos;
      std::vector<ExprPtr*> slots;
    };
    std::vector<Need> needs;
    for (const auto& [v, use] : u) {
      Need n{v, rel_of(v), "retrieve", {use.attrs.begin(), use.attrs.end()}, use.pos, use.slots};
      if ((s->kind == Stmt::Replace || s->kind == Stmt::Delete) && v == s->var) {
        n.op = op_word(s->kind);
        if (s->kind == Stmt::Replace)
          for (const auto& t : s->targets) n.domains.push_back(t.name);
      }
      needs.push_back(std::move(n));
    }
    if (s->kind == Stmt::Append) {
      Need n{"", lowercase(s->relation), "append", {}, s->relation_pos, {}};
      for (const auto& t : s->targets) n.domains.push_back(t.all ? "all" : t.name);
      needs.push_back(std::move(n));
    }
    for (Need& n : needs) {
      const Schema* schema = cat.find_schema(n.rel);
      if (!schema || n.rel == "relation" || n.rel == "attribute") continue;  // the catalogs are read by all
      if (std::find(n.domains.begin(), n.domains.end(), "all") != n.domains.end()) {
        n.domains.clear();
        for (const auto& a : schema->attrs) n.domains.push_back(a.name);
      }
      std::vector<const Rule*> given;
      if (auto it = rules_.find(n.rel); it != rules_.end())
        for (const Rule& p : it->second.permit)
          if (applies(p, n.op, n.domains, who)) given.push_back(&p);
      if (given.empty())
        throw_error(ErrKind::Name, n.pos, src,
                    n.op + " on relation " + n.rel + ": protection violation (no permit of " + n.rel + " gives it to " +
                        who.user + " at " + who.terminal + " on " + kDayNames[who.now.day % 7] + " at " +
                        clock_text(who.now.minute) + ")");
      bool unqualified = false;
      for (const Rule* p : given) unqualified = unqualified || !p->qual;
      if (unqualified) continue;
      changed = true;
      if (n.op == "append") {
        // The appended tuple's values must satisfy a permit's qualification.
        std::map<std::string, const Expr*> stored;
        for (const auto& t : s->targets)
          if (!t.all) stored[t.name] = t.expr.get();
        std::vector<ExprPtr> qs;
        for (const Rule* p : given) {
          ExprPtr q = frontend::clone(*p->qual);
          set_pos(*q, n.pos);
          replace_attrs(q, p->var, [&](const Expr& a) -> ExprPtr {
            if (auto it = stored.find(a.attr); it != stored.end()) return frontend::clone(*it->second);
            const int i = schema->find(a.attr);
            return default_value(i >= 0 ? schema->attrs[size_t(i)].type : Type::i4(), a.pos);
          });
          qs.push_back(std::move(q));
        }
        conjoin(s->where, disjoin(std::move(qs)));
        continue;
      }
      for (ExprPtr* slot : n.slots) {
        std::vector<ExprPtr> qs;
        for (const Rule* p : given) qs.push_back(instance(*p->qual, {{p->var, n.var}}, n.pos));
        conjoin(*slot, disjoin(std::move(qs)));
      }
    }
  }
  if (changed) m.stmt = std::move(s);
  else m.vars.clear();
  return m;
}

void QueryModification::update_through(const View& view, const std::string& what, SrcPos pos,
                                       std::vector<frontend::ast::Target>& targets, const SourceRef& src) {
  const std::string on = what + " on view " + view.name + ": ";
  if (view.vars.size() != 1) throw_error(ErrKind::Name, pos, src, on + "the update would change more than one relation");
  const std::string& dv = view.vars.front().first;
  for (auto& t : targets) {
    if (t.all) throw_error(ErrKind::Name, t.pos, src, on + "name each domain");
    auto it = std::find_if(view.targets.begin(), view.targets.end(), [&](const auto& vt) { return vt.name == t.name; });
    if (it == view.targets.end())
      throw_error(ErrKind::Name, t.pos, src, "view " + view.name + " has no domain '" + t.name + "'");
    if (it->expr->kind != Expr::Attr)
      throw_error(ErrKind::Name, t.pos, src,
                  on + "domain " + t.name +
                      (it->expr->kind == Expr::Aggregate ? " is an aggregate value" : " is not a simple attribute"));
    if (view.qual && names_attr(*view.qual, dv, it->expr->attr))
      throw_error(ErrKind::Name, t.pos, src, on + "domain " + t.name + " occurs in the qualification of the view");
    t.name = it->expr->attr;
  }
}

bool QueryModification::applies(const Rule& p, const std::string& op, const std::vector<std::string>& domains,
                                const Asker& who) const {
  if (std::find(p.ops.begin(), p.ops.end(), op) == p.ops.end()) return false;
  if (p.user != "all" && p.user != who.user) return false;
  if (p.terminal != "all" && p.terminal != who.terminal) return false;
  if (!within(who.now.minute, p.from, p.to) || !within(who.now.day, p.day_from, p.day_to)) return false;
  if (!p.domains.empty())
    for (const auto& d : domains)
      if (std::find(p.domains.begin(), p.domains.end(), d) == p.domains.end()) return false;
  return true;
}

void QueryModification::add_view(const Stmt& s, std::vector<std::pair<std::string, std::string>> vars,
                                 const SourceRef& src) {
  ++version_;
  View v;
  v.name = lowercase(s.relation);
  v.vars = std::move(vars);
  for (const auto& t : s.targets) v.targets.push_back({t.name, frontend::clone(*t.expr)});
  if (s.where) v.qual = frontend::clone(*s.where);
  v.text = src->text().substr(s.begin, s.end - s.begin);
  views_[v.name] = std::move(v);
}

QueryModification::Rule& QueryModification::add_rule(std::vector<Rule>& list, int& next, const Stmt& s,
                                                    const SourceRef& src) {
  ++version_;
  Rule& r = list.emplace_back();
  r.number = next++;
  r.var = s.var;
  if (s.where) r.qual = frontend::clone(*s.where);
  r.text = src->text().substr(s.begin, s.end - s.begin);
  return r;
}

void QueryModification::add_integrity(const std::string& relation, const Stmt& s, const SourceRef& src) {
  Rules& r = rules_[relation];
  add_rule(r.integrity, r.next_integrity, s, src);
}

void QueryModification::add_permit(const std::string& relation, const Stmt& s, const SourceRef& src) {
  Rules& r = rules_[relation];
  Rule& p = add_rule(r.permit, r.next_permit, s, src);
  p.ops = s.permit_ops;
  p.domains = s.permit_domains;
  p.user = s.permit_user;
  p.terminal = s.permit_terminal;
  p.from = s.permit_from;
  p.to = s.permit_to;
  p.day_from = s.permit_day_from;
  p.day_to = s.permit_day_to;
}

void QueryModification::destroy_rules(const Stmt& s, const SourceRef& src) {
  ++version_;
  const std::string rel = lowercase(s.relation);
  auto it = rules_.find(rel);
  std::vector<Rule>* list = nullptr;
  if (it != rules_.end()) list = s.define_what == "permit" ? &it->second.permit : &it->second.integrity;
  if (s.destroy_all) {
    if (list) list->clear();
    return;
  }
  for (size_t i = 0; i < s.destroy_numbers.size(); ++i) {  // all checked first: nothing goes if one is wrong
    const int n = s.destroy_numbers[i];
    if (!list || std::none_of(list->begin(), list->end(), [&](const Rule& r) { return r.number == n; }))
      throw_error(ErrKind::Name, s.destroy_number_positions[i], src,
                  rel + " has no " + (s.define_what == "permit" ? "permit " : "integrity constraint ") +
                      std::to_string(n) + " (help " + s.define_what + " " + rel + " lists them)");
  }
  for (const int n : s.destroy_numbers)
    std::erase_if(*list, [&](const Rule& r) { return r.number == n; });
}

void QueryModification::dropped(const std::string& name) {
  if (views_.erase(lowercase(name)) + rules_.erase(lowercase(name))) ++version_;
}

std::vector<std::string> QueryModification::views_over(const std::string& relation) const {
  std::vector<std::string> out;
  for (const auto& [n, v] : views_)
    for (const auto& [dv, rel] : v.vars)
      if (rel == relation) {
        out.push_back(n);
        break;
      }
  return out;
}

std::vector<std::string> QueryModification::view_names() const {
  std::vector<std::string> out;
  for (const auto& [n, v] : views_) out.push_back(n);
  return out;
}

void QueryModification::help_view(std::ostream& out, const std::string& name) const {
  const View& v = views_.at(lowercase(name));
  out << "View:                " << v.name << "\n";
  std::string over;
  for (const auto& [dv, rel] : v.vars)
    if (over.find(rel) == std::string::npos) over += (over.empty() ? "" : ", ") + rel;
  out << "Over:                " << over << "\n";
  out << "Domains:            ";
  for (const auto& t : v.targets) out << ' ' << t.name;
  out << "\nDefinition:\n  " << v.text << "\n";
}

void QueryModification::help_rules(std::ostream& out, const std::string& relation, const std::string& what) const {
  const std::string rel = lowercase(relation);
  auto it = rules_.find(rel);
  const std::vector<Rule>* list = nullptr;
  if (it != rules_.end()) list = what == "permit" ? &it->second.permit : &it->second.integrity;
  const char* kind = what == "permit" ? "permits" : "integrity constraints";
  if (!list || list->empty()) {
    out << rel << ": no " << kind << "\n";
    return;
  }
  out << kind << " on " << rel << ":\n";
  for (const Rule& r : *list) out << "  " << r.number << ": " << r.text << "\n";
}

}  // namespace quelkit::harness
