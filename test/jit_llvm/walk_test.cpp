// The shared walk (jit/codegen.h) against the Emitter contract, with no code
// generator at all: a checking emitter verifies that every value has the type
// the walk claims, every block is placed once and terminated, every helper
// call matches its C signature, and every function returns its kind's type.
// Plans come from the engine itself (a back end that only generates), for a
// spread of queries and both modes, with and without --jit-checks. Both JITs
// rely on this contract, so it runs whether or not LLVM was found.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "jit/codegen.h"
#include "test/jit_llvm/support.h"

namespace quelkit::test {
namespace {

using jit::Block;
using jit::FnKind;
using jit::Local;
using jit::Ty;
using jit::Value;

// Values, blocks and locals are small integers in disguise; their facts are kept here.
class CheckingEmitter final : public jit::Emitter {
 public:
  std::vector<std::string> problems;
  int functions = 0;

  void begin_function(FnKind kind, const std::string& name) override {
    if (open_) fail("begin_function inside " + fn_name_);
    open_ = true;
    kind_ = kind;
    fn_name_ = name;
    ++functions;
    blocks_.clear();
    placed_.clear();
    terminated_.clear();
    current_ = new_block();
    placed_.insert(current_);
    params_ = {};
    int n = kind == FnKind::Qual ? 2 : 3;
    for (int i = 0; i < n; ++i) params_.push_back(value(Ty::Ptr));
  }
  Value param(int i) override {
    if (i < 0 || size_t(i) >= params_.size()) fail("param " + std::to_string(i));
    return params_.at(size_t(i));
  }
  void end_function() override {
    if (!terminated_.count(current_)) fail("the last block is not terminated");
    for (int b : blocks_)
      if (!placed_.count(b)) fail("block " + std::to_string(b) + " created but never placed");
    open_ = false;
  }

  Block block(const std::string&) override { return Block{tag(new_block())}; }
  void place(Block b) override {
    int id = untag(b.h);
    if (!terminated_.count(current_)) fail("place() before the current block is terminated");
    if (!placed_.insert(id).second) fail("block placed twice");
    current_ = id;
  }
  void jump(Block to) override {
    use_block(to);
    terminate();
  }
  void branch(Value c, Block t, Block f, jit::Hint) override {
    expect(c, Ty::Bool, "branch condition");
    use_block(t);
    use_block(f);
    terminate();
  }
  void ret(Value v) override {
    expect(v, kind_ == FnKind::Kernel ? Ty::I64 : Ty::I32, "return value");
    terminate();
  }

  Local local(Ty t, const std::string&) override {
    locals_.push_back(t);
    return Local{tag(int(locals_.size() - 1))};
  }
  void assign(Local l, Value v) override {
    emit();
    expect(v, locals_.at(size_t(untag(l.h))), "assign");
  }
  Value read(Local l) override {
    emit();
    return value(locals_.at(size_t(untag(l.h))));
  }
  Value address(Local) override { return value(Ty::Ptr); }
  Value buffer(uint32_t, const std::string&) override { return value(Ty::Ptr); }

  Value int_const(Ty t, int64_t) override {
    if (t == Ty::F32 || t == Ty::F64 || t == Ty::Void) fail("int_const of a non-integer");
    return value(t);
  }
  Value f4_const(float) override { return value(Ty::F32); }
  Value f8_const(double) override { return value(Ty::F64); }
  Value bytes(const std::string&, const std::string&) override { return value(Ty::Ptr); }

  Value at(Value p, Value off) override {
    emit();
    expect(p, Ty::Ptr, "at() base");
    expect(off, Ty::I64, "at() offset");
    return value(Ty::Ptr);
  }
  Value load(Ty t, Value p) override {
    emit();
    expect(p, Ty::Ptr, "load address");
    return value(t);
  }
  void store(Ty t, Value p, Value v) override {
    emit();
    expect(p, Ty::Ptr, "store address");
    expect(v, t, "stored value");
  }
  void copy(Value d, Value s, uint32_t n) override {
    emit();
    expect(d, Ty::Ptr, "copy dst");
    expect(s, Ty::Ptr, "copy src");
    if (!n) fail("copy of 0 bytes");
  }
  void fill(Value d, uint8_t, uint32_t) override {
    emit();
    expect(d, Ty::Ptr, "fill dst");
  }

  Value arith(jit::Arith op, Ty t, Value a, Value b) override {
    emit();
    expect(a, t, "arith lhs");
    expect(b, t, "arith rhs");
    if (op == jit::Arith::Rem && (t == Ty::F32 || t == Ty::F64)) fail("float remainder");
    return value(t);
  }
  Value bits(jit::Bits, Ty t, Value a, Value b) override {
    emit();
    if (t != Ty::I32 && t != Ty::I64) fail("bits of a non-integer");
    expect(a, t, "bits lhs");
    expect(b, t, "bits rhs");
    return value(t);
  }
  Value overflows(jit::Arith, Value a, Value b, Value* result) override {
    emit();
    expect(a, Ty::I32, "overflows lhs");
    expect(b, Ty::I32, "overflows rhs");
    *result = value(Ty::I32);
    return value(Ty::Bool);
  }
  Value negate(Ty t, Value a) override {
    emit();
    expect(a, t, "negate");
    return value(t);
  }
  Value abs(Ty t, Value a) override {
    emit();
    expect(a, t, "abs");
    return value(t);
  }
  Value is_finite(Ty t, Value a) override {
    emit();
    if (t != Ty::F32 && t != Ty::F64) fail("is_finite of a non-float");
    expect(a, t, "is_finite");
    return value(Ty::Bool);
  }
  Value compare(jit::Pred, Ty t, Value a, Value b) override {
    emit();
    expect(a, t, "compare lhs");
    expect(b, t, "compare rhs");
    return value(Ty::Bool);
  }
  Value convert(Ty from, Ty to, Value a, bool) override {
    emit();
    expect(a, from, "convert operand");
    if (from == to) fail("convert to the same type");
    return value(to);
  }
  void prefetch(Value p, int locality) override {
    emit();
    expect(p, Ty::Ptr, "prefetch address");
    if (locality < 0 || locality > 3) fail("prefetch locality outside 0-3");
  }
  Value call(jit::Helper h, std::initializer_list<Value> args) override {
    emit();
    const jit::HelperInfo& info = jit::helper_info(h);
    if (args.size() != info.nargs) fail(std::string("arity of ") + info.name);
    size_t i = 0;
    for (Value v : args) expect(v, info.args[i++], info.name);
    return info.result == Ty::Void ? Value{} : value(info.result);
  }

 private:
  static void* tag(int id) { return reinterpret_cast<void*>(uintptr_t(id) + 1); }
  static int untag(void* h) { return int(reinterpret_cast<uintptr_t>(h) - 1); }

  void fail(const std::string& what) { problems.push_back(fn_name_ + ": " + what); }
  int new_block() {
    blocks_.push_back(next_block_);
    return next_block_++;
  }
  void use_block(Block b) {
    int id = untag(b.h);
    if (std::find(blocks_.begin(), blocks_.end(), id) == blocks_.end()) fail("branch to a block of another function");
  }
  void emit() {
    if (!open_) fail("code outside a function");
    if (terminated_.count(current_)) fail("code after a terminator");
  }
  void terminate() {
    emit();
    terminated_.insert(current_);
  }
  Value value(Ty t) {
    types_.push_back(t);
    fn_of_.push_back(functions);
    return Value{tag(int(types_.size() - 1))};
  }
  void expect(Value v, Ty t, const std::string& what) {
    if (!v.h) return fail(what + ": no value");
    int id = untag(v.h);
    if (types_.at(size_t(id)) != t)
      fail(what + ": type " + std::to_string(int(types_.at(size_t(id)))) + ", wanted " + std::to_string(int(t)));
    if (fn_of_.at(size_t(id)) != functions) fail(what + ": a value of another function");
  }

  bool open_ = false;
  FnKind kind_ = FnKind::Qual;
  std::string fn_name_;
  int next_block_ = 0, current_ = -1;
  std::vector<int> blocks_;
  std::set<int> placed_, terminated_;
  std::vector<Ty> types_, locals_;
  std::vector<int> fn_of_;
  std::vector<Value> params_;
};

// A back end that only generates, through the checking emitter, and qualifies nothing.
struct WalkOnly final : harness::Backend {
  jit::Mode mode;
  bool checks, nobranch;
  std::vector<std::string>* problems;
  int* functions;
  struct Nothing final : harness::Prepared {
    harness::Entries entries(harness::Use use, harness::Selection) override {
      harness::Entries e;
      if (use == harness::Use::Tuple) {
        e.qualify = [](const uint8_t*, qk_ctx*) -> int32_t { return 0; };
        e.project = [](const uint8_t*, uint8_t*, qk_ctx*) -> int32_t { return 0; };
      }
      return e;
    }
  };
  bool reuses_plans() const override { return true; }
  std::unique_ptr<harness::Prepared> prepare(const harness::Plan& plan, const uint8_t*) override {
    CheckingEmitter e;
    jit::Functions which = jit::functions_for(mode, plan);
    jit::Functions all = jit::tuple_functions(plan);
    all.kernel = which.kernel;
    jit::generate(plan, all, plan.name, jit::GenOptions{checks, nobranch}, e);
    for (auto& p : e.problems) problems->push_back(plan.name + ": " + p);
    *functions += e.functions;
    return std::make_unique<Nothing>();
  }
};

TEST(SharedWalk, KeepsTheEmitterContract) {
  // Static: the registry outlives the test (no test of this binary selects "all").
  static std::vector<std::string> problems;
  static int functions = 0;
  problems.clear();
  functions = 0;
  harness::register_backend(harness::BackendSpec{
      "walkcheck",
      {{"fused", false}, {"qual", false}, {"fused_checks", false}, {"qual_checks", false}, {"fused_nobranch", false},
       {"fused_nobranch_checks", false}},
      {},
      [](const std::string& mode, const harness::PrepareOptions&) -> std::unique_ptr<harness::Backend> {
        auto b = std::make_unique<WalkOnly>();
        b->mode = mode.rfind("qual", 0) == 0 ? jit::Mode::Qual : jit::Mode::Fused;
        b->checks = mode.find("checks") != std::string::npos;
        b->nobranch = mode.find("nobranch") != std::string::npos;
        b->problems = &problems;
        b->functions = &functions;
        return b;
      }});
  harness::SessionOptions o;
  o.backends = {{"walkcheck", "fused"}, {"walkcheck", "qual"}, {"walkcheck", "fused_checks"},
                {"walkcheck", "qual_checks"}, {"walkcheck", "fused_nobranch"}, {"walkcheck", "fused_nobranch_checks"}};
  o.format = harness::OutFormat::None;
  std::ostringstream out, err;
  harness::Session s(o, out, err);
  s.catalog().add(edge_relation());
  s.run(std::make_shared<Source>("w.quel", "range of t is e range of v is e"));
  const char* const queries[] = {
      "retrieve (t.a, t.b, t.c, t.f, t.d, t.s, t.u)",
      "retrieve (x = t.a + 1, y = t.a * t.b - t.c, z = -t.a, w = abs(t.a))",
      "retrieve (x = t.a / t.c, y = mod(t.a, t.c)) where t.c != 0",
      "retrieve (x = t.f * t.f, y = t.d / t.f, z = -t.f, w = abs(t.d))",
      "retrieve (x = sqrt(t.d), y = log(t.d), z = exp(t.d), w = t.d ** 2)",
      "retrieve (x = sin(t.a), y = cos(t.f), z = atan(t.d))",
      "retrieve (x = int1(t.b), y = int2(t.a), z = int4(t.f), w = int2(t.d), k = float4(t.d), m = float8(t.c))",
      "retrieve (t.s) where t.s = \"*c*\" or t.s != \"p?\" and not t.u < \"b\"",
      "retrieve (x = concat(t.s, t.u), y = ascii(t.a), z = ascii(t.f), w = ascii(t.d))",
      "retrieve (t.a) where t.b = 0 or t.a / t.b > 1",
      "retrieve (t.a) where 1 = 2",
      "retrieve (t.a) where t.a > 0",
      "retrieve (t.a, t.s) where t.a > 0 and t.b < 5",  // nobranch: a refined selection vector per term
      "retrieve (t.a) where t.a > 0 and (t.b < 5 or t.f > 1.0) and t.s != \"x\" and t.c = 2 and t.d < 3.0",
      "retrieve (a = 1)",
      "retrieve (t.a, v.b) where t.a = v.a and t.s = v.s",
      "retrieve (x = concat(v.u, t.s), y = v.f + t.d) where t.c = v.c",
      "replace t (a = t.a + 1) where t.a > 100",
      "delete t where t.a > 1000",
  };
  for (const char* q : queries) s.run(std::make_shared<Source>("w.quel", q));
  EXPECT_GT(functions, 60);
  for (const auto& p : problems) ADD_FAILURE() << p;
}

}  // namespace
}  // namespace quelkit::test
