// INGRES's statements beside the kit's core (quel_statements.h): modify's
// variants, help's texts, save's notes and the system catalogs as relations.
// The manual pages of University INGRES 6.3 (doc/quel/*.nr) say what each
// does; the texts help prints are the kit's own words.
#include "engine/quel_statements.h"

#include <algorithm>
#include <iomanip>
#include <ostream>

#include "engine/result_order.h"
#include "engine/result_rows.h"
#include "engine/rows.h"
#include "storage/index.h"
#include "storage/undo.h"

namespace quelkit::harness {

using frontend::ast::Expr;
using frontend::ast::Stmt;

namespace {

bool sorted_heap(const std::string& w) { return w == "heapsort" || w == "cheapsort"; }
bool compressed(const std::string& w) { return w.size() > 1 && w[0] == 'c'; }

// The structure as asked, for help: `chash on num where minpages = 7`.
std::string asked_text(const Stmt& s, const std::vector<int>& keys, const Schema& sch) {
  std::string t = s.structure;
  for (size_t i = 0; i < keys.size(); ++i) {
    t += (i ? ", " : " on ") + sch.attrs[size_t(keys[i])].name;
    if (i < s.keys.size() && s.keys[i].descending) t += ":descending";
  }
  std::string where;
  auto add = [&](const char* what, int n) {
    if (n) where += (where.empty() ? " where " : ", ") + std::string(what) + " = " + std::to_string(n);
  };
  add("fillfactor", s.fillfactor);
  add("minpages", s.minpages);
  add("maxpages", s.maxpages);
  return t + where;
}

// Every live tuple erased and the pages dropped: an empty heap.
void empty_to_heap(Relation& rel) {
  std::vector<Tid> tids;
  rel.for_each([&](Tid t, const uint8_t*) { tids.push_back(t); });
  for (const Tid t : tids) rel.erase(t);
  rel.modify(Structure::Heap, -1, 0);
}

// A heap of the tuples sorted on `keys` (each ascending or descending), then
// on every domain in domain order, duplicates removed: the manual's
// heapsort. Sorting, the step that can be cancelled or refused by the
// memory budget, comes before anything changes; the pages freed before the
// sorted tuples go in are as many as they need.
void sort_heap(Relation& rel, const std::vector<frontend::SortKey>& keys) {
  ResultRows rows(rel.tuple_len(), "the sorted copy of relation " + rel.name());
  rel.for_each([&](Tid, const uint8_t* t) { rows.append(t, 1); });
  order_rows(rows, rel.schema(), keys, true);
  empty_to_heap(rel);
  rel.insert_all(rows.size(), [&](size_t i) { return rows.row(i); });
}

// The attribute numbers of the statement's `keys` (modify's on list, an
// index's domains), each named once; `what` names the list in the error.
std::vector<int> domains_named(const Relation& rel, const Stmt& s, const SourceRef& src, const char* what) {
  std::vector<int> out;
  for (const auto& k : s.keys) {
    const int a = rel.schema().find(k.name);
    if (a < 0) throw_error(ErrKind::Name, k.pos, src, "relation '" + rel.name() + "' has no attribute '" + k.name + "'");
    if (std::find(out.begin(), out.end(), a) != out.end())
      throw_error(ErrKind::Name, k.pos, src, "attribute '" + k.name + "' is named twice in the " + what);
    out.push_back(a);
  }
  return out;
}

}  // namespace

void modify_relation(Relation& rel, const Stmt& s, const SourceRef& src, UndoLog* undo) {
  const std::string& w = s.structure;
  const Schema& sch = rel.schema();
  std::vector<int> keys = domains_named(rel, s, src, "key");
  const bool isam = w == "isam" || w == "cisam", hash = w == "hash" || w == "chash";
  // Without `on`, isam and hash key on the first domain (the manual).
  if ((isam || hash) && keys.empty()) keys.push_back(0);
  if (undo) undo->modifying(rel);  // abort puts the old pages back
  if (w == "truncated") {
    empty_to_heap(rel);
  } else if (sorted_heap(w)) {
    std::vector<frontend::SortKey> order;
    for (size_t i = 0; i < keys.size(); ++i) order.push_back({keys[i], s.keys[i].descending, s.keys[i].pos});
    sort_heap(rel, order);
  } else {
    // cisam and chash are stored as isam and hash (help says so): the
    // kit's tuples are fixed width, and INGRES's compression only dropped
    // trailing blanks, which no comparison sees.
    const Structure st = isam ? Structure::Isam : hash ? Structure::Hash : Structure::Heap;
    rel.modify(st, st == Structure::Heap ? std::vector<int>{} : keys, s.fillfactor, uint32_t(s.minpages),
               uint32_t(s.maxpages));
  }
  rel.notes().structure = w == "truncated" ? "" : asked_text(s, keys, sch);
  rel.notes().structure_version = rel.version();
}

// " on a, b": the key domains, or nothing for a heap.
static std::string key_text(const Relation& r) {
  std::string t;
  for (const int a : r.key_attrs()) t += (t.empty() ? " on " : ", ") + r.schema().attrs[size_t(a)].name;
  return t;
}

std::vector<Relation*> indexes_of(const Catalog& cat, const Relation& base) {
  std::vector<Relation*> out;
  for (const auto& n : base.notes().indexes)
    if (Relation* i = cat.find_as_is(n); i && i->notes().index_of == base.name() && i != &base) out.push_back(i);
  return out;
}

void create_index(Catalog& cat, Relation& base, const Stmt& s, const SourceRef& src, UndoLog* undo) {
  if (!base.notes().index_of.empty())
    throw_error(ErrKind::Name, s.relation_pos, src,
                "'" + base.name() + "' is an index (of '" + base.notes().index_of + "'): an index is not indexed");
  const std::string name = lowercase(s.index_name);
  if (cat.find(name) || is_system_catalog(name))
    throw_error(ErrKind::Name, s.index_pos, src, "relation '" + s.index_name + "' already exists");
  for (const auto& k : s.keys)
    if (lowercase(k.name) == "tidp")
      throw_error(ErrKind::Name, k.pos, src, "an index names its tuple ids 'tidp': a domain 'tidp' is not indexed");
  const std::vector<int> domains = domains_named(base, s, src, "index");
  const Schema is = index_schema(base, domains);
  if (tuples_per_page(base.page_size(), is.tuple_len) == 0)
    throw_error(ErrKind::Type, s.keys[0].pos, src,
                "an index entry of " + std::to_string(is.tuple_len) + " bytes does not fit a " +
                    std::to_string(base.page_size()) + "-byte page");
  std::unique_ptr<Relation> idx;
  try {
    idx = build_index(base, name, domains);
  } catch (const std::length_error& e) {
    throw_error(ErrKind::Runtime, s.relation_pos, src, e.what());
  }
  if (undo) undo->create(cat, std::move(idx));
  else cat.add(std::move(idx));
  auto& list = base.notes().indexes;
  if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
  base.restructured();
}

void refuse_index_update(const Stmt& s, const frontend::RangeTable& ranges, const Catalog& cat, const SourceRef& src) {
  auto refuse = [&](const std::string& name, SrcPos pos) {
    const Relation* r = cat.find(name);
    if (r && !r->notes().index_of.empty())
      throw_error(ErrKind::Name, pos, src,
                  "'" + r->name() + "' is an index of '" + r->notes().index_of + "': it changes only with its relation");
  };
  if (s.kind == Stmt::Append || (s.kind == Stmt::Copy && !s.copy_into)) refuse(s.relation, s.relation_pos);
  if (s.kind == Stmt::Delete || s.kind == Stmt::Replace) {
    const std::string* r = ranges.find(s.var);
    refuse(r ? *r : s.var, s.var_pos);
  }
}

void help_relation(std::ostream& out, const Relation& r, const Catalog& cat) {
  out << "Relation:            " << r.name() << "\n"
      << "Storage structure:   " << structure_name(r.structure()) << key_text(r) << "\n";
  if (const auto& n = r.notes(); !n.index_of.empty()) {
    out << "Index on:            " << n.index_of << " (";
    for (size_t d = 0; d < r.key_attrs().size(); ++d) out << (d ? ", " : "") << r.schema().attrs[size_t(d)].name;
    out << "; tidp: the tuple's id)\n";
  }
  for (const Relation* i : indexes_of(cat, r)) out << "Indexed by:          " << i->name() << key_text(*i) << "\n";
  // What modify was asked for, where it is more than the
  // structure above says: the compressed forms, a sort, minpages.
  const Relation::Notes& n = r.notes();
  if (!n.structure.empty() && n.structure_version == r.version()) {
    std::string stored = structure_name(r.structure());
    stored += key_text(r);
    if (n.structure != stored) {
      out << "Modified to:         " << n.structure;
      const std::string w = n.structure.substr(0, n.structure.find(' '));
      if (sorted_heap(w)) out << " (sorted, duplicates removed; later appends go at the end" << (compressed(w) ? ";" : ")");
      if (compressed(w)) out << (sorted_heap(w) ? " " : " (") << "stored uncompressed)";
      out << "\n";
    }
  }
  if (!n.save_until.empty()) out << "Saved until:         " << n.save_until << "\n";
  if (r.structure() != Structure::Heap) out << "Fillfactor:          " << r.fillfactor() << "\n";
  out << "Tuples:              " << r.ntuples() << "\n"
      << "Tuple width:         " << r.tuple_len() << " bytes\n"
      << "Page size:           " << r.page_size() << " bytes (" << r.tuples_per_page()
      << (r.tuples_per_page() == 1 ? " tuple" : " tuples") << " per page)\n"
      << "Pages:               " << r.npages() << " (" << r.nprimary() << " primary, " << r.noverflow()
      << " overflow)\n"
      << "Attributes:\n";
  // As INGRES's help listed them: name, type, bytes, and (what `--dump` shows
  // the back ends loading) the byte offset in the tuple; key 1, 2, ... marks
  // the ISAM/hash key's domains in key order. Text left-aligned, numbers right-aligned.
  const auto& attrs = r.schema().attrs;
  size_t name_w = std::string_view("attribute").size(), type_w = std::string_view("type").size();
  for (const auto& a : attrs) {
    name_w = std::max(name_w, a.name.size());
    type_w = std::max(type_w, type_name(a.type).size());
  }
  auto left = [](const std::string& v, size_t w) { return v + std::string(w - v.size(), ' '); };
  auto right = [](const std::string& v, size_t w) { return std::string(w > v.size() ? w - v.size() : 0, ' ') + v; };
  out << "  " << left("attribute", name_w) << "  " << left("type", type_w) << "  length  offset  key\n";
  for (size_t i = 0; i < attrs.size(); ++i) {
    const auto& a = attrs[i];
    out << "  " << left(a.name, name_w) << "  " << left(type_name(a.type), type_w) << "  "
        << right(std::to_string(a.type.len), 6) << "  " << right(std::to_string(a.offset), 6);
    const auto k = std::find(r.key_attrs().begin(), r.key_attrs().end(), int(i));
    if (k != r.key_attrs().end()) out << "  " << std::setw(3) << (k - r.key_attrs().begin() + 1);
    out << "\n";
  }
}

// ---------------------------------------------------------------- manual

namespace {

struct Section {
  const char* name;
  const char* text;
};

// One short text per section of INGRES's reference manual that the kit
// has; the sections it lacks say so and why (docs/DESIGN.md, Language).
constexpr Section kSections[] = {
    {"quel",
     "QUEL, the query language of University INGRES, as the kit speaks it.\n"
     "Statements: range retrieve append replace delete create destroy copy\n"
     "modify print help save index define begin end abort. Expressions: + - * /\n"
     "** and comparisons, and or not, functions, aggregates, the constant\n"
     "usercode. Names and keywords are case-insensitive; statements need no\n"
     "terminator. Sections: quel monitor range retrieve append replace delete\n"
     "create destroy copy modify print help save index transactions catalogs\n"
     "define view integrity permit. help \"section\" prints one.\n"},
    {"monitor",
     "The terminal monitor collects text in a workspace: \\g runs it, \\p prints\n"
     "it, \\r resets it, \\e edits it, \\i FILE reads a file, \\q quits.\n"},
    {"range",
     "range of v is rel: v stands for the tuples of rel in the statements\n"
     "after it. A relation's own name ranges over it where no variable has it.\n"},
    {"retrieve",
     "retrieve [unique] [into rel] (name = expr, v.attr, v.all ...) [where q]\n"
     "[sort by name[:a|:d], ...]. Into stores the result as a new relation,\n"
     "sorted on every domain and without duplicate tuples; unique sorts and\n"
     "drops duplicates of the rows printed.\n"},
    {"append", "append [to] rel (attr = expr, ...) [where q]: adds a tuple per qualifying combination.\n"},
    {"replace", "replace v (attr = expr, ...) [where q]: changes each qualifying tuple of v once.\n"},
    {"delete", "delete v [where q]: removes each qualifying tuple of v.\n"},
    {"create",
     "create rel (attr = format, ...), or attr is format: formats i1 i2 i4 f4 f8\n"
     "c1..c255. The relation starts as an empty heap.\n"},
    {"destroy",
     "destroy rel {, rel}: removes the relations or views (the system catalogs\n"
     "cannot be), with their integrity constraints and permits. destroy permit\n"
     "rel n {, n} | all, destroy integrity rel n {, n} | all: help's numbers.\n"},
    {"copy",
     "copy rel (attr = format, ...) from|into \"file\": reads or writes the kit's\n"
     "CSV, a header of attribute names, then a record per tuple.\n"},
    {"modify",
     "modify rel to structure [on key[:ascending|:descending], ...]\n"
     "[where fillfactor = n, minpages = n, maxpages = n]. Structures: heap,\n"
     "cheap, heapsort, cheapsort (sorted, duplicates removed), isam, cisam,\n"
     "hash, chash (keyed on the first domain without on), truncated (empty).\n"
     "The compressed forms are stored uncompressed; help shows what was asked.\n"},
    {"print", "print rel {, rel}: prints every tuple of the relations.\n"},
    {"help",
     "help: the relations. help rel {, rel}: each one's structure, tuples, pages\n"
     "and attributes. help \"section\" or help quel: a section of this text.\n"
     "help view v: a view's definition. help permit rel, help integrity rel:\n"
     "the relation's permits or integrity constraints, numbered.\n"},
    {"save",
     "save rel until month day year: records the date (help rel shows it).\n"
     "The kit keeps no database past the session, so nothing expires.\n"},
    {"transactions",
     "begin [transaction] ... end [transaction] makes the statements between\n"
     "one change; abort [transaction] takes them back.\n"},
    {"begin", "begin [transaction]: see help \"transactions\".\n"},
    {"end", "end [transaction]: see help \"transactions\".\n"},
    {"abort", "abort [transaction]: see help \"transactions\".\n"},
    {"catalogs",
     "The system catalogs, read-only: relation (relid relowner relspec relindxd\n"
     "relsave reltups relatts relwid relprim) and attribute (attrelid attowner\n"
     "attname attid attoff attfrmt attfrml attxtra), as the session's\n"
     "relations are when a statement reads them.\n"},
    {"usercode", "usercode: the session's user, a character constant (--user, $QUELKIT_USER, $USER).\n"},
    {"define",
     "define view, define integrity, define permit: query modification, which\n"
     "adds to the statements the user types. See help view, integrity, permit.\n"},
    {"view",
     "define view name (name = expr, v.attr, ...) [where q]: a virtual relation.\n"
     "A query of it runs on its relations, its domains replaced by its targets\n"
     "and its qualification added. Updates only through a view of one relation,\n"
     "of simple domains outside its qualification.\n"},
    {"permit",
     "define permit ops on v [(domains)] to user [at ttyx] [from hh:mm to hh:mm]\n"
     "[on day to day] [where q]: what another user than the owner may do to\n"
     "v's relation (ops: retrieve replace delete append all). The permits that\n"
     "apply are ORed; their where is added to the user's statements.\n"},
    {"integrity",
     "define integrity on v is q: every append and replace of v's relation must\n"
     "leave q true; tuples that would not are silently not stored. q must hold\n"
     "when it is defined, name v alone and hold no aggregate.\n"},
    {"index",
     "index on rel is name (domain, ...): a secondary index, the relation name of\n"
     "the domains and tidp (the tuple's id), isam on the domains. Retrieves\n"
     "whose qualification gives = or a range on its first domain fetch the\n"
     "tuples through it. It follows every change of rel; destroy rel destroys\n"
     "it, destroy name destroys the index alone.\n"},
};

}  // namespace

const char* manual_section(std::string_view name) {
  if (name.empty() || name == "|") name = "quel";  // the table of contents
  for (const Section& s : kSections)
    if (name == s.name) return s.text;
  return nullptr;
}

// --------------------------------------------------------- system catalogs

namespace {

// INGRES's storage codes (relspec) and domain formats (attfrmt).
constexpr int kSpecHeap = 5, kSpecIsam = 11, kSpecHash = 21;
constexpr int kFrmtInt = 30, kFrmtFloat = 31, kFrmtChar = 32;

int spec_of(Structure s) { return s == Structure::Isam ? kSpecIsam : s == Structure::Hash ? kSpecHash : kSpecHeap; }

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t days_from_civil(int y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = unsigned(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return int64_t(era) * 146097 + int64_t(doe) - 719468;
}

// relsave: the saved date as a Unix time (its midnight, UTC), 0 if none.
int64_t save_time(const std::string& ymd) {
  if (ymd.size() != 10) return 0;
  const int y = std::stoi(ymd.substr(0, 4)), m = std::stoi(ymd.substr(5, 2)), d = std::stoi(ymd.substr(8, 2));
  const int64_t t = days_from_civil(y, unsigned(m), unsigned(d)) * 86400;
  return std::min<int64_t>(t, 2147483647);
}

// A relation as the catalogs describe it: the session's, or a catalog itself.
struct Described {
  std::string name;
  const Schema* schema;
  Structure structure;
  std::vector<int> keys;  // key domains in key order (attxtra numbers them)
  int indexed;            // relindxd: 1 a secondary index is on it, -1 it is one, else 0
  uint64_t tuples, primary;
  int64_t saved;
};

Schema relation_schema(unsigned name_w, unsigned owner_w) {
  return Schema::packed({{"relid", Type::c(name_w)},
                         {"relowner", Type::c(owner_w)},
                         {"relspec", Type::i1()},
                         {"relindxd", Type::i1()},
                         {"relsave", Type::i4()},
                         {"reltups", Type::i4()},
                         {"relatts", Type::i2()},
                         {"relwid", Type::i2()},
                         {"relprim", Type::i4()}});
}

// attfrml is an i2, not INGRES's i1 read unsigned: c255 is 255 bytes.
Schema attribute_schema(unsigned name_w, unsigned owner_w) {
  return Schema::packed({{"attrelid", Type::c(name_w)},
                         {"attowner", Type::c(owner_w)},
                         {"attname", Type::c(name_w)},
                         {"attid", Type::i2()},
                         {"attoff", Type::i2()},
                         {"attfrmt", Type::i1()},
                         {"attfrml", Type::i2()},
                         {"attxtra", Type::i1()}});
}

void put_int(const Attribute& a, int64_t v, uint8_t* row) {
  ir::Value x;
  x.i = v;
  put_value(a, x, row);
}
void put_text(const Attribute& a, const std::string& v, uint8_t* row) {
  ir::Value x;
  x.s = v;
  put_value(a, x, row);
}

}  // namespace

bool is_system_catalog(std::string_view name) { return name == "relation" || name == "attribute"; }

std::unique_ptr<Relation> build_system_catalog(std::string_view which, const Catalog& cat, uint32_t page_size) {
  // Names are as wide as the longest (12 at least, INGRES's MAXNAME), so
  // no name is cut; the owner is the session's user.
  const std::string owner = cat.usercode().empty() ? " " : cat.usercode();
  unsigned name_w = 12;
  for (const auto& n : cat.names()) {
    name_w = std::max<unsigned>(name_w, unsigned(n.size()));
    for (const auto& a : cat.find(n)->schema().attrs) name_w = std::max<unsigned>(name_w, unsigned(a.name.size()));
  }
  name_w = std::min(name_w, 255u);
  const unsigned owner_w = std::min<unsigned>(unsigned(owner.size()), 255u);
  const Schema rel_s = relation_schema(name_w, owner_w), att_s = attribute_schema(name_w, owner_w);
  Relation rel_r("relation", rel_s, page_size), att_r("attribute", att_s, page_size);

  std::vector<Described> all;
  uint64_t natts = rel_s.attrs.size() + att_s.attrs.size();
  for (const auto& n : cat.names()) {
    if (is_system_catalog(n)) continue;  // a catalog of an earlier statement still held
    const Relation* r = cat.find(n);
    natts += r->schema().attrs.size();
    const int indexed = !r->notes().index_of.empty() ? -1 : indexes_of(cat, *r).empty() ? 0 : 1;
    all.push_back({n, &r->schema(), r->structure(), r->key_attrs(), indexed, r->ntuples(),
                   r->nprimary(), save_time(r->notes().save_until)});
  }
  auto pages = [](uint64_t n, uint32_t tpp) { return (n + tpp - 1) / tpp; };
  const uint64_t nrels = all.size() + 2;
  all.push_back({"relation", &rel_s, Structure::Heap, {}, 0, nrels, pages(nrels, rel_r.tuples_per_page()), 0});
  all.push_back({"attribute", &att_s, Structure::Heap, {}, 0, natts, pages(natts, att_r.tuples_per_page()), 0});
  std::sort(all.begin(), all.end(), [](const Described& a, const Described& b) { return a.name < b.name; });

  const bool relation = which == "relation";
  auto out = std::make_unique<Relation>(relation ? rel_r : att_r);
  const Schema& s = out->schema();
  std::vector<uint8_t> row(s.tuple_len);
  auto fill = [&](auto&& f, size_t n) { out->insert_all(n, f); };
  if (relation) {
    fill(
        [&](size_t i) {
          const Described& d = all[i];
          put_text(s.attrs[0], d.name, row.data());
          put_text(s.attrs[1], owner, row.data());
          put_int(s.attrs[2], spec_of(d.structure), row.data());
          put_int(s.attrs[3], d.indexed, row.data());
          put_int(s.attrs[4], d.saved, row.data());
          put_int(s.attrs[5], int64_t(std::min<uint64_t>(d.tuples, 2147483647)), row.data());
          put_int(s.attrs[6], int64_t(d.schema->attrs.size()), row.data());
          put_int(s.attrs[7], int64_t(d.schema->tuple_len), row.data());
          put_int(s.attrs[8], int64_t(std::min<uint64_t>(d.primary, 2147483647)), row.data());
          return row.data();
        },
        all.size());
    return out;
  }
  std::vector<std::pair<const Described*, size_t>> atts;
  for (const Described& d : all)
    for (size_t i = 0; i < d.schema->attrs.size(); ++i) atts.emplace_back(&d, i);
  fill(
      [&](size_t k) {
        const auto& [d, i] = atts[k];
        const Attribute& a = d->schema->attrs[i];
        put_text(s.attrs[0], d->name, row.data());
        put_text(s.attrs[1], owner, row.data());
        put_text(s.attrs[2], a.name, row.data());
        put_int(s.attrs[3], int64_t(i + 1), row.data());
        put_int(s.attrs[4], int64_t(a.offset), row.data());
        put_int(s.attrs[5], a.type.is_int() ? kFrmtInt : a.type.is_float() ? kFrmtFloat : kFrmtChar, row.data());
        put_int(s.attrs[6], int64_t(a.type.len), row.data());
        const auto place = std::find(d->keys.begin(), d->keys.end(), int(i));
        put_int(s.attrs[7], place == d->keys.end() ? 0 : int64_t(place - d->keys.begin() + 1), row.data());
        return row.data();
      },
      atts.size());
  return out;
}

namespace {

// The relations an expression's variables range over, checked for the catalogs.
bool reads_catalog(const Expr& e, const frontend::RangeTable& ranges) {
  if (e.kind == Expr::Attr) {
    const std::string* r = ranges.find(e.text);
    if (is_system_catalog(r ? *r : e.text)) return true;
  }
  for (const auto& a : e.args)
    if (reads_catalog(*a, ranges)) return true;
  for (const auto& b : e.by)
    if (reads_catalog(*b, ranges)) return true;
  return e.qual && reads_catalog(*e.qual, ranges);
}

}  // namespace

bool reads_system_catalog(const Stmt& s, const frontend::RangeTable& ranges, const SourceRef& src) {
  auto read_only = [&](const std::string& name, SrcPos pos) {
    throw_error(ErrKind::Name, pos, src, "'" + name + "' is a system catalog: it is read-only");
  };
  if (s.kind == Stmt::Append && is_system_catalog(s.relation)) read_only(s.relation, s.relation_pos);
  if (s.kind == Stmt::Retrieve && is_system_catalog(s.relation)) read_only(s.relation, s.relation_pos);
  if (s.kind == Stmt::Delete || s.kind == Stmt::Replace) {
    const std::string* r = ranges.find(s.var);
    if (is_system_catalog(r ? *r : s.var)) read_only(r ? *r : s.var, s.var_pos);
  }
  bool reads = false;
  for (const auto& t : s.targets) reads = reads || reads_catalog(*t.expr, ranges);
  return reads || (s.where && reads_catalog(*s.where, ranges));
}

}  // namespace quelkit::harness
