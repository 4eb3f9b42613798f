// The generator tree (gtree.h): nodes, their copies and sizes, and the QUEL
// text every generated query is run as.
#include "difftest/gtree.h"

#include <cctype>

namespace quelkit::difftest {

GPtr GNode::clone() const {
  auto n = std::make_unique<GNode>();
  n->kind = kind;
  n->op = op;
  n->to = to;
  n->text = text;
  n->value = value;
  n->pattern = pattern;
  n->var = var;
  n->attr = attr;
  for (const auto& k : kids) n->kids.push_back(k->clone());
  return n;
}

int GNode::operators() const {
  int n = kind == Op ? 1 : 0;
  for (const auto& k : kids) n += k->operators();
  return n;
}

int GNode::size() const {
  int n = 1;
  for (const auto& k : kids) n += k->size();
  return n;
}

GPtr make_op(ir::Generic g, GPtr a, GPtr b) {
  auto n = std::make_unique<GNode>();
  n->kind = GNode::Op;
  n->op = g;
  if (a) n->kids.push_back(std::move(a));
  if (b) n->kids.push_back(std::move(b));
  return n;
}

GPtr make_cvt(Tk to, GPtr a) {
  GPtr n = make_op(ir::Generic::Cvt, std::move(a));
  n->to = to;
  return n;
}

GPtr make_attr(const std::string& var, const std::string& attr) {
  auto n = std::make_unique<GNode>();
  n->kind = GNode::Attr;
  n->var = var;
  n->attr = attr;
  return n;
}

QuelSpelling quel_spelling(ir::Generic g, Tk to) {
  if (g == ir::Generic::Cvt) return {type_info(to).convert_fn, false};
  return {ir::generic_info(g).quel, ir::generic_info(g).infix};
}

std::string quel_text(const GNode& n) {
  if (n.kind == GNode::Lit) return n.text;
  if (n.kind == GNode::Attr) return n.var + "." + n.attr;
  const QuelSpelling s = quel_spelling(n.op, n.to);
  std::vector<std::string> k;
  for (const auto& kid : n.kids) k.push_back(quel_text(*kid));
  if (!s.infix) {
    std::string t = std::string(s.text) + "(";
    for (size_t i = 0; i < k.size(); ++i) t += (i ? ", " : "") + k[i];
    return t + ")";
  }
  if (k.size() == 1) {
    // A keyword (`not`) needs a blank before its operand, a symbol (`-`) none.
    const bool word = std::isalpha(static_cast<unsigned char>(s.text[0]));
    return "(" + std::string(s.text) + (word ? " " : "") + k[0] + ")";
  }
  return "(" + k[0] + " " + s.text + " " + k[1] + ")";
}

GQuery GQuery::clone() const {
  GQuery q;
  q.kind = kind;
  q.vars = vars;
  for (const auto& [name, e] : targets) q.targets.emplace_back(name, e->clone());
  if (where) q.where = where->clone();
  q.update_var = update_var;
  q.append_to = append_to;
  return q;
}

int GQuery::operators() const {
  int n = where ? where->operators() : 0;
  for (const auto& t : targets) n += t.second->operators();
  return n;
}

std::string GQuery::ranges_text() const {
  std::string s;
  for (const auto& v : vars) s += "range of " + v.name + " is " + v.relation + "\n";
  return s;
}

std::string GQuery::statement_text() const {
  std::string s;
  auto list = [&] {
    std::string l = "(";
    for (size_t i = 0; i < targets.size(); ++i)
      l += (i ? ", " : "") + targets[i].first + " = " + quel_text(*targets[i].second);
    return l + ")";
  };
  switch (kind) {
    case Retrieve: s = "retrieve " + list(); break;
    case Append: s = "append to " + append_to + " " + list(); break;
    case Replace: s = "replace " + update_var + " " + list(); break;
    case Delete: s = "delete " + update_var; break;
  }
  if (where) s += "\nwhere " + quel_text(*where);
  return s + "\n";
}

}  // namespace quelkit::difftest
