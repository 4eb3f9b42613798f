// The "vector" back end: prepare = lower the folded plan into a program of
// primitives (no parameter values are read: one Prepared serves every
// parameter block), run = the program over batches of a page's tuples, or
// over a batch of one for the harness's tuple-at-a-time entry points.
#include <ostream>

#include "vector/vector.h"

namespace quelkit::vector {

namespace {

class PreparedProgram final : public harness::Prepared {
 public:
  explicit PreparedProgram(Program p) : r_(std::move(p)) {}

  int qualify(const uint8_t* tuple, qk_ctx* ctx) override { return r_.qualify(tuple, ctx); }
  int project(const uint8_t* tuple, uint8_t* row, qk_ctx* ctx) override { return r_.project(tuple, row, ctx); }
  bool has_kernel() const override { return true; }
  int64_t run_page(const uint8_t* page, uint8_t* rows, qk_ctx* ctx) override { return r_.run_page(page, rows, ctx); }

 private:
  // The batch's registers are this plan's: the harness runs one Prepared on
  // one thread, one evaluation at a time, and every register a primitive
  // reads was written earlier in the same batch.
  Runner r_;
};

class VectorBackend final : public harness::Backend {
 public:
  explicit VectorBackend(const Options& opt) : opt_(opt) {}

  bool reuses_plans() const override { return true; }

  std::unique_ptr<harness::Prepared> prepare(const harness::Plan& plan, const uint8_t* params) override {
    (void)params;  // parameters are read from qk_ctx.params by the prologue, never inlined
    return std::make_unique<PreparedProgram>(lower(plan, opt_));
  }

  bool dump(const harness::Plan& plan, std::string_view form, const uint8_t* params, std::ostream& os) override {
    (void)params;
    if (form != "vector") return false;
    lower(plan, opt_, &os);
    return true;
  }

 private:
  Options opt_;
};

}  // namespace

std::unique_ptr<harness::Backend> make_backend(const Options& opt) { return std::make_unique<VectorBackend>(opt); }

bool parse_mode(const std::string& mode, const harness::PrepareOptions& popt, Options* out) {
  Options o;
  std::string attrs = mode;
  if (mode.ends_with("_branch")) {
    o.selection = Selection::Branch;
    attrs = mode.substr(0, mode.size() - 7);
  }
  if (attrs == "inplace" || attrs.empty()) o.attrs = Attrs::InPlace;
  else if (attrs == "gather") o.attrs = Attrs::Gather;
  else return false;
  o.batch = popt.vector_batch ? popt.vector_batch : kDefaultBatch;
  if (o.batch > kMaxBatch) o.batch = kMaxBatch;
  *out = o;
  return true;
}

void register_backend() {
  harness::register_backend(harness::BackendSpec{
      "vector",
      // in place, without branches, first: measured the faster (vector/README.md)
      {"inplace", "gather", "inplace_branch", "gather_branch"},
      {"vector"},
      [](const std::string& mode, const harness::PrepareOptions& popt) -> std::unique_ptr<harness::Backend> {
        Options o;
        if (!parse_mode(mode, popt, &o)) return nullptr;
        return make_backend(o);
      }});
}

}  // namespace quelkit::vector
