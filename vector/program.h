// The vectorized program (X100 / VectorWise / DuckDB style): the folded typed
// IR readied into a flat list of typed primitives, each of which runs over a
// batch of tuples at once. One call per primitive per batch, so dispatch is
// paid once per batch instead of once per tuple and operator.
//
//   [prologue: parameter loads] [qualification] [projection]       Instr array
//
// An instruction (48 bytes):
//
//   byte  0..7   fn      the primitive (kPrimFns[kind])
//   byte  8..15  pos     packed SrcPos of the IR node, for the error it may flag
//   byte 16..17  kind    index into kPrims (vector/prims.h)
//   byte 18..19  dst     result: vector, scalar or selection register
//   byte 20..21  a, b    operand registers (vector or scalar, as the kind says;
//   byte 22..23          SelDiff / SelUnion: selection registers)
//   byte 24..25  sel     the selection it runs under (the tuples that evaluate it)
//   byte 26..27  index   its place in the program (what a tuple's error flag names)
//   byte 28..29  alen    character length of operand a
//   byte 30..31  blen    character length of operand b
//   byte 32..35  off     Attr operand a, Gather, Copy: tuple offset; Param: block offset
//   byte 36..39  out     Store, Copy: row offset; a character result: its scratch area
//   byte 40..41  width   character result width; Store: column width
//
// Registers (all per batch, in the Batch of vector/run.cpp):
//
//   vector   one 8-byte slot per tuple of the batch, indexed by the tuple's
//            place in the batch (a primitive under a selection writes only the
//            selected places): int32 (every integer width), float, double, or a
//            pointer to characters (into the tuple, constant bytes, parameters
//            or this plan's scratch)
//   scalar   one value for the whole batch: constants (loaded now) and
//            parameters (loaded by the prologue from qk_ctx.params)
//   sel      a selection vector: ascending places of the tuples still in play;
//            s0 is the whole batch. A comparison reads one and writes the
//            subset where it holds; `and` chains them, `or` runs its right
//            operand on what its left left open (SelDiff) and joins (SelUnion),
//            `not` is what its operand's subset left out. So a right operand
//            runs only on tuples whose outcome it decides: the language's
//            short-circuit, per tuple.
//
// Errors: primitives never raise. A tuple whose rule fails gets its first
// error code and the failing instruction recorded, and the batch is flagged.
// The page kernel then re-runs the flagged batch tuple at a time through the
// same program (a batch of one), from its first tuple, qualification then
// projection per tuple, and raises the first error that run meets: exactly
// the error, position and tuple of tuple-at-a-time evaluation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "engine/plan.h"
#include "runtime/accumulate.h"
#include "runtime/runtime.h"
#include "vector/prims.h"

namespace quelkit::vector {

// How attributes reach the primitives.
enum class Attrs : uint8_t {
  InPlace,  // primitives read an attribute from each tuple (tuple pointer + offset)
  Gather,   // every attribute is first gathered into a vector register
};
// How comparisons build selection vectors.
enum class Selection : uint8_t {
  NoBranch,  // write every candidate, advance the output by the outcome
  Branch,    // write a candidate only if it passes
};

constexpr uint32_t kDefaultBatch = 128;  // measured: vector/README.md
constexpr uint32_t kMaxBatch = 65535;  // places are uint16_t

struct Options {
  Attrs attrs = Attrs::InPlace;
  Selection selection = Selection::NoBranch;
  uint32_t batch = kDefaultBatch;  // tuples per batch (a page's live tuples at most)
};

union Scalar {
  int32_t i;  // i1 i2 i4, booleans
  float f4;
  double f8;
  const uint8_t* s;  // characters
  uint64_t bits;
};
static_assert(sizeof(Scalar) == 8);

struct Sel {
  const uint16_t* idx = nullptr;  // ascending places (unused when full)
  uint32_t n = 0;                 // how many
  bool full = false;              // every place of the batch, 0..n-1
  uint16_t* buf = nullptr;        // this register's own storage
};

struct Batch;
struct Instr;
using Prim = void (*)(const Instr& in, Batch& b);

struct Instr {
  Prim fn = nullptr;
  uint64_t pos = 0;
  uint16_t kind = 0;
  uint16_t dst = 0, a = 0, b = 0;
  uint16_t sel = 0;
  uint16_t index = 0;
  uint16_t alen = 0, blen = 0;
  uint32_t off = 0;
  uint32_t out = 0;
  uint16_t width = 0;
};
static_assert(sizeof(Instr) == 48, "an instruction is 48 bytes; keep it so");
static_assert(offsetof(Instr, kind) == 16 && offsetof(Instr, sel) == 24 && offsetof(Instr, off) == 32 &&
                  offsetof(Instr, width) == 40,
              "the layout drawn above");

// The state of one batch, as the primitives see it.
struct Batch {
  uint32_t n = 0;                  // tuples in the batch
  const uint8_t** tuple = nullptr; // [cap] the tuples, in scan order
  uint8_t* vecs = nullptr;         // vector register r at vecs + r * vec_bytes
  size_t vec_bytes = 0;
  Scalar* scal = nullptr;
  Sel* sels = nullptr;
  uint8_t* scratch = nullptr;      // character results: out + place * width
  uint8_t* err_code = nullptr;     // [cap] a tuple's first error (0: none)
  uint16_t* err_at = nullptr;      // [cap] the instruction that raised it
  bool flagged = false;            // some tuple of the batch has an error
  const uint8_t* params = nullptr;
  uint8_t* rows = nullptr;         // projection: row k of the batch's output
  uint32_t row_len = 0;
  qk_accum* acc = nullptr;         // accumulation: the aggregates' block (runtime/accumulate.h)
  qk_agg** group = nullptr;        // [cap] Probe: row k's group's accumulators (null: the table is out of room)

  template <class T>
  T* vec(uint16_t r) const {
    return reinterpret_cast<T*>(vecs + size_t(r) * vec_bytes);
  }
  // Records tuple i's error unless it already has an earlier one.
  void flag(uint32_t i, int code, uint16_t at) {
    if (!err_code[i]) {
      err_code[i] = uint8_t(code);
      err_at[i] = at;
    }
    flagged = true;
  }
};

constexpr uint16_t kAllSel = 0;  // s0: the whole batch

// A readied plan. Character constants point into `chars`: a Program moves but
// does not copy.
struct Program {
  std::vector<Instr> code;
  uint32_t qual_start = 0, proj_start = 0;  // prologue [0, qual_start), qual, projection [proj_start, end)
  uint16_t qual_sel = kAllSel;              // the qualifying tuples
  uint16_t nvec = 0, nsel = 1;
  std::vector<Scalar> scalars;              // constants filled in, parameters by the prologue
  std::vector<uint8_t> chars;               // bytes of character constants
  uint32_t scratch_bytes = 0;               // character results of a whole batch
  uint32_t row_len = 0, in_len = 0;
  Options opt;

  Program() = default;
  Program(Program&&) = default;
  Program& operator=(Program&&) = default;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
};

// Readies plan.qual_folded and plan.targets_folded into a program. With
// `dump` non-null, also prints it there (--dump=vector).
Program lower(const harness::Plan& plan, const Options& opt, std::ostream* dump = nullptr);

// The accumulation of an aggregate block's rows (Use::Aggregate): after the
// projection, under the qualifying selection `qual_sel`, a Probe if it is
// grouped, then one Accum (or AccumRow) per aggregate, picked by the block's
// aggregates (qk_accum_protos), which the plan does not know: count(p.qoh) and
// sum(p.qoh) share one inner query.
std::vector<Instr> lower_accumulate(const qk_accum* acc, uint16_t qual_sel);

// A primitive's name: "LT_F8(attr_i2, vec) nobranch", "gather i2 as f8", ...
std::string prim_name(int kind);

// The primitive of each kind (vector/prims.cpp).
Prim prim_of(int kind);

// Storage of one program's batch (vector/run.cpp), and the three ways of running it.
class Runner {
 public:
  explicit Runner(Program p);
  const Program& program() const { return p_; }
  // The qualification of one tuple: 1, 0, or -1 after raising into ctx.
  int qualify(const uint8_t* tuple, qk_ctx* ctx);
  // The projection of one (qualifying) tuple into row: 0, or -1 after raising.
  int project(const uint8_t* tuple, uint8_t* row, qk_ctx* ctx);
  // The page kernel (engine/backend.h): rows written, or -1 with ctx->err_slot.
  int64_t run_page(const uint8_t* page, uint8_t* rows, qk_ctx* ctx);
  // Batches spanning the pages (engine/backend.h's Entries::pages): rows written,
  // or -1 when a tuple failed (the harness then runs the pages one at a time).
  int64_t run_pages(const uint8_t* const* pages, uint32_t npages, uint8_t* rows, qk_ctx* ctx);
  // The accumulating kernel (engine/backend.h's Use::Aggregate): run_page
  // with each batch's rows projected into a buffer of its own and
  // accumulated into acc by the aggregate primitives; tuples qualified, or
  // -1 with ctx->err_slot (the re-run finds the failing tuple as run_page's).
  int64_t run_accumulate(const uint8_t* page, qk_accum* acc, qk_ctx* ctx);
  uint32_t batch() const { return cap_; }

 private:
  void run(uint32_t from, uint32_t to);
  int64_t walk_page(const uint8_t* page, uint8_t* rows, qk_ctx* ctx, bool accumulate);
  void clear_errors();
  int raise_first(qk_ctx* ctx);
  int64_t rerun(const uint8_t* page, uint32_t from, uint32_t n, uint8_t* rows, qk_ctx* ctx);

  Program p_;
  Batch b_;
  uint32_t cap_ = 0;
  std::vector<const uint8_t*> tuples_;
  std::vector<uint64_t> vec_store_;  // 8-byte aligned
  std::vector<Sel> sels_;
  std::vector<uint16_t> sel_store_;
  std::vector<uint8_t> scratch_, err_code_;
  std::vector<uint16_t> err_at_;
  // Accumulation: the instructions for the block last seen (rebuilt when a
  // block of other aggregates comes: acc_key_), its rows and groups.
  std::vector<Instr> acc_code_;
  std::vector<uint64_t> acc_key_;
  std::vector<uint8_t> acc_rows_;
  std::vector<qk_agg*> groups_;
};

}  // namespace quelkit::vector
