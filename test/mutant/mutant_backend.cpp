// The mutant back end (mutant_backend.h).
#include "mutant_backend.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "engine/backend.h"

namespace quelkit::test {

using ir::Op;

Op mutated(Op op) {
  const ir::OpInfo& o = ir::op_info(op);
  for (int k = 1; k < ir::kNumOps; ++k) {
    Op c = Op((int(op) + k) % ir::kNumOps);
    const ir::OpInfo& x = ir::op_info(c);
    if (x.arity == o.arity && x.result == o.result && x.left == o.left && x.right == o.right &&
        x.generic != o.generic)
      return c;
  }
  return op;
}

namespace {

// Flips every `from` node of a tree to `to`, remembering which it flipped.
void flip(const ir::Node* n, Op from, Op to, std::vector<ir::Node*>& touched) {
  if (!n) return;
  if (n->op == from) {
    auto* w = const_cast<ir::Node*>(n);
    w->op = to;
    touched.push_back(w);
  }
  for (const auto& k : n->kid) flip(k.get(), from, to, touched);
}

// The plan is prepared with the broken operator in place of the real one,
// then given back unchanged (the harness owns it; nothing else reads it
// meanwhile). Editing in place rather than copying keeps the mutant right
// whatever fields Plan gains.
class MutantBackend final : public harness::Backend {
 public:
  MutantBackend(std::unique_ptr<harness::Backend> inner, Op broken) : inner_(std::move(inner)), broken_(broken) {}
  bool reuses_plans() const override { return inner_->reuses_plans(); }
  std::unique_ptr<harness::Prepared> prepare(const harness::Plan& p, const uint8_t* params) override {
    std::vector<ir::Node*> touched;
    const Op to = mutated(broken_);
    flip(p.qual.get(), broken_, to, touched);
    flip(p.qual_folded.get(), broken_, to, touched);
    for (const auto& t : p.targets) flip(t.get(), broken_, to, touched);
    for (const auto& t : p.targets_folded) flip(t.get(), broken_, to, touched);
    auto prepared = inner_->prepare(p, params);
    for (ir::Node* n : touched) n->op = broken_;
    return prepared;
  }

 private:
  std::unique_ptr<harness::Backend> inner_;
  Op broken_;
};

}  // namespace

std::string register_mutant(Op broken, const std::string& inner) {
  std::string mode = lowercase(ir::op_name(broken));
  if (!harness::find_backend("mutant")) {
    const harness::BackendSpec* in = harness::find_backend(inner);
    std::string in_mode = in->modes.front().name;
    auto make = in->make;
    harness::register_backend(harness::BackendSpec{
        "mutant", {{mode, harness::has_page_kernel(inner, in_mode)}}, {},
        [make, in_mode, broken](const std::string&, const harness::PrepareOptions& po) {
          return std::unique_ptr<harness::Backend>(std::make_unique<MutantBackend>(make(in_mode, po), broken));
        }});
  }
  return "mutant:" + mode;
}

}  // namespace quelkit::test
