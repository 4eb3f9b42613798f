// The Wisconsin report's measurement (wisconsin_run.h). Every back end shares
// one copy of the data: a statement is run on one runner at a time (the
// others set aside), so a 1M-tuple tenk1 is held once, not once per back end.
// Before each run of a statement that changes the database, the state the
// script gives it is put back off the clock: a copy of the changed relation
// assigned in place (same name and version, so the plan cache stays warm), a
// temporary of `retrieve into` removed; SQLite runs it inside a transaction
// rolled back off the clock. After the measurement the statement's effect is
// in place, so the next statement sees the state the script gives it.
#include "bench/measure/wisconsin_run.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>
#include <functional>
#include <memory>
#include <set>
#include <sstream>

#include "bench/measure/quel_sql.h"
#include "bench/measure/quiet_session.h"
#include "bench/measure/sqlite_ref.h"
#include "frontend/frontend.h"
#include "storage/checksum.h"

namespace quelkit {

using namespace harness;
using frontend::ast::Expr;
using frontend::ast::Stmt;

namespace {

std::string collapse(std::string_view t);

struct ScriptName {
  const char* file;
  const char* figure;
};
constexpr ScriptName kScripts[] = {
    {"fig2_1", "2.1"}, {"fig2_4", "2.4"}, {"fig2_5", "2.5"}, {"fig2_6", "2.6"}, {"aggregates", "agg"},
    {"fig3_11", "3.11"}};

// Figure 3.11's statements are the Wisconsin benchmark's queries by number:
// a comment "/* Qn what */" just before a statement tags it query n (0 and
// *label empty: untagged, a step that sets up the state).
int query_tag(std::string_view before, std::string* label) {
  const size_t open = before.rfind("/*");
  label->clear();
  if (open == std::string_view::npos) return 0;
  // Only white space between the comment's end and the statement.
  const size_t close = before.find("*/", open);
  if (close == std::string_view::npos || before.find_first_not_of(" \t\r\n", close + 2) != std::string_view::npos)
    return 0;
  std::string_view c = before.substr(open + 2, close - open - 2);
  c.remove_prefix(std::min(c.size(), c.find_first_not_of(' ')));
  if (c.size() < 2 || c[0] != 'Q' || !std::isdigit(static_cast<unsigned char>(c[1]))) return 0;
  size_t i = 1;
  int n = 0;
  while (i < c.size() && std::isdigit(static_cast<unsigned char>(c[i]))) n = n * 10 + (c[i++] - '0');
  std::string_view rest = c.substr(i);
  while (!rest.empty() && (rest.front() == ' ' || rest.back() == ' ' || rest.back() == '\n'))
    rest = rest.front() == ' ' ? rest.substr(1) : rest.substr(0, rest.size() - 1);
  *label = collapse(rest);
  return n;
}

void vars_of(const Expr& e, std::set<std::string>* v) {
  if (e.kind == Expr::Attr) v->insert(e.text);
  for (const auto& a : e.args) vars_of(*a, v);
  for (const auto& b : e.by) vars_of(*b, v);
  if (e.qual) vars_of(*e.qual, v);
}

std::set<std::string> vars_of(const Stmt& s) {
  std::set<std::string> v;
  for (const auto& t : s.targets) vars_of(*t.expr, &v);
  if (s.where) vars_of(*s.where, &v);
  if (!s.var.empty()) v.insert(s.var);
  return v;
}

// The larger tenk1's constants: k >= 100 becomes k * num / den.
void scale(Expr& e, uint64_t num, uint64_t den) {
  if (e.kind == Expr::Int && e.ival >= 100) e.ival = int64_t(uint64_t(e.ival) * num / den);
  for (auto& a : e.args) scale(*a, num, den);
  for (auto& b : e.by) scale(*b, num, den);
  if (e.qual) scale(*e.qual, num, den);
}

// The statement's text with runs of white space as one blank.
std::string collapse(std::string_view t) {
  std::string s;
  for (char c : t) {
    const bool ws = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (ws && (s.empty() || s.back() == ' ')) continue;
    s += ws ? ' ' : c;
  }
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// Scaled constants in the text shown: the constants of the AST as written.
std::string scaled_text(std::string text, uint64_t num, uint64_t den) {
  if (num == den) return text;
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const bool starts = std::isdigit(static_cast<unsigned char>(text[i])) &&
                        (i == 0 || !(std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_' ||
                                     text[i - 1] == '.'));
    if (!starts) {
      out += text[i++];
      continue;
    }
    size_t j = i;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    uint64_t k = std::stoull(text.substr(i, j - i));
    out += std::to_string(k >= 100 ? k * num / den : k);
    i = j;
  }
  return out;
}

const char* kind_of(const Stmt& s) {
  switch (s.kind) {
    case Stmt::Retrieve: return s.relation.empty() ? "retrieve" : "retrieve into";
    case Stmt::Append: return "append";
    case Stmt::Delete: return "delete";
    case Stmt::Replace: return "replace";
    default: return "";
  }
}

}  // namespace

std::vector<WisconsinRelationSpec> WisconsinDataSet::relations() const {
  if (!study) return {{"tenk1", tenk_rows, kWisconsinSeed}};
  return {{"onek", onek_rows, kWisconsinSeed},
          {"onek1", onek_rows, kWisconsinSeed},
          {"onek2", onek_rows, kWisconsinSeed + 1},
          {"tenk1", tenk_rows, kWisconsinSeed},
          {"tenk2", tenk_rows, kWisconsinSeed + 1}};
}

bool load_wisconsin_scripts(const std::string& dir, std::vector<WisconsinScript>* out, std::string* err) {
  for (const ScriptName& n : kScripts) {
    const std::string path = dir + "/" + n.file + ".quel";
    std::ifstream f(path);
    std::string text;
    std::optional<Source::Cut> cut;
    if (!f || !read_text(f, &text, &cut)) {
      *err = "cannot read " + path;
      return false;
    }
    if (cut) {
      *err = path + ": " + cut->message;
      return false;
    }
    try {
      frontend::parse(std::make_shared<Source>(path, text));
    } catch (QuelError& e) {
      *err = e.err.format();
      return false;
    }
    out->push_back({n.file, n.figure, std::move(text)});
  }
  return true;
}

bool measure_wisconsin(const SessionOptions& so_in, const WisconsinDataSet& data,
                       const std::vector<WisconsinScript>& scripts, const WisconsinRunOptions& o,
                       std::vector<WisconsinStmtRow>* rows, bool* mismatch, std::string* err) {
  QuietSession quiet(so_in);
  Session& session = quiet.session;
  std::ostringstream& errs = quiet.errs;
  const SessionOptions& so = session.options();
  WisconsinSpec spec;
  spec.relations = data.relations();
  spec.s = data.structure;
  for (auto& rel : make_wisconsin(spec, so.page_size)) session.catalog().add(std::move(rel));
  std::unique_ptr<SqliteRef> db =
      o.sqlite ? SqliteRef::open_wisconsin(spec.relations, data.structure != Structure::Heap) : nullptr;
  if (o.sqlite && !db) {
    *err += "quelkit wisconsin: cannot load the data into SQLite\n";
    return false;
  }
  const size_t nrunners = session.runners().size();
  const std::string where = std::string(" (") + structure_name(data.structure) + ", tenk1 " +
                            std::to_string(data.tenk_rows) + " tuples)";

  for (const WisconsinScript& script : scripts) {
    // Figure 3.11 sets the structures itself: it runs on the study's heaps.
    if (script.figure == "3.11" && (!data.study || data.structure != Structure::Heap)) continue;
    auto src = std::make_shared<Source>("bench/workloads/wisconsin/" + script.name + ".quel", script.text);
    auto stmts = frontend::parse(src);
    std::set<std::string> made;  // temporaries of the retrieves run here, whose destroy runs too
    // Beyond the study's sizes the updates do not run, so a retrieve after
    // the script's first update of tenk1 would look for what the update
    // made (the appended tuple, a replaced key) and time a lookup that
    // finds nothing: such a retrieve does not run either.
    bool tenk1_updated = false;
    int number = 0;
    size_t prev_end = 0;
    for (auto& sp : stmts) {
      Stmt& s = *sp;
      ++number;
      std::string label;
      const int query = script.figure == "3.11"
                            ? query_tag(std::string_view(script.text).substr(prev_end, s.begin - prev_end), &label)
                            : 0;
      prev_end = s.end;
      const std::set<std::string> vars = vars_of(s);
      // Figure 3.11's untagged statements set up the state: run once, untimed.
      const std::string kind = script.figure == "3.11" && !query ? "" : kind_of(s);
      if (!data.study) {
        // Beyond the study's sizes: the retrieves of tenk1 alone.
        if (s.kind == Stmt::Append || s.kind == Stmt::Delete || s.kind == Stmt::Replace)
          tenk1_updated |= s.var == "tenk1" || s.relation == "tenk1";
        const bool keep = s.kind == Stmt::Retrieve && vars == std::set<std::string>{"tenk1"} && !tenk1_updated;
        const bool cleanup = s.kind == Stmt::Destroy && s.relations.size() == 1 && made.count(s.relations[0]);
        if (!keep && !cleanup) continue;
        if (keep && !s.relation.empty()) made.insert(s.relation);
      }
      if (data.tenk_rows != 10000) {
        for (auto& t : s.targets) scale(*t.expr, data.tenk_rows, 10000);
        if (s.where) scale(*s.where, data.tenk_rows, 10000);
      }
      const std::string sql = db ? quel_to_sql(s) : "";
      if (kind.empty()) {
        // destroy (and anything else that evaluates nothing): run once, off
        // the clock, on every runner and in SQLite alike.
        if (!session.run_statement(s, src)) {
          *err += "quelkit wisconsin: " + errs.str();
          return false;
        }
        session.reports().clear();
        uint64_t ch;
        std::string e;
        if (!sql.empty() && !db->exec(sql, &ch, &e)) {
          *err += "quelkit wisconsin: sqlite failed on " + sql + ": " + e + "\n";
          return false;
        }
        continue;
      }
      WisconsinStmtRow row;
      row.figure = script.figure;
      row.id = script.figure + "." + std::to_string(query ? query : number);
      row.label = label;
      row.kind = kind;
      row.text = scaled_text(collapse(std::string_view(script.text).substr(s.begin, s.end - s.begin)),
                             data.tenk_rows, 10000);
      row.sql = sql;
      row.size = data.tenk_rows;
      row.structure = data.structure;
      for (const auto& v : vars)
        if (const Relation* r = session.catalog().find(v)) row.input += r->ntuples();

      // The state the statement must see on every run.
      const bool changes = s.kind == Stmt::Append || s.kind == Stmt::Delete || s.kind == Stmt::Replace;
      const bool into = s.kind == Stmt::Retrieve && !s.relation.empty();
      std::string changed = s.kind == Stmt::Append ? s.relation : s.var;
      if (const std::string* r = session.ranges().find(changed)) changed = *r;
      std::unique_ptr<Relation> pristine;
      if (changes) pristine = std::make_unique<Relation>(*session.catalog().find(changed));
      auto restore = [&] {
        if (changes) {
          *session.catalog().find(changed) = *pristine;
        } else if (into && session.catalog().find(s.relation)) {
          session.catalog().remove(s.relation);
          session.invalidate(s.relation);
        }
      };
      // One run on runner k; its report (the statement's figures), or false.
      StmtReport rep;
      auto run_on = [&](size_t k, uint64_t* wall) {
        bool ok = false;
        with_runner_alone(session, k, [&] {
          const uint64_t t0 = now_ns();
          ok = session.run_statement(s, src);
          *wall = now_ns() - t0;
          if (!session.reports().empty()) rep = session.reports().back();
          session.reports().clear();
        });
        return ok;
      };
      auto disagree = [&](const WisconsinCell& c) {
        const WisconsinCell& f = row.cells[0];
        if (c.rows == f.rows && (c.rows_only || c.checksum == f.checksum)) return;
        *err += "quelkit wisconsin: " + c.runner + " disagrees with " + f.runner + " on " + row.id + where + ": " +
                std::to_string(c.rows) + " rows " + (c.rows_only ? "" : checksum_hex(c.checksum) + " ") + "vs " +
                std::to_string(f.rows) + " rows" + (c.rows_only ? "" : " " + checksum_hex(f.checksum)) + "\n";
        *mismatch = true;
      };

      // Cold: each run with the runner's plan cache cleared gives the
      // prepare cost a warm process pays, and checks the result. With no
      // cold runs (beyond the study's sizes) the first timed run does both:
      // the statement is new to the plan cache there (the relation is).
      for (size_t k = 0; k < nrunners; ++k) {
        WisconsinCell c;
        c.runner = session.runners()[k]->label();
        std::vector<double> prep;
        for (int r = 0; r < o.cold_runs; ++r) {
          restore();
          session.runners()[k]->cache().clear();
          uint64_t wall;
          if (!run_on(k, &wall)) {
            *err += "quelkit wisconsin: " + row.id + where + " failed on " + c.runner + ": " + errs.str();
            return false;
          }
          prep.push_back(double(rep.stats.prepare_ns));
          if (r == 0) {
            c.prepares = rep.stats.prepares;
            c.rows = rep.stats.rows_out;
            c.checksum = rep.stats.checksum;
            c.scanned = rep.stats.rows_scanned;
          }
        }
        if (!prep.empty()) c.prepare_ns = summarise(prep).median;
        if (!row.cells.empty() && o.cold_runs > 0) disagree(c);
        row.cells.push_back(c);
      }

      // Warm: what a user pays per execution. The clock the timing module
      // reads counts only the statement: the wall time of run_statement less
      // its prepare (none with a warm cache) and the checksum's verification
      // (on the one run that takes it), as the paper report keeps them off
      // the clock; restoring is not on it.
      // The plan cache is warm from the cold runs: the timing module's
      // calibration run is the warm-up (Timing::warmup 0 below).
      uint64_t counted = 0;
      std::string failed;  // the first failure of a timed run
      std::vector<std::function<void()>> timed;
      for (size_t k = 0; k < nrunners; ++k)
        timed.push_back([&, k] {
          restore();
          uint64_t wall;
          WisconsinCell& c = row.cells[k];
          // Only a run that gives the cell its answer takes the checksum
          // (the first, when no cold run did): between timed runs it is a
          // pass over every result row that the next run would start after.
          const bool answers = c.timed_runs == 0 && o.cold_runs == 0;
          session.set_verify(answers);
          const bool ran = run_on(k, &wall);
          session.set_verify(true);
          if (!ran) {
            if (failed.empty()) failed = row.id + where + " failed on " + c.runner + ": " + errs.str();
            return;
          }
          counted += wall - std::min(wall, rep.stats.prepare_ns + rep.stats.verify_ns);
          if (answers) {
            c.prepare_ns = double(rep.stats.prepare_ns);
            c.prepares = rep.stats.prepares;
            c.rows = rep.stats.rows_out;
            c.checksum = rep.stats.checksum;
            c.scanned = rep.stats.rows_scanned;
          }
          c.cache_hits = rep.stats.cache_hits;
          ++c.timed_runs;
          c.rows_min = std::min(c.rows_min, rep.stats.rows_out);
          c.rows_max = std::max(c.rows_max, rep.stats.rows_out);
        });

      if (!sql.empty()) {
        // SQLite: a change inside a transaction rolled back off the clock; a
        // temporary checked by reading it back (rows and checksum, off the
        // clock), an update by the rows it changed.
        WisconsinCell c;
        c.runner = "sqlite";
        c.kind = CellKind::Sqlite;
        std::string e;
        bool ok = true;
        if (changes || into) {
          uint64_t ch = 0;
          ok = db->exec("BEGIN", &ch, &e) && db->exec(sql, &ch, &e);
          if (ok && into) ok = db->run("SELECT * FROM " + s.relation, &c.rows, &c.checksum, &e);
          else c.rows = ch;
          c.rows_only = changes;
          uint64_t ig;
          db->exec("ROLLBACK", &ig, &e);
        } else {
          ok = db->run(sql, &c.rows, &c.checksum, &e);
        }
        if (!ok) {
          *err += "quelkit wisconsin: sqlite failed on " + row.id + where + " (" + sql + "): " + e + "\n";
          return false;
        }
        if (o.cold_runs > 0) disagree(c);
        row.cells.push_back(c);
        const size_t at = row.cells.size() - 1;
        // The timed runs store the rows and take no checksum (the cold run
        // above checked it): the checksum is off every clock.
        auto stored = std::make_shared<SqliteRows>();
        timed.push_back([&, at, changes, into, stored] {
          uint64_t n = 0, ig;
          std::string e2;
          if (changes || into) db->exec("BEGIN", &ig, &e2);
          const uint64_t t0 = now_ns();
          if (changes || into) db->exec(sql, &n, &e2);
          else if (db->execute(sql, stored.get(), &e2)) n = stored->rows();
          counted += now_ns() - t0;
          if (changes || into) db->exec("ROLLBACK", &ig, &e2);
          WisconsinCell& sc = row.cells[at];
          ++sc.timed_runs;
          if (!into) {
            sc.rows_min = std::min(sc.rows_min, n);
            sc.rows_max = std::max(sc.rows_max, n);
          }
        });
      }

      Timing timing = o.timing;
      timing.warmup = 0;
      if (changes) {
        // An update takes microseconds and copying its relation back far
        // longer: looping it to --min-time would spend the run restoring.
        // One run per repetition instead, five times as many repetitions.
        timing.min_seconds = 0;
        timing.reps *= 5;
      }
      std::vector<Measurement> ms = measure_interleaved(timed, timing, [&counted] { return counted; });
      if (!failed.empty()) {
        *err += "quelkit wisconsin: " + failed;
        return false;
      }
      // Timed: the repetitions' runs, not the calibrating run before them
      // (which the counter above saw too, and whose rows rows_min/max keep).
      for (size_t k = 0; k < ms.size(); ++k) {
        row.cells[k].timed_runs = uint64_t(ms[k].reps) * ms[k].iters;
        row.cells[k].m = std::move(ms[k]);
      }
      if (o.cold_runs == 0)
        for (size_t k = 1; k < row.cells.size(); ++k) disagree(row.cells[k]);
      // The statement's effect, for the statements after it: every run above
      // restored the state first and left its effect; SQLite's were rolled back.
      if (!sql.empty() && (changes || into)) {
        uint64_t ig;
        std::string e;
        if (!db->exec(sql, &ig, &e)) {
          *err += "quelkit wisconsin: sqlite failed on " + row.id + where + ": " + e + "\n";
          return false;
        }
      }
      for (auto& c : row.cells)
        if (c.kind == CellKind::Sqlite && into) c.rows_min = c.rows_max = c.rows;
      errs.str("");
      rows->push_back(std::move(row));
    }
  }
  return true;
}

}  // namespace quelkit
