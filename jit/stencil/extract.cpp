// The extractor (extract.h): LLVM's Object library reads the ELF object; this
// file only decides what each section, symbol and relocation means for a
// stencil, and refuses what it does not know.
#include "jit/stencil/extract.h"

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Error.h>

#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "jit/stencil/disasm.h"

namespace quelkit::jit::stencil {

namespace {

using namespace llvm;
using namespace llvm::object;

const char* const kSymNames[] = {
#define QK_STENCIL_SYM_NAME(id, name) name,
    QK_STENCIL_HOLES(QK_STENCIL_SYM_NAME)
#undef QK_STENCIL_SYM_NAME
};
const char* const kExternNames[] = {
#define QK_STENCIL_EXTERN_NAME(name, type) #name,
    QK_STENCIL_EXTERNS(QK_STENCIL_EXTERN_NAME)
#undef QK_STENCIL_EXTERN_NAME
};

// Sections that may be in the object and carry nothing a stencil needs.
bool ignorable(StringRef name) {
  return name.empty() || name == ".strtab" || name == ".symtab" || name == ".shstrtab" || name == ".comment" ||
         name == ".note.GNU-stack" || name == ".llvm_addrsig" || name == ".linker-options" ||
         name == ".rela.text" || name == ".rela.rodata";
}

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

}  // namespace

bool extract(const std::string& path, const std::string& prefix, int count, Extracted* out, std::string* error) {
  auto fail = [&](const std::string& m) {
    *error = path + ": " + m;
    return false;
  };
  auto bin = ObjectFile::createObjectFile(path);
  if (!bin) return fail("cannot read the object: " + toString(bin.takeError()));
  const auto* elf = dyn_cast<ELF64LEObjectFile>(bin->getBinary());
  if (!elf || elf->getArch() != Triple::x86_64) return fail("not an x86-64 ELF object");
  const auto& file = elf->getELFFile();

  auto disasm = Disassembler::create(error);
  if (!disasm) return false;

  // Sections: .text, mergeable constants, the fingerprint's .rodata, nothing else.
  SectionRef text;
  bool have_text = false;
  std::map<uint64_t, uint64_t> const_entsize;  // section index -> entry size (mergeable constants)
  uint64_t rodata_index = ~0ull;
  for (const SectionRef& s0 : elf->sections()) {
    ELFSectionRef s(s0);
    Expected<StringRef> name = s.getName();
    if (!name) return fail("a section without a name: " + toString(name.takeError()));
    const uint64_t idx = s.getIndex();
    auto shdr = file.getSection(idx);
    if (!shdr) return fail(toString(shdr.takeError()));
    if (*name == ".text") {
      text = s;
      have_text = true;
    } else if (name->starts_with(".rodata.cst") && ((*shdr)->sh_flags & ELF::SHF_MERGE) &&
               !((*shdr)->sh_flags & ELF::SHF_STRINGS) && (*shdr)->sh_entsize) {
      const_entsize[idx] = (*shdr)->sh_entsize;
    } else if (*name == ".rodata") {
      rodata_index = idx;  // only qs_fingerprint may live here (checked below)
    } else if (!ignorable(*name) && s.getSize() != 0) {
      return fail("unexpected section " + name->str() + " (" + std::to_string(s.getSize()) +
                  " bytes): stencils may have code and mergeable constants only (data? static locals? unwind "
                  "tables? see jit/stencil/CMakeLists.txt's flags)");
    }
  }
  if (!have_text) return fail("no .text section");
  Expected<StringRef> text_bytes = text.getContents();
  if (!text_bytes) return fail(toString(text_bytes.takeError()));

  // Symbols: the stencils by name, the fingerprint, constants.
  std::map<std::string, std::pair<uint64_t, uint64_t>> functions;  // name -> (offset, size)
  for (const ELFSymbolRef& sym : elf->symbols()) {
    Expected<StringRef> name = sym.getName();
    if (!name) continue;
    if (name->str() == "qs_fingerprint") {
      auto sec = sym.getSection();
      auto addr = sym.getValue();
      if (!sec || !addr || (*sec)->getIndex() != rodata_index || sym.getSize() != 8)
        return fail("qs_fingerprint is not an 8-byte constant in .rodata");
      Expected<StringRef> c = (*sec)->getContents();
      if (!c || *addr + 8 > c->size()) return fail("qs_fingerprint lies outside .rodata");
      std::memcpy(&out->fingerprint, c->data() + *addr, 8);
      out->has_fingerprint = true;
      continue;
    }
    if (sym.getELFType() == ELF::STT_FUNC) {
      auto addr = sym.getValue();
      if (!addr) return fail(toString(addr.takeError()));
      functions[name->str()] = {*addr, sym.getSize()};
    }
  }
  if (rodata_index != ~0ull) {
    // .rodata may hold the fingerprint and nothing a stencil refers to (checked per relocation).
  }

  // Relocations of .text, by offset.
  struct Rel {
    uint64_t offset;
    uint32_t type;
    std::string sym;
    uint64_t sym_section = ~0ull;  // defined symbols: their section index
    uint64_t sym_value = 0;
    bool undefined = false;
    int64_t addend;
  };
  std::vector<Rel> rels;
  for (const SectionRef& s : elf->sections()) {
    Expected<section_iterator> target = s.getRelocatedSection();
    if (!target || *target == elf->section_end()) continue;
    Expected<StringRef> tname = (*target)->getName();
    if (!tname) return fail(toString(tname.takeError()));
    if (*tname != ".text") {
      if (s.relocations().empty()) continue;
      return fail("relocations against " + tname->str() + ": only code may be patched");
    }
    for (const RelocationRef& r : s.relocations()) {
      ELFRelocationRef er(r);
      Rel x;
      x.offset = r.getOffset();
      x.type = uint32_t(r.getType());
      auto a = er.getAddend();
      if (!a) return fail("a relocation without an addend (REL, not RELA)");
      x.addend = *a;
      symbol_iterator si = r.getSymbol();
      if (si == elf->symbol_end()) return fail("a relocation at " + hex(x.offset) + " without a symbol");
      ELFSymbolRef es(*si);
      Expected<StringRef> sn = es.getName();
      x.sym = sn ? sn->str() : "";
      auto sec = es.getSection();
      if (!sec) return fail(toString(sec.takeError()));
      x.undefined = *sec == elf->section_end();
      if (!x.undefined) {
        x.sym_section = (*sec)->getIndex();
        auto v = es.getValue();
        x.sym_value = v ? *v : 0;
        if (es.getELFType() == ELF::STT_SECTION) {
          Expected<StringRef> secname = (*sec)->getName();
          x.sym = secname ? secname->str() : "?";
        }
      }
      rels.push_back(x);
    }
  }

  out->externs.assign(std::begin(kExternNames), std::end(kExternNames));
  out->stencils.clear();
  for (int i = 0; i < count; ++i) {
    const std::string name = prefix + std::to_string(i);
    auto it = functions.find(name);
    if (it == functions.end()) return fail("stencil " + name + " is missing (is the object stale?)");
    const auto [start, size] = it->second;
    if (size == 0 || start + size > text_bytes->size() || size > 0xffff)
      return fail("stencil " + name + " has a bad size " + std::to_string(size));
    Extracted::Stencil st;
    st.name = name;
    st.bytes.assign(text_bytes->data() + start, text_bytes->data() + start + size);
    std::map<std::pair<uint64_t, uint64_t>, uint16_t> copied;  // (section, value) -> offset in st.data
    for (const Rel& r : rels) {
      if (r.offset < start || r.offset >= start + size) continue;
      const std::string where = "stencil " + name + " at +" + hex(r.offset - start) + ": ";
      Hole h{};
      h.offset = uint16_t(r.offset - start);
      h.addend = r.addend;
      switch (r.type) {
        case ELF::R_X86_64_64: h.patch = Patch::Abs64; break;
        case ELF::R_X86_64_32: h.patch = Patch::Abs32; break;
        case ELF::R_X86_64_32S: h.patch = Patch::Abs32S; break;
        case ELF::R_X86_64_PC32:
        case ELF::R_X86_64_PLT32: h.patch = Patch::Rel32; break;
        default:
          return fail(where + "relocation " + getELFRelocationTypeName(ELF::EM_X86_64, r.type).str() +
                      " against " + r.sym + " is not one prepare can patch (R_X86_64_64, _32, _32S, _PC32, _PLT32)");
      }
      const size_t width = h.patch == Patch::Abs64 ? 8 : 4;
      if (h.offset + width > size) return fail(where + "the relocation runs past the stencil's end");
      // What it refers to.
      int sym = -1;
      for (size_t k = 0; k < std::size(kSymNames); ++k)
        if (kSymNames[k][0] && r.sym == kSymNames[k]) sym = int(k);
      if (sym >= 0) {
        if (!r.undefined) return fail(where + r.sym + " is defined in the object; placeholders must be undefined");
        h.sym = Sym(sym);
        if (is_jump(h.sym) && h.patch != Patch::Rel32)
          return fail(where + r.sym + " is a jump target but the relocation is absolute");
        if (!is_jump(h.sym) && h.patch == Patch::Rel32)
          return fail(where + r.sym + " is a value but the relocation is PC-relative");
      } else if (r.undefined) {
        int ext = -1;
        for (size_t k = 0; k < std::size(kExternNames); ++k)
          if (r.sym == kExternNames[k]) ext = int(k);
        if (ext < 0)
          return fail(where + "refers to " + r.sym +
                      ", neither a placeholder nor a function stencils may call (QK_STENCIL_EXTERNS in "
                      "jit/stencil/code.h)");
        h.sym = Sym::Extern;
        h.index = uint16_t(ext);
      } else if (const_entsize.count(r.sym_section)) {
        // A constant of the stencil's own: copied beside it, one entry per symbol.
        const uint64_t es = const_entsize[r.sym_section];
        auto key = std::make_pair(r.sym_section, r.sym_value);
        auto found = copied.find(key);
        uint16_t at;
        if (found != copied.end()) {
          at = found->second;
        } else {
          SectionRef sec = *std::next(elf->section_begin(), long(r.sym_section));
          Expected<StringRef> c = sec.getContents();
          if (!c || r.sym_value + es > c->size()) return fail(where + "a constant outside its section " + r.sym);
          while (st.data.size() % 16) st.data.push_back(0);
          at = uint16_t(st.data.size());
          st.data.insert(st.data.end(), c->data() + r.sym_value, c->data() + r.sym_value + es);
          copied[key] = at;
        }
        h.sym = Sym::Data;
        h.index = at;
      } else {
        return fail(where + "refers to " + r.sym +
                    " defined in the object outside the mergeable constants (a call to a function that was not "
                    "inlined? data?)");
      }
      st.holes.push_back(h);
    }
    while (st.data.size() % 16) st.data.push_back(0);
    // Decode from the start: instruction boundaries and the stencil's own
    // branch targets (a branch whose immediate is a hole goes elsewhere).
    struct At {
      size_t pc, size;
    };
    std::vector<At> insns;
    std::set<uint64_t> targets;
    size_t pc = 0;
    while (pc < size) {
      Disassembler::Insn insn = disasm->decode(st.bytes.data() + pc, size - pc, pc, false);
      if (!insn.size) return fail("stencil " + name + ": cannot decode the instruction at +" + hex(pc));
      bool holed = false;
      for (const Hole& h : st.holes) holed |= h.offset >= pc && h.offset < pc + insn.size;
      if (insn.branch && !holed) targets.insert(insn.target);
      insns.push_back({pc, insn.size});
      pc += insn.size;
    }
    // Branch inversion (the hot path falls through): `jcc over; jmp HOLE; over:`
    // becomes `j!cc HOLE; nop` when nothing else jumps to the `jmp`. clang lays
    // a check's failure out as a jump over the tail call to the raise stencil.
    for (size_t k = 0; k + 1 < insns.size(); ++k) {
      const size_t j = insns[k].pc;
      uint8_t* b = st.bytes.data() + j;
      if (insns[k].size != 2 || (b[0] & 0xf0) != 0x70 || b[1] != 5 || insns[k + 1].size != 5 || b[2] != 0xe9)
        continue;
      if (j + 7 >= size || targets.count(j + 2)) continue;
      Hole* jump = nullptr;
      for (Hole& h : st.holes)
        if (h.offset == j + 3 && is_jump(h.sym) && h.addend == -4) jump = &h;
      if (!jump) continue;
      const uint8_t cc = b[0] & 0x0f;
      b[0] = 0x0f;
      b[1] = uint8_t(0x80 | (cc ^ 1));
      b[2] = b[3] = b[4] = b[5] = 0;
      b[6] = 0x90;
      jump->offset = uint16_t(j + 2);
      insns[k].size = 6;
      insns[k + 1] = {j + 6, 1};
    }
    const size_t last = insns.back().pc;
    Disassembler::Insn insn = disasm->decode(st.bytes.data() + last, size - last, last, false);
    // Symbol sizes end at the last instruction (padding comes after), so the
    // decode ends exactly at `size`.
    if (insn.jmp_rel32 && last + 5 == size) {
      for (const Hole& h : st.holes)
        if (h.offset == last + 1 && is_jump(h.sym) && h.addend == -4) st.trail = h.sym;
    }
    out->stencils.push_back(std::move(st));
  }
  return true;
}

std::string write_header(const Extracted& x, const std::string& source) {
  std::ostringstream os;
  os << "// Generated by quelkit_stencil_extract from " << source << ": do not edit.\n"
     << "// " << x.stencils.size() << " stencils: bytes, holes, read-only constants (jit/stencil/code.h).\n"
     << "#pragma once\n#include \"jit/stencil/code.h\"\n\n"
     << "namespace quelkit::jit::stencil::gen {\n\n";
  os << "inline constexpr uint64_t kFingerprint = " << hex(x.fingerprint) << "ULL;\n";
  os << "inline constexpr int kCount = " << x.stencils.size() << ";\n\n";
  auto bytes = [&](const char* name, auto get) {
    os << "alignas(16) inline constexpr uint8_t " << name << "[] = {";
    size_t n = 0;
    for (const auto& s : x.stencils)
      for (uint8_t b : get(s)) os << (n++ % 24 ? "" : "\n") << int(b) << ",";
    if (!n) os << "0";
    os << "\n};\n";
  };
  bytes("kBytes", [](const Extracted::Stencil& s) -> const std::vector<uint8_t>& { return s.bytes; });
  bytes("kData", [](const Extracted::Stencil& s) -> const std::vector<uint8_t>& { return s.data; });
  static const char* const patch[] = {"Abs64", "Abs32", "Abs32S", "Rel32"};
  static const char* const sym[] = {
#define QK_STENCIL_SYM_ID(id, name) #id,
      QK_STENCIL_HOLES(QK_STENCIL_SYM_ID)
#undef QK_STENCIL_SYM_ID
  };
  os << "\ninline constexpr Hole kHoles[] = {\n";
  size_t nh = 0;
  for (const auto& s : x.stencils)
    for (const Hole& h : s.holes) {
      os << "{" << h.offset << ",Patch::" << patch[int(h.patch)] << ",Sym::" << sym[int(h.sym)] << "," << h.index
         << "," << h.addend << "},\n";
      ++nh;
    }
  if (!nh) os << "{0, Patch::Abs64, Sym::Data, 0, 0},\n";
  os << "};\n\ninline constexpr Code kCode[] = {\n";
  uint32_t b = 0, hs = 0, d = 0;
  for (const auto& s : x.stencils) {
    os << "{" << b << "," << s.bytes.size() << "," << hs << "," << s.holes.size() << "," << d << "," << s.data.size()
       << ",Sym::" << sym[int(s.trail)] << "},  // " << s.name << "\n";
    b += uint32_t(s.bytes.size());
    hs += uint32_t(s.holes.size());
    d += uint32_t(s.data.size());
  }
  os << "};\n\ninline constexpr const char* kExterns[] = {";
  for (const auto& e : x.externs) os << "\"" << e << "\",";
  os << "};\n\n}  // namespace quelkit::jit::stencil::gen\n";
  return os.str();
}

}  // namespace quelkit::jit::stencil
