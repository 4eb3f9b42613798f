// Reading and running corpus files (corpus.h).
#include "difftest/corpus.h"

#include <algorithm>
#include <string_view>
#include <filesystem>
#include <optional>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "frontend/frontend.h"
#include "storage/checksum.h"
#include "bench/workloads/parts.h"
#include "bench/workloads/wisconsin.h"
#include "difftest/twin.h"
#include "engine/aggregate.h"
#include "engine/limits.h"
#include "engine/session.h"

namespace quelkit::difftest {

namespace {

std::string trim(std::string s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

uint32_t line_of(const std::string& text, size_t off) {
  return uint32_t(1 + std::count(text.begin(), text.begin() + long(std::min(off, text.size())), '\n'));
}

struct Actual {
  bool parsed = true, ran = false, ok = false;
  std::string out, error;  // error: "L:C: message"
  std::string disagree;    // the session's "back ends disagree", with the answers it lists
  std::string missing;     // a back end that could not run the statement, and why
  uint64_t rows = 0, checksum = 0;
  bool reported = false;  // rows/checksum came from the statement's reports
  std::vector<std::string> setup_failures;
  std::string cache_off;   // a back end whose answer with the plan cache differs from its answer without
};

// `NAME:L:C: error: MSG` -> `L:C: MSG`.
std::string error_line(const std::string& err, const std::string& name) {
  std::string first = err.substr(0, err.find('\n'));
  if (first.compare(0, name.size() + 1, name + ":") == 0) first = first.substr(name.size() + 1);
  if (auto p = first.find(": error: "); p != std::string::npos) first = first.substr(0, p) + ": " + first.substr(p + 9);
  else if (first.compare(0, 7, "error: ") == 0) first = first.substr(7);
  return first;
}

std::string checksum_block(const Actual& a) {
  return "/*= checksum " + std::to_string(a.rows) + " " + harness::checksum_hex(a.checksum) + " */";
}

// The expectation that says what ran, or "" where none can: a block's text
// cannot hold "*/" (the format has no escape; its comment would end there),
// so rows or a message holding it are written as their checksum, and an
// error holding it is not written at all.
std::string format_block(const CorpusCase& c, const Actual& a) {
  auto fits = [](const std::string& body) { return body.find("*/") == std::string::npos; };
  if (!a.ok) return fits(a.error) ? "/*= error " + a.error + " */" : "";
  if (c.kind == "ok") return "/*= ok */";
  if (c.kind == "checksum") return checksum_block(a);
  std::string out = a.out;
  if (!out.empty() && out.back() == '\n') out.pop_back();
  if (!fits(out)) return a.reported ? checksum_block(a) : "";
  std::string kind = c.kind == "out" || (c.kind != "rows" && out.size() && out[0] == '(') ? "out" : "rows";
  return "/*= " + kind + "\n" + out + "\n*/";
}

// A wrong answer: both in full where they are short; where they are long,
// the first line that differs, by its line in the file, and the sizes (a
// table of hundreds of rows printed twice hid the one wrong value).
std::string wrong_answer(const CorpusCase& c, const std::string& got) {
  const bool lines = c.kind == "rows" || c.kind == "out";
  if (!lines) return "expected " + c.kind + " " + c.expected + "\nbut got " + got;
  auto split = [](std::string_view text) {
    std::vector<std::string_view> v;
    for (size_t at = 0; at <= text.size();) {
      const size_t nl = std::min(text.find('\n', at), text.size());
      v.push_back(text.substr(at, nl - at));
      at = nl + 1;
    }
    return v;
  };
  const auto want = split(c.expected);
  constexpr size_t kShort = 20;
  if (got.rfind(c.kind + "\n", 0) != 0)  // an error, not lines
    return "expected " + c.kind + (want.size() > 2 * kShort ? " of " + std::to_string(want.size()) + " lines" : "\n" + c.expected) +
           "\nbut got " + got;
  const auto have = split(std::string_view(got).substr(c.kind.size() + 1));
  if (want.size() + have.size() <= 2 * kShort) return "expected " + c.kind + "\n" + c.expected + "\nbut got " + got;
  size_t k = 0;
  while (k < want.size() && k < have.size() && want[k] == have[k]) ++k;
  auto line = [](const std::vector<std::string_view>& v, size_t i) {
    return i < v.size() ? "'" + std::string(v[i]) + "'" : std::string("nothing (it ends before)");
  };
  return "expected " + c.kind + " of " + std::to_string(want.size()) + " lines, got " + std::to_string(have.size()) +
         "; the first difference is at line " + std::to_string(c.line + 1 + k) + ": expected " + line(want, k) +
         ", got " + line(have, k) + " (--rewrite writes the whole answer)";
}

// The plan-reuse net before statement `index` of src runs (CorpusNet): its
// literal twin evaluated on every runner, then the statement on each
// cache-off runner, whose answers are returned. Nothing where the statement
// has no expression, holds aggregates or does not bind (its error is the
// case's, said when it runs).
std::vector<harness::Result> reuse_net_before(harness::Session& session, size_t begin, const SourceRef& src,
                                              size_t index, const CorpusNet& net,
                                              const std::vector<std::unique_ptr<harness::Runner>>& cache_off,
                                              CorpusReport* rep) {
  using frontend::ast::Stmt;
  std::vector<harness::Result> off;
  auto stmts = frontend::parse(src);  // a copy of the statement, to bind and to change
  const Stmt& typed = *stmts[index];
  if ((typed.kind != Stmt::Retrieve && typed.kind != Stmt::Append && typed.kind != Stmt::Replace &&
       typed.kind != Stmt::Delete))
    return off;
  // As query modification rewrites it (views, integrity, permits), as the
  // session will run it; its twin only where nothing was rewritten (a
  // view's literals are not the text's).
  harness::Session::Modified mod;
  try {
    mod = session.modify(typed, src);
  } catch (QuelError&) {
    return off;
  }
  Stmt& s = mod.stmt ? *mod.stmt : *stmts[index];
  if (harness::has_aggregates(s)) return off;
  std::optional<frontend::BoundQuery> q;
  try {
    q = frontend::bind(s, session.ranges(), session.catalog(), src);
  } catch (QuelError&) {
    return off;
  }
  if (net.twins && !mod.stmt && twin_literals(s, twin_salt(src->text().substr(begin, s.end - begin))) > 0) {
    try {
      const frontend::BoundQuery t = frontend::bind(s, session.ranges(), session.catalog(), src);
      // Only where a plan can outlive it: a back end without plan reuse
      // prepares the statement afresh whatever ran before.
      bool ran = false;
      for (auto& r : session.runners())
        if (r->reuses()) {
          session.evaluate(t, *r, src, false);
          ran = true;
        }
      rep->twins += ran;
    } catch (QuelError&) {
      // A twin the binder refuses (a value out of its column's range): none.
    }
  }
  if (net.cache_off) {
    for (auto& r : cache_off) off.push_back(session.evaluate(*q, *r, src, false));
    ++rep->cache_off;
  }
  return off;
}

// The case's statement `s` alone in `text` (the others blanked, lines kept)
// and its text twin: each literal the statement cache's scan finds given
// another value of the type it binds to (twin.h). Empty where the text
// has no literal the cache would take.
std::pair<std::string, std::string> text_and_twin(const std::string& text, const frontend::ast::Stmt& s) {
  std::string alone = text.substr(0, s.end);
  for (size_t i = 0; i < s.begin; ++i)
    if (alone[i] != '\n') alone[i] = ' ';
  const std::optional<harness::NormalisedText> n = harness::normalise_text(alone);
  if (!n || n->literals.empty()) return {};
  const uint64_t salt = twin_salt(alone.substr(s.begin));
  std::string twin;
  size_t at = 0, line_start = 0;
  uint32_t line = 1;
  for (const harness::TextLiteral& l : n->literals) {
    for (; line < l.pos.line; ++line) line_start = alone.find('\n', line_start) + 1;
    const size_t b = line_start + l.pos.col - 1;
    twin += alone.substr(at, b - at);
    switch (l.kind) {
      case harness::TextLiteral::Int: twin += std::to_string(other_int(l.ival, salt)); break;
      case harness::TextLiteral::Float: twin += float_text(other_float(l.fval, salt)); break;
      case harness::TextLiteral::String: {
        twin += '"';
        for (char c : other_chars(l.text, salt)) twin += c == '"' ? std::string("\\\"") : std::string(1, c);
        twin += '"';
        break;
      }
    }
    at = b + l.len;
  }
  twin += alone.substr(at);
  return {alone, twin};
}

// How a statement's answers with the plan cache (its reports from `first`
// on) differ from `off`, the cache-off runners' ("" where they agree).
std::string cache_off_difference(harness::Session& session, size_t first, const std::vector<harness::Result>& off) {
  for (size_t k = 0; k < off.size(); ++k) {
    const harness::StmtReport& on = session.reports()[first + k];
    const harness::Result& x = off[k];
    if (harness::could_not_run(x)) continue;
    auto said = [](bool ok, const std::string& error, uint64_t rows, uint64_t sum) {
      return ok ? "checksum " + std::to_string(rows) + " " + harness::checksum_hex(sum) : "error " + error;
    };
    const std::string with = said(on.error.empty(), on.error, on.stats.rows_out, on.stats.checksum);
    const std::string without = said(x.ok, x.ok ? "" : x.error.format(), x.stats.rows_out, x.stats.checksum);
    if (with != without)
      return "plan cache on and off disagree: " + session.runners()[k]->label() + " gives " + with +
             " with the plan cache, " + without + " with --no-plan-cache";
  }
  return "";
}

}  // namespace

CorpusFile parse_corpus(const std::string& name, const std::string& text) {
  CorpusFile f;
  f.name = name;
  f.text = text;
  size_t case_begin = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\' && i + 1 < text.size()) ++i;
      else if (c == '"' || c == '\n') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    if (c != '/' || i + 1 >= text.size() || text[i + 1] != '*') continue;
    size_t close = text.find("*/", i + 2);
    if (close == std::string::npos) throw std::runtime_error(name + ":" + std::to_string(line_of(text, i)) + ": unterminated comment");
    const size_t end = close + 2;
    std::string body = text.substr(i + 3, close - i - 3);
    if (i + 2 < text.size() && text[i + 2] == '!') {
      std::string d = trim(body);
      std::string key = d.substr(0, d.find(' ')), val = trim(d.substr(key.size()));
      // Checked as the command line checks --parts, --page-size and
      // --wisconsin, and said with the directive's line.
      const std::string at = name + ":" + std::to_string(line_of(text, i)) + ": ";
      std::string why;
      // One of each, as each option may be given once.
      if ((key == "parts" && !f.parts.empty()) || (key == "page-size" && f.page_size) ||
          (key == "wisconsin" && !f.wisconsin.empty()))
        throw std::runtime_error(at + "a second " + key + " directive (one of each in a file)");
      if (key == "parts") {
        if (!harness::parse_parts_spec(val, &f.parts_spec.emplace(), &why))
          throw std::runtime_error(at + "parts directive: " + why);
        f.parts = val;
      } else if (key == "page-size") {
        if (val.empty() || val.size() > 5 || val.find_first_not_of("0123456789") != std::string::npos ||
            std::stoul(val) < 64 || std::stoul(val) > harness::kMaxPageSize)
          throw std::runtime_error(at + "page-size directive: a whole number of bytes from 64 to 65536, not '" + val + "'");
        f.page_size = uint32_t(std::stoul(val));
      } else if (key == "wisconsin") {
        if (!harness::parse_wisconsin_spec(val, &f.wisconsin_spec.emplace(), &why))
          throw std::runtime_error(at + "wisconsin directive: " + why);
        f.wisconsin = val;
      } else {
        throw std::runtime_error(at + "unknown directive '" + key + "'");
      }
    } else if (i + 2 < text.size() && text[i + 2] == '=') {
      CorpusCase cc;
      cc.begin = case_begin;
      cc.end = i;
      cc.exp_begin = i;
      cc.exp_end = end;
      cc.line = line_of(text, i);
      size_t nl = body.find('\n');
      std::string head = trim(body.substr(0, nl));
      cc.kind = head.substr(0, head.find(' '));
      std::string rest = trim(head.substr(cc.kind.size()));
      if (cc.kind == "rows" || cc.kind == "out") {
        if (!rest.empty() || nl == std::string::npos)
          throw std::runtime_error(name + ":" + std::to_string(cc.line) + ": '" + cc.kind +
                                   "' takes the expected lines on the following lines");
        std::string lines = body.substr(nl + 1);
        // The closing */ stands on its own line.
        if (!lines.empty() && lines.back() == '\n') lines.pop_back();
        cc.expected = lines;
      } else if (cc.kind == "error" || cc.kind == "checksum") {
        if (nl != std::string::npos && !trim(body.substr(nl)).empty())
          throw std::runtime_error(name + ":" + std::to_string(cc.line) + ": '" + cc.kind + "' is one line");
        cc.expected = rest;
        // A checksum that no run can give is a mistake in the file, said as
        // one, not a failing case: ROWS and 16 hex digits.
        const size_t sp = rest.find(' ');
        auto digits = [](const std::string& s, const char* set) {
          return !s.empty() && s.find_first_not_of(set) == std::string::npos;
        };
        // `checksum ?`: a placeholder that --rewrite fills with a checksum
        // however short the rows (the storage reproducer's, which compares
        // two statements' checksums).
        if (cc.kind == "checksum" && rest != "?" && (sp == std::string::npos || !digits(rest.substr(0, sp), "0123456789") ||
                                      rest.size() - sp - 1 != 16 || !digits(rest.substr(sp + 1), "0123456789abcdef")))
          throw std::runtime_error(name + ":" + std::to_string(cc.line) + ": 'checksum' takes ROWS and 16 hex digits ("
                                   "checksum 3 00c0ffee00c0ffee), not '" + rest + "'");
      } else if (cc.kind == "ok" || cc.kind == "?") {
      } else {
        throw std::runtime_error(name + ":" + std::to_string(cc.line) + ": unknown expectation '" + cc.kind +
                                 "' (rows out error checksum ok)");
      }
      f.cases.push_back(cc);
      case_begin = end;
    }
    i = end - 1;
  }
  CorpusCase tail;
  tail.begin = case_begin;
  tail.end = tail.exp_begin = tail.exp_end = text.size();
  tail.line = line_of(text, case_begin);
  f.cases.push_back(tail);
  return f;
}

CorpusFile load_corpus(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  // Read as a script is, within its limits (frontend/source.h).
  std::string text;
  std::optional<Source::Cut> cut;
  if (!read_text(in, &text, &cut)) throw std::runtime_error(path + ": cannot read");
  if (cut) throw std::runtime_error(path + ": " + cut->message);
  // A file saved with CR LF line ends reads as one with LF: an expectation's
  // rows would otherwise differ from the answer by a CR no one can see.
  if (text.find("\r\n") != std::string::npos) {
    std::string lf;
    lf.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i)
      if (!(text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n')) lf += text[i];
    text = std::move(lf);
  }
  return parse_corpus(path, text);
}

std::vector<std::string> corpus_files(const std::string& dir) {
  std::vector<std::string> v;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".quel") v.push_back(e.path().string());
  std::sort(v.begin(), v.end());
  return v;
}

CorpusReport run_corpus(const CorpusFile& f, const std::string& backends, const harness::PrepareOptions& prepare,
                        const CorpusNet& net) {
  CorpusReport rep;
  std::ostringstream out, err;
  harness::SessionOptions o;
  o.backends = harness::parse_backend_list(backends);
  o.prepare = prepare;
  o.runner.plan_cache = net.plan_cache;
  o.runner.reformat = net.reformat;
  o.format = harness::OutFormat::Csv;
  if (f.page_size) o.page_size = f.page_size;
  harness::Session session(o, out, err);
  session.set_messages(out);  // an `out` expectation is the statement's message
  const size_t nrunners = session.runners().size();
  const bool reuse_net = net.plan_cache && (net.twins || net.cache_off);
  std::vector<std::unique_ptr<harness::Runner>> cache_off;
  if (reuse_net && net.cache_off) cache_off = cache_off_runners(session);
  if (const auto& ps = f.parts_spec) session.catalog().add(harness::make_parts(ps->rows, ps->wide, ps->s, o.page_size));
  if (f.wisconsin_spec)
    for (auto& rel : harness::make_wisconsin(*f.wisconsin_spec, o.page_size)) session.catalog().add(std::move(rel));
  auto fail = [&](uint32_t line, const std::string& what, bool mendable = false) {
    rep.failures.push_back(f.name + ":" + std::to_string(line) + ": " + what);
    if (mendable) ++rep.stale;
    else rep.unmendable.push_back(rep.failures.back());
  };
  std::string rewritten;
  size_t copied = 0;
  for (const auto& c : f.cases) {
    // The case's text at its place in the file, so errors carry file positions.
    std::string text = f.text.substr(0, c.end);
    for (size_t i = 0; i < c.begin; ++i)
      if (text[i] != '\n') text[i] = ' ';
    auto src = std::make_shared<Source>(f.name, text);
    Actual a;
    std::vector<frontend::ast::StmtPtr> stmts;
    try {
      stmts = frontend::parse(src);
    } catch (QuelError& e) {
      a.parsed = false;
      a.ran = true;
      a.error = error_line(e.err.format(), f.name);
    }
    for (size_t i = 0; i < stmts.size(); ++i) {
      // The statement cache's net: the case's statement as a text of its
      // own, after its text twin ran (and was taken back) in a transaction.
      std::shared_ptr<Source> alone;
      using frontend::ast::Stmt;
      const Stmt& last = *stmts[i];
      const bool cacheable = (last.kind == Stmt::Append || last.kind == Stmt::Replace || last.kind == Stmt::Delete ||
                              (last.kind == Stmt::Retrieve && last.relation.empty())) &&
                             !harness::has_aggregates(last);
      if (net.text_twins && net.plan_cache && cacheable && i + 1 == stmts.size() && !session.in_transaction()) {
        auto [text_alone, twin] = text_and_twin(text, *stmts[i]);
        if (!twin.empty()) {
          session.run(std::make_shared<Source>(f.name, "begin"));
          session.run(std::make_shared<Source>(f.name, twin));
          session.run(std::make_shared<Source>(f.name, "abort"));
          alone = std::make_shared<Source>(f.name, text_alone);
          ++rep.text_twins;
        }
      }
      out.str("");
      err.str("");
      const size_t nreports = session.reports().size();
      // The case's statement before it runs: its twin, and its answers with
      // the plan cache off (evaluated, nothing applied).
      std::vector<harness::Result> off;
      if (reuse_net && i + 1 == stmts.size()) {
        // An exact expectation is the statement's answer with no plan of
        // another statement's: the cache-off run it stands for, written
        // down. The others (ok, placeholders, none) get the run itself.
        const bool exact = c.exp_end > c.exp_begin && c.kind != "ok" && c.kind != "?" && c.expected != "?";
        CorpusNet n = net;
        n.cache_off = net.cache_off && !exact;
        off = reuse_net_before(session, stmts[i]->begin, src, i, n, cache_off, &rep);
      }
      bool ok = alone ? session.run(alone) : session.run_statement(*stmts[i], src);
      if (alone && session.reports().size() > nreports) {
        const harness::StatementCacheUse use = session.reports().back().stats.statement_cache;
        if (use == harness::StatementCacheUse::Parse || use == harness::StatementCacheUse::Bind ||
            use == harness::StatementCacheUse::Plan)
          ++rep.text_twin_hits;
        else fail(c.line, "the statement cache: the case's text did not find its text twin's entry");
      }
      std::string e = err.str();
      if (auto p = e.find("back ends disagree"); p != std::string::npos) {
        // The line and what it lists under it, indented ("different errors:"
        // and both errors): the line alone named neither.
        size_t b = e.rfind('\n', p);
        b = b == std::string::npos ? 0 : b + 1;
        size_t end = e.find('\n', p);
        while (end != std::string::npos && e.compare(end + 1, 2, "  ") == 0) end = e.find('\n', end + 1);
        const std::string text = e.substr(b, end == std::string::npos ? std::string::npos : end - b);
        a.disagree = error_line(text, f.name) + text.substr(std::min(text.find('\n'), text.size()));
      }
      if (auto p = e.find(" could not run the statement; "); p != std::string::npos) {
        // An answer missing, not one differing (gccjit without its
        // toolchain): the session's note, which names who ran, and the
        // error before it, which says why.
        const size_t b = e.rfind('\n', p) + 1;  // the note opens its line: "(X could not run ..."
        std::string why;
        for (size_t at = 0, nl; (nl = e.find('\n', at)) != std::string::npos && at < b; at = nl + 1)
          if (e.compare(at, 2, "  ") != 0 && e.find(": error: ", at) < nl) why = error_line(e.substr(at), f.name);
        a.missing = e.substr(b + 1, e.find(')', p) - b - 1) + ": " + why;
      }
      if (i + 1 < stmts.size()) {
        if (!ok) a.setup_failures.push_back(error_line(e, f.name));
        continue;
      }
      if (!off.empty() && session.reports().size() >= nreports + nrunners)
        a.cache_off = cache_off_difference(session, nreports, off);
      a.ran = true;
      a.ok = ok;
      a.out = out.str();
      if (!ok) {
        // Skip a leading disagreement line: the error proper follows it.
        std::string rest = e;
        if (!a.disagree.empty() && rest.find("back ends disagree") != std::string::npos) rest = rest.substr(rest.find('\n') + 1);
        a.error = error_line(rest, f.name);
      }
      const auto& reps = session.reports();
      if (reps.size() >= nreports + nrunners) {
        const auto& r0 = reps[nreports];
        a.rows = r0.stats.rows_out;
        a.checksum = r0.stats.checksum;
        a.reported = true;
      }
    }
    for (const auto& s : a.setup_failures) fail(c.line, "a statement before the case failed: " + s);
    if (!a.cache_off.empty()) fail(c.line, a.cache_off);
    const bool has_exp = c.exp_end > c.exp_begin;
    if (!a.disagree.empty() || !a.missing.empty()) {
      // No one answer to hold against the expectation: said once, the case
      // failed (its first answer compared as well read as a second failure).
      if (has_exp && a.ran) ++rep.cases;
      fail(c.line, !a.disagree.empty() ? a.disagree : a.missing);
      continue;
    }
    if (!has_exp) {
      // The line its text starts on, not the end of the expectation before it.
      const size_t first = std::min(f.text.find_first_not_of(" \t\r\n", c.begin), c.end);
      if (a.ran && !a.ok) {
        fail(line_of(f.text, first), "statement without an expectation failed: " + a.error);
        ++rep.uncased;
      }
      continue;
    }
    ++rep.cases;
    if (!a.ran) {
      fail(c.line, "expectation without a statement");
      continue;
    }
    const std::string block = format_block(c, a);
    // (Where no block can say it, the expectation stays: the file is not rewritten.)
    rewritten += f.text.substr(copied, c.exp_begin - copied) +
                 (block.empty() ? f.text.substr(c.exp_begin, c.exp_end - c.exp_begin) : block);
    copied = c.exp_end;
    if (block.empty())
      fail(c.line, "what ran holds '*/', which no expectation can hold (it would end the comment)" +
                       (a.ok ? std::string() : ": error " + a.error));
    bool pass = false;
    std::string got;
    if (c.kind == "error") {
      pass = !a.ok && a.error == c.expected;
      got = a.ok ? "it succeeded" : "error " + a.error;
    } else if (!a.ok) {
      got = "error " + a.error;
    } else if (c.kind == "ok") {
      pass = true;
    } else if (c.kind == "checksum" && !a.reported) {
      // Defaults of 0 would pass `checksum 0 0000000000000000` unseen.
      got = "no report of the statement's rows and checksum";
    } else if (c.kind == "checksum") {
      std::string s = std::to_string(a.rows) + " " + harness::checksum_hex(a.checksum);
      pass = s == c.expected;
      got = "checksum " + s;
    } else if (c.kind == "rows" || c.kind == "out") {
      std::string o2 = a.out;
      if (!o2.empty() && o2.back() == '\n') o2.pop_back();
      pass = o2 == c.expected;
      got = c.kind + "\n" + o2;
    }
    if (pass && a.disagree.empty() && a.setup_failures.empty() && a.cache_off.empty()) {
      ++rep.passed;
    } else if (c.kind == "?" || (c.kind == "checksum" && c.expected == "?")) {
      // A placeholder expects nothing yet: say what --rewrite would put there.
      if (!block.empty())
        fail(c.line, "/*= " + std::string(c.kind == "?" ? "?" : "checksum ?") +
                         " */ is still to fill (--rewrite writes what ran): " + block,
             true);
    } else if (!pass) {
      fail(c.line, wrong_answer(c, got), true);
    }
  }
  rep.rewritten = rewritten + f.text.substr(copied);
  return rep;
}

}  // namespace quelkit::difftest
