// The extractor on small objects clang-19 compiled with the stencil flags
// (test/jit_stencil/objects/): the relocations of a known object come out as
// the holes they are, and objects with a relocation, a call or a section
// prepare could not handle are refused with a message naming it.
#include <gtest/gtest.h>

#ifdef QUELKIT_HAVE_STENCIL

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "jit/stencil/extract.h"

namespace quelkit::test {
namespace {

using namespace jit::stencil;

std::string object(const char* name) { return std::string(QUELKIT_STENCIL_TEST_OBJECTS) + "/" + name + ".o"; }

std::vector<std::pair<Sym, Patch>> kinds(const Extracted::Stencil& s) {
  std::vector<std::pair<Sym, Patch>> v;
  for (const Hole& h : s.holes) v.emplace_back(h.sym, h.patch);
  std::sort(v.begin(), v.end());
  return v;
}

TEST(StencilExtractor, KnownObjectGivesItsHoles) {
  Extracted x;
  std::string err;
  ASSERT_TRUE(extract(object("good"), "qs_", 2, &x, &err)) << err;
  ASSERT_EQ(x.stencils.size(), 2u);
  EXPECT_TRUE(x.has_fingerprint);
  EXPECT_EQ(x.fingerprint, 0x1234u);

  // qs_0: two 32-bit offsets folded into displacements, one 64-bit constant,
  // a conditional jump to TARGET and the trailing jump to the next stencil.
  const auto& a = x.stencils[0];
  std::vector<std::pair<Sym, Patch>> want = {{Sym::Continue, Patch::Rel32},
                                             {Sym::Target, Patch::Rel32},
                                             {Sym::AOff, Patch::Abs32S},
                                             {Sym::DOff, Patch::Abs32S},
                                             {Sym::AK, Patch::Abs64}};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(kinds(a), want);
  EXPECT_TRUE(a.data.empty());
  // The last instruction is a jump to a placeholder (clang lays out one of
  // the two tail calls last): recorded, with its hole in its last 4 bytes.
  ASSERT_TRUE(a.trail == Sym::Continue || a.trail == Sym::Target);
  ASSERT_GE(a.bytes.size(), 5u);
  EXPECT_EQ(a.bytes[a.bytes.size() - 5], 0xe9);
  bool trail_hole = false;
  for (const Hole& h : a.holes) trail_hole |= h.offset == a.bytes.size() - 4 && h.sym == a.trail && h.addend == -4;
  EXPECT_TRUE(trail_hole);
  EXPECT_EQ(x.stencils[1].trail, Sym::Continue);
  for (const Hole& h : a.holes)
    if (h.sym == Sym::AK) {
      EXPECT_EQ(a.bytes[h.offset - 2] & 0xf8, 0x48) << "movabs: REX.W B8+r";
    }

  // qs_1: fabs's sign mask copied with the stencil, log called through a hole.
  const auto& b = x.stencils[1];
  bool data = false, log = false;
  for (const Hole& h : b.holes) {
    if (h.sym == Sym::Data) {
      data = true;
      EXPECT_EQ(h.patch, Patch::Rel32);
      EXPECT_LT(h.index, b.data.size());
    }
    if (h.sym == Sym::Extern) {
      log = x.externs.at(h.index) == "log";
      EXPECT_EQ(h.patch, Patch::Rel32);
    }
  }
  EXPECT_TRUE(data) << "the mask is read-only data of the stencil's own";
  EXPECT_EQ(b.data.size(), 16u);
  EXPECT_TRUE(log);
}

TEST(StencilExtractor, HeaderHoldsEveryStencil) {
  Extracted x;
  std::string err;
  ASSERT_TRUE(extract(object("good"), "qs_", 2, &x, &err)) << err;
  std::string h = write_header(x, "good.o");
  EXPECT_NE(h.find("kCount = 2;"), std::string::npos);
  EXPECT_NE(h.find("Sym::Extern"), std::string::npos);
  EXPECT_NE(h.find("// qs_1"), std::string::npos);
}

TEST(StencilExtractor, RefusesARelocationItCannotPatch) {
  Extracted x;
  std::string err;
  EXPECT_FALSE(extract(object("bad_reloc"), "qs_", 1, &x, &err));
  EXPECT_NE(err.find("qs_0"), std::string::npos) << err;
  EXPECT_NE(err.find("R_X86_64_"), std::string::npos) << err;
  EXPECT_NE(err.find("is not one prepare can patch"), std::string::npos) << err;
}

TEST(StencilExtractor, RefusesACallOutsideTheAllowedOnes) {
  Extracted x;
  std::string err;
  EXPECT_FALSE(extract(object("bad_extern"), "qs_", 1, &x, &err));
  EXPECT_NE(err.find("refers to abort"), std::string::npos) << err;
}

TEST(StencilExtractor, RefusesAnUnknownSection) {
  Extracted x;
  std::string err;
  EXPECT_FALSE(extract(object("bad_section"), "qs_", 1, &x, &err));
  EXPECT_NE(err.find("unexpected section .data"), std::string::npos) << err;
}

TEST(StencilExtractor, MissingStencilIsStale) {
  Extracted x;
  std::string err;
  EXPECT_FALSE(extract(object("good"), "qs_", 3, &x, &err));
  EXPECT_NE(err.find("qs_2 is missing"), std::string::npos) << err;
}

}  // namespace
}  // namespace quelkit::test

#endif  // QUELKIT_HAVE_STENCIL
