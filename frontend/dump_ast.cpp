// --dump=ast: a statement as one line of S-expression text, operators in
// prefix form so precedence and associativity are visible at a glance:
//   retrieve (x = -2**2) where not p.a = 1  ->
//   (retrieve (targets (x (- (** 2 2)))) (where (not (= p.a 1))))
#include <charconv>

#include "frontend/frontend.h"

namespace quelkit::frontend {

namespace {

std::string escape_quotes(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"') out += '\\';
    out += c;
  }
  return out;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Floats always show a '.' or an exponent, so 1.0 and the integer 1 differ.
std::string float_text(double v) {
  char buf[40];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

void expr(const ast::Expr& e, std::string& out) {
  switch (e.kind) {
    case ast::Expr::Int: out += std::to_string(e.ival); return;
    case ast::Expr::Float: out += float_text(e.fval); return;
    case ast::Expr::String: out += '"' + escape_quotes(e.text) + '"'; return;  // its escapes as written
    case ast::Expr::Attr: out += e.text + "." + e.attr; return;
    case ast::Expr::Unary:
    case ast::Expr::Binary:
    case ast::Expr::Call:
      out += '(';
      out += e.kind == ast::Expr::Call ? e.text : e.op;
      for (const auto& a : e.args) {
        out += ' ';
        expr(*a, out);
      }
      out += ')';
      return;
    case ast::Expr::Value:
      out += "(value " + type_name(e.value_type) + ' ';
      if (e.value_type.is_int()) out += std::to_string(e.ival);
      else if (e.value_type.is_float()) out += float_text(e.fval);
      else out += quoted(e.text);
      out += ')';
      return;
    case ast::Expr::Aggregate:
      out += '(' + e.text + ' ';
      expr(*e.args[0], out);
      if (!e.by.empty()) {
        out += " (by";
        for (const auto& b : e.by) {
          out += ' ';
          expr(*b, out);
        }
        out += ')';
      }
      if (e.qual) {
        out += " (where ";
        expr(*e.qual, out);
        out += ')';
      }
      out += ')';
      return;
  }
}

void targets(const ast::Stmt& s, std::string& out) {
  out += " (targets";
  for (const auto& t : s.targets) {
    out += " (" + t.name + ' ';
    expr(*t.expr, out);
    out += ')';
  }
  out += ')';
}

void where(const ast::Stmt& s, std::string& out) {
  if (!s.where) return;
  out += " (where ";
  expr(*s.where, out);
  out += ')';
}

void columns(const ast::Stmt& s, std::string& out) {
  for (const auto& c : s.columns) out += " (" + c.name + ' ' + c.format + ')';
}

}  // namespace

const char* ast::statement_word(ast::Stmt::Kind k) {
  using ast::Stmt;
  switch (k) {
    case Stmt::Range: return "range";
    case Stmt::Retrieve: return "retrieve";
    case Stmt::Create: return "create";
    case Stmt::Append: return "append";
    case Stmt::Delete: return "delete";
    case Stmt::Replace: return "replace";
    case Stmt::Copy: return "copy";
    case Stmt::Modify: return "modify";
    case Stmt::Destroy: return "destroy";
    case Stmt::Print: return "print";
    case Stmt::Help: return "help";
    case Stmt::Begin: return "begin";
    case Stmt::End: return "end";
    case Stmt::Abort: return "abort";
    case Stmt::Save: return "save";
    case Stmt::Index: return "index";
    case Stmt::Define: return "define";
    case Stmt::Include: return "\\i";
  }
  return "?";
}

std::string dump_ast(const ast::Stmt& s) {
  std::string out = "(";
  switch (s.kind) {
    case ast::Stmt::Range:
      out += "range " + s.var + ' ' + s.relation;
      break;
    case ast::Stmt::Retrieve:
      out += "retrieve";
      if (s.unique) out += " unique";
      if (!s.relation.empty()) out += " (into " + s.relation + ')';
      targets(s, out);
      where(s, out);
      if (!s.sort.empty()) {
        out += " (sort";
        for (const auto& k : s.sort) out += ' ' + k.name + (k.descending ? ":d" : ":a");
        out += ')';
      }
      break;
    case ast::Stmt::Create:
      out += "create " + s.relation;
      columns(s, out);
      break;
    case ast::Stmt::Append:
      out += "append " + s.relation;
      targets(s, out);
      where(s, out);
      break;
    case ast::Stmt::Delete:
      out += "delete " + s.var;
      where(s, out);
      break;
    case ast::Stmt::Replace:
      out += "replace " + s.var;
      targets(s, out);
      where(s, out);
      break;
    case ast::Stmt::Copy:
      out += "copy " + s.relation;
      columns(s, out);
      out += (s.copy_into ? " into " : " from ") + quoted(s.file);
      if (s.copy_ingres) out += " with ingres";
      break;
    case ast::Stmt::Modify:
      out += "modify " + s.relation + ' ' + s.structure;
      if (!s.keys.empty()) {
        out += " (on";
        for (const auto& k : s.keys) out += ' ' + k.name + (k.descending ? ":d" : "");
        out += ')';
      }
      if (s.fillfactor) out += " (fillfactor " + std::to_string(s.fillfactor) + ')';
      if (s.minpages) out += " (minpages " + std::to_string(s.minpages) + ')';
      if (s.maxpages) out += " (maxpages " + std::to_string(s.maxpages) + ')';
      break;
    case ast::Stmt::Destroy:
    case ast::Stmt::Print:
      out += s.kind == ast::Stmt::Destroy ? "destroy" : "print";
      if (!s.define_what.empty()) out += ' ' + s.define_what;
      for (const auto& r : s.relations) out += ' ' + r;
      break;
    case ast::Stmt::Help:
      out += "help";
      if (!s.help_what.empty()) out += ' ' + s.help_what;
      for (const auto& h : s.help_items) out += ' ' + (h.section ? quoted(h.name) : h.name);
      break;
    case ast::Stmt::Save: out += "save " + s.relation + " until " + s.save_until; break;
    case ast::Stmt::Index: {
      out += "index on " + s.relation + " is " + s.index_name + " (";
      for (size_t i = 0; i < s.keys.size(); ++i) out += (i ? ", " : "") + s.keys[i].name;
      out += ")";
      break;
    }
    case ast::Stmt::Define:
      out += "define " + s.define_what + ' ' + (s.define_what == "view" ? s.relation : s.var);
      break;
    case ast::Stmt::Begin:
    case ast::Stmt::End:
    case ast::Stmt::Abort: out += ast::statement_word(s.kind); break;
    case ast::Stmt::Include: out += "include " + s.file; break;
  }
  return out + ")";
}

}  // namespace quelkit::frontend
