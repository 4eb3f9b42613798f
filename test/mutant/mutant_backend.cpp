// The mutant back end (mutant_backend.h).
#include "mutant_backend.h"

#include <algorithm>
#include <cctype>
#include <cstring>
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

// A plan held with the literal slots of the block it was prepared with. Each
// entry point runs the inner one on a block whose bytes before literal_at
// (the substitution's) are the call's and whose literal slots are the
// prepare's: ctx->plan and ctx->params are swapped for the call.
class StalePrepared final : public harness::Prepared {
 public:
  StalePrepared(std::unique_ptr<harness::Prepared> inner, const harness::Plan& p, const uint8_t* params)
      : inner_(std::move(inner)), at_(p.literal_at) {
    block_.resize(p.literal_at + p.literal_block.size());
    if (params) std::memcpy(block_.data(), params, block_.size());
  }
  harness::Entries entries(harness::Use use, harness::Selection s) override {
    e_ = inner_->entries(use, s);
    times = inner_->times;
    harness::Entries w = e_;
    w.state = this;
    if (e_.qualify) w.qualify = [](const uint8_t* t, qk_ctx* c) { return Swap(c).self->e_.qualify(t, c); };
    if (e_.project)
      w.project = [](const uint8_t* t, uint8_t* row, qk_ctx* c) { return Swap(c).self->e_.project(t, row, c); };
    if (e_.page) w.page = [](const uint8_t* pg, uint8_t* rows, qk_ctx* c) { return Swap(c).self->e_.page(pg, rows, c); };
    if (e_.pages)
      w.pages = [](const uint8_t* const* pgs, uint32_t n, uint8_t* rows, qk_ctx* c) {
        return Swap(c).self->e_.pages(pgs, n, rows, c);
      };
    return w;
  }

 private:
  // For one call: the inner plan's state and the stale block in ctx.
  struct Swap {
    explicit Swap(qk_ctx* c) : ctx(c), self(static_cast<StalePrepared*>(c->plan)), params(c->params) {
      if (self->at_ && params) std::memcpy(self->block_.data(), params, self->at_);
      ctx->plan = self->e_.state;
      if (!self->block_.empty()) ctx->params = self->block_.data();
    }
    ~Swap() {
      ctx->plan = self;
      ctx->params = params;
    }
    qk_ctx* ctx;
    StalePrepared* self;
    const uint8_t* params;
  };

  std::unique_ptr<harness::Prepared> inner_;
  uint32_t at_;
  std::vector<uint8_t> block_;
  harness::Entries e_;
};

class StaleBackend final : public harness::Backend {
 public:
  explicit StaleBackend(std::unique_ptr<harness::Backend> inner) : inner_(std::move(inner)) {}
  bool reuses_plans() const override { return inner_->reuses_plans(); }
  std::unique_ptr<harness::Prepared> prepare(const harness::Plan& p, const uint8_t* params) override {
    return std::make_unique<StalePrepared>(inner_->prepare(p, params), p, params);
  }

 private:
  std::unique_ptr<harness::Backend> inner_;
};

}  // namespace

std::string register_stale_literals(const std::string& inner) {
  if (!harness::find_backend("stale")) {
    const harness::BackendSpec* in = harness::find_backend(inner);
    std::string in_mode = in->modes.front().name;
    auto make = in->make;
    harness::register_backend(harness::BackendSpec{
        "stale", {{"literals", harness::has_page_kernel(inner, in_mode)}}, {},
        [make, in_mode](const std::string&, const harness::PrepareOptions& po) {
          return std::unique_ptr<harness::Backend>(std::make_unique<StaleBackend>(make(in_mode, po)));
        }});
  }
  return "stale:literals";
}

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
