// The session's statement cache (docs/DESIGN.md, "The statement cache"): a
// statement's text, its literals taken out by a scan far cheaper than lexing,
// is the key to the statement parsed (and bound) the first time; a text of
// the same key reuses them with its own literal values and positions written
// in, so that it is neither lexed, parsed nor (where the binding allows) bound.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/access_path.h"
#include "engine/plan.h"
#include "frontend/ast.h"
#include "frontend/bound.h"
#include "frontend/source.h"

namespace quelkit::harness {

// One literal of a statement's text, as the lexer would read it.
struct TextLiteral {
  enum Kind : uint8_t { Int, Float, String } kind = Int;
  SrcPos pos;         // of its first byte
  uint32_t len = 0;   // bytes it spans in the text (quotes and escapes included)
  int64_t ival = 0;   // Int
  double fval = 0;    // Float
  std::string text;   // String: the value, escapes resolved
};

// A text's key and literals: `key` is the text with each literal replaced
// by a placeholder naming its type as the binder gives it (i2 or i4 by an
// integer's value, f8, c<length>), the rest verbatim (blanks and comments
// too, so that positions between literals agree). A string with a pattern's
// characters (* ? [ \) is kept in the key: its value shapes the plan.
struct NormalisedText {
  std::string key;
  std::vector<TextLiteral> literals;
};

// nullopt: a text the cache does not take (one the lexer would refuse, a
// monitor command, a string holding a newline, a literal out of range,
// longer than kMaxCachedText): it takes the ordinary path, which reports
// what is wrong with it.
std::optional<NormalisedText> normalise_text(std::string_view text);
// The same into `out`, reusing its room (the session's one buffer); false
// where the above gives nullopt.
bool normalise_text(std::string_view text, NormalisedText& out);
inline constexpr size_t kMaxCachedText = 4096;

// The one-variable plan of a cached statement whose binding is kept (a
// statement of one variable, or none), made once: its folded trees'
// parameter slots each hold one literal's value converted to the slot's
// type, and its unfolded trees' constants are the literals themselves, so
// writing a text's literals there is the plan Exec would make of it.
struct PlanMemo {
  Plan plan;
  AccessSpec acc;
  std::string key;     // the plan cache's key (relation identity, plan key)
  std::string access;  // its --stats access path
  const Relation* rel = nullptr;
  uint64_t rel_version = 0;  // the relation's when the plan was made: another one is another plan
  struct Slot {
    size_t literal;  // index in CachedStatement::literals
    Attribute at;    // the slot, its offset within plan.literal_block
  };
  std::vector<Slot> slots;
  std::vector<std::vector<ir::Node*>> consts;  // per literal: its constants in the unfolded trees
};

// The statement a key stands for, as the texts of that key share it.
struct CachedStatement {
  frontend::ast::StmtPtr stmt;
  // Its literal expressions in text order, parallel to `literals`: the
  // values and positions of the text that used it last.
  std::vector<frontend::ast::Expr*> nodes;
  std::vector<TextLiteral> literals;
  // The binding, once made and found patchable (adopt_bound): every
  // constant of its trees is a literal's, of the literal's own type and
  // value, so writing new values into `consts` is the binding of the new text.
  std::optional<frontend::BoundQuery> bound;
  std::vector<std::vector<ir::Node*>> consts;  // per literal
  bool bind_tried = false;  // adopt_bound ran (whatever it found)
  // Its plan, once made and found patchable (adopt_plan), with the binding.
  std::optional<PlanMemo> plan;
  bool plan_tried = false;  // adopt_plan ran since the binding was kept (or the plan dropped)
  // A run found it neither reads nor writes a system catalog (Session::
  // SystemCatalogs): what its names range over is what the entry was found
  // against, so later runs need not walk its trees to ask again.
  bool reads_no_catalog = false;
  // A run found it updates no index (refuse_index_update passed): against
  // the same catalog and ranges, later runs would find so again.
  bool updates_no_index = false;
};

// How a statement's text used the cache (--stats' statement_cache).
enum class StatementCacheUse : uint8_t {
  None,   // not looked up: off (--no-statement-cache, --no-plan-cache), or a text it does not take
  Miss,   // looked up, not found: parsed (and entered, if it is one cacheable statement)
  Parse,  // its parse reused, bound again (its binding could not be patched, or not yet made)
  Bind,   // its parse and binding reused (its plan made again: it has several variables, or could not be patched)
  Plan,   // its parse, binding and one-variable plan reused
};
const char* statement_cache_use_name(StatementCacheUse u);  // null for None

class StatementCache {
 public:
  explicit StatementCache(size_t capacity = 256) : capacity_(capacity) {}
  // What the entries were bound against: a version of the catalog and the
  // session's structures, and the range declarations (which code outside
  // the session's statements may set too).
  struct Against {
    uint64_t version;
    const std::vector<std::pair<std::string, std::string>>& ranges;
  };
  // The entry of `key`, or null. Entries made against anything other than
  // `now` are dropped first.
  CachedStatement* find(const std::string& key, const Against& now);
  // Takes `stmt` (parsed from a text normalised to n) as key n.key's entry,
  // if it is one statement the cache can reuse: a retrieve (not into), an
  // append, a replace or a delete, without aggregates (or a begin, end or
  // abort, whose parse is all there is), whose literal
  // expressions are n's literals one for one (positions and values).
  // Returns the entry, or null with stmt left alone.
  CachedStatement* adopt(const NormalisedText& n, frontend::ast::StmtPtr& stmt, const Against& now);
  size_t size() const { return map_.size(); }
  void clear() { map_.clear(); }

 private:
  // Drops the entries if they were made against anything but `now`.
  void check(const Against& now);
  size_t capacity_;
  uint64_t version_ = 0;
  std::vector<std::pair<std::string, std::string>> ranges_;
  std::unordered_map<std::string, std::unique_ptr<CachedStatement>> map_;
};

// Writes text n's literal values into e's statement (and its binding, if
// adopted), and moves every position the statement holds from the layout
// of the text that used it last to n's: literals of other lengths shift
// what follows them on their line. n's literals are taken (its buffer gets the
// entry's old ones, which the next normalise_text clears).
void patch_statement(CachedStatement& e, NormalisedText& n);
// The plan just made of e's kept binding (Exec::run_level): kept in e.plan
// if every parameter slot of its folded trees is one literal's value in the
// slot's type, every literal has one, its unfolded trees' constants are
// literals as they are, and its key bounds are parameters; the arguments
// are moved there then. Returns e.plan's memo or null (the caller's plan
// left whole).
PlanMemo* adopt_plan(CachedStatement& e, Plan& plan, AccessSpec& acc, std::string& key, std::string& access,
                     const Relation* rel);

// The binding of e's statement as just made: kept in e if its constants are
// all literals of e (their own types and values), and the binding is moved
// there; else left to the caller. Returns e.bound or null.
const frontend::BoundQuery* adopt_bound(CachedStatement& e, frontend::BoundQuery& q);

}  // namespace quelkit::harness
