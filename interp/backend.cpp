// The "interp" back end: prepares a plan by lowering it to postfix symbols
// with the parameter values inlined, then runs qualification and projection
// tuple by tuple through the stack machine. No plan reuse (INGRES lowered the
// substituted query afresh per substituted tuple) and no fused page kernel.
#include <ostream>
#include <vector>

#include "interp/interp.h"
#include "interp/lower.h"

namespace quelkit::interp {

namespace {

// One Prepared type per dispatch method, so the per-tuple path carries no
// mode test: the harness's call through the entry lands straight in
// interpret(). Tuple at a time only: the interpreter has no page kernel.
template <class Dispatch>
class PreparedProgram final : public harness::Prepared {
 public:
  explicit PreparedProgram(Program prog) : prog_(std::move(prog)), stack_(prog_.depth + 1) {}

  harness::Entries entries(harness::Use use, harness::Selection s) override {
    (void)s;
    if (use == harness::Use::Tuple) return harness::tuple_entries(this, &qualify, &project);
    return {};
  }

 private:
  static int32_t qualify(const uint8_t* tuple, qk_ctx* ctx) {
    auto* me = static_cast<PreparedProgram*>(ctx->plan);
    if (me->prog_.qual.empty()) return 1;
    return interpret(Dispatch{}, me->prog_.qual.data(), tuple, nullptr, me->stack_.data(), ctx);
  }
  static int32_t project(const uint8_t* tuple, uint8_t* row, qk_ctx* ctx) {
    auto* me = static_cast<PreparedProgram*>(ctx->plan);
    return interpret(Dispatch{}, me->prog_.targets.data(), tuple, row, me->stack_.data(), ctx) < 0 ? -1 : 0;
  }

  Program prog_;
  std::vector<Cell> stack_;  // per Prepared: the harness runs one Prepared on one thread
};

class InterpBackend final : public harness::Backend {
 public:
  explicit InterpBackend(bool use_goto) : use_goto_(use_goto) {}

  bool reuses_plans() const override { return false; }

  std::unique_ptr<harness::Prepared> prepare(const harness::Plan& plan, const uint8_t* params) override {
    Program prog = lower(plan, params);
    if (use_goto_) return std::make_unique<PreparedProgram<GotoDispatch>>(std::move(prog));
    return std::make_unique<PreparedProgram<SwitchDispatch>>(std::move(prog));
  }

  bool dump(const harness::Plan& plan, std::string_view form, const uint8_t* params, harness::Selection variant,
            std::ostream& os) override {
    (void)variant;  // tuple at a time: no kernel
    if (form != "postfix") return false;
    dump_postfix(plan, lower(plan, params), os);
    return true;
  }

 private:
  bool use_goto_;
};

}  // namespace

std::unique_ptr<harness::Backend> make_backend(bool use_goto) { return std::make_unique<InterpBackend>(use_goto); }

void register_backend() {
  harness::register_backend(harness::BackendSpec{
      "interp",
      // both modes evaluate tuple at a time: the interpreter has no page kernel
      {{"switch", false}, {"goto", false}},
      {{"postfix"}},
      [](const std::string& mode, const harness::PrepareOptions&) -> std::unique_ptr<harness::Backend> {
        if (mode != "switch" && mode != "goto" && !mode.empty()) return nullptr;
        return make_backend(mode == "goto");
      }});
}

}  // namespace quelkit::interp
