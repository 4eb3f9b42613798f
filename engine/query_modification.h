// Query modification (Stonebraker 1975, INGRES's qrymod): the session's
// views, integrity constraints and permits, and the rewriting of a
// retrieve, append, replace or delete by them before it is bound. A view's
// range variable is replaced by its base relations' variables, its targets
// substituted for its domains and its qualification conjoined; an update's
// integrity constraints, their domains replaced by the values the update
// stores, are conjoined to its qualification; a user other than the owner
// gets the permits that apply to him now, their qualifications disjoined
// and conjoined to the query's. Every back end then evaluates an ordinary
// statement (docs/DESIGN.md, "Query modification").
#pragma once

#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/frontend.h"

namespace quelkit::harness {

// When a query runs, for permits' `from hh:mm to hh:mm` and `on day to day`.
struct WallClock {
  int day = 0;     // 0 sunday .. 6 saturday
  int minute = 0;  // minutes after midnight
};
// The local time now.
WallClock wall_clock_now();

// Who runs a statement, for permits: the user (usercode), the relations'
// owner (the session's DBA), the terminal and the time.
struct Asker {
  std::string user, owner, terminal;
  WallClock now;
};

// The variables a retrieve, append, replace or delete names (its targets,
// qualification and aggregates; a replace's or delete's own), each with where
// it is first written, in text order.
std::vector<std::pair<std::string, SrcPos>> variables_of(const frontend::ast::Stmt& s);
// The first aggregate in an expression, or null.
const frontend::ast::Expr* first_aggregate(const frontend::ast::Expr& e);

// Range variables in force while a modified statement is bound and run.
class ScopedVars {
 public:
  ScopedVars(frontend::RangeTable& ranges, std::vector<std::pair<std::string, std::string>> vars);
  ~ScopedVars();
  ScopedVars(const ScopedVars&) = delete;
  ScopedVars& operator=(const ScopedVars&) = delete;

 private:
  frontend::RangeTable& ranges_;
  std::vector<std::pair<std::string, std::string>> vars_;
};

class QueryModification {
 public:
  // Moves on whenever a definition is added or dropped.
  uint64_t version() const { return version_; }

  // A statement rewritten: `stmt` null when nothing applied; `vars` the
  // range variables its view substitutions introduced (name -> relation),
  // to be in force while it is bound and run.
  struct Modified {
    frontend::ast::StmtPtr stmt;
    std::vector<std::pair<std::string, std::string>> vars;
  };
  // Whether no definition can apply to `user`'s statements on `owner`'s
  // relations (no view, no rule, the owner asking): modify would change
  // nothing, so the caller need not make its Asker (the clock, the terminal).
  bool idle(const std::string& user, const std::string& owner) const {
    return views_.empty() && rules_.empty() && user == owner;
  }
  // Throws QuelError at the place a view cannot be updated, a view's domain
  // does not exist or a permit refuses the statement.
  Modified modify(const frontend::ast::Stmt& s, const frontend::RangeTable& ranges, const CatalogView& cat,
                  const Asker& who, const SourceRef& src) const;

  // Definitions. The session checks them (binding, the integrity's
  // initial truth) before it adds them: a failed definition adds nothing.
  bool is_view(std::string_view name) const { return views_.count(lowercase(name)) > 0; }
  // The relation a variable of a statement ranges over: its declaration,
  // else the view or relation of its own name; empty if none.
  std::string relation_of(const std::string& var, const frontend::RangeTable& ranges, const CatalogView& cat) const;
  // define view: `vars` the definition's variables and their relations.
  void add_view(const frontend::ast::Stmt& s, std::vector<std::pair<std::string, std::string>> vars,
                const SourceRef& src);
  void add_integrity(const std::string& relation, const frontend::ast::Stmt& s, const SourceRef& src);
  void add_permit(const std::string& relation, const frontend::ast::Stmt& s, const SourceRef& src);
  // destroy permit|integrity rel n, ... | all. Throws at a number there is none of.
  void destroy_rules(const frontend::ast::Stmt& s, const SourceRef& src);
  // destroy of a view or relation: its definition, integrity constraints and
  // permits go (views over a destroyed relation stay, as INGRES's did: a
  // query of one is then a name error at the missing relation).
  void dropped(const std::string& name);
  // The views over `relation` (for help).
  std::vector<std::string> views_over(const std::string& relation) const;
  std::vector<std::string> view_names() const;

  // help view name / help integrity rel / help permit rel.
  void help_view(std::ostream& out, const std::string& name) const;
  void help_rules(std::ostream& out, const std::string& relation, const std::string& what) const;

 private:
  // An expression a definition keeps. Copying it copies the tree, so a copy
  // of the definitions is a deep one: a transaction keeps them as they were
  // at its begin, for an abort to put back (Session::qmod_at_begin_).
  struct KeptExpr {
    frontend::ast::ExprPtr e;
    KeptExpr() = default;
    KeptExpr(frontend::ast::ExprPtr x) : e(std::move(x)) {}
    KeptExpr(const KeptExpr& o) : e(o.e ? frontend::clone(*o.e) : nullptr) {}
    KeptExpr& operator=(const KeptExpr& o) {
      if (this != &o) e = o.e ? frontend::clone(*o.e) : nullptr;
      return *this;
    }
    KeptExpr(KeptExpr&&) = default;
    KeptExpr& operator=(KeptExpr&&) = default;
    explicit operator bool() const { return e != nullptr; }
    const frontend::ast::Expr& operator*() const { return *e; }
    const frontend::ast::Expr* operator->() const { return e.get(); }
  };
  struct ViewTarget {
    std::string name;
    KeptExpr expr;
  };
  struct View {
    std::string name;
    std::vector<std::pair<std::string, std::string>> vars;  // definition's variable -> relation
    std::vector<ViewTarget> targets;
    KeptExpr qual;     // null: none
    std::string text;  // the definition as written
  };
  struct Rule {  // an integrity constraint or a permit
    int number = 0;
    std::string var;              // the definition's variable
    KeptExpr qual;                // null: none (a permit without where)
    std::string text;
    // permits
    std::vector<std::string> ops, domains;
    std::string user, terminal;
    int from = -1, to = -1, day_from = -1, day_to = -1;
  };
  struct Rules {
    std::vector<Rule> integrity, permit;
    int next_integrity = 0, next_permit = 0;
  };
  // An update of a view of one relation (delete, replace, append at `pos`):
  // its targets renamed to the relation's domains; a name error where the
  // qrymod error page refuses it.
  static void update_through(const View& view, const std::string& what, SrcPos pos,
                             std::vector<frontend::ast::Target>& targets, const SourceRef& src);
  // A new integrity constraint or permit of the statement, numbered next.
  Rule& add_rule(std::vector<Rule>& list, int& next, const frontend::ast::Stmt& s, const SourceRef& src);
  bool applies(const Rule& p, const std::string& op, const std::vector<std::string>& domains, const Asker& who) const;
  std::map<std::string, View> views_;
  std::map<std::string, Rules> rules_;
  uint64_t version_ = 0;  // moved on by every change of the definitions
};

}  // namespace quelkit::harness
