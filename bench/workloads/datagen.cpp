// Pieces the PARTS and Wisconsin generators share (bench/workloads/datagen.h).
#include "bench/workloads/datagen.h"

#include <cstring>
#include <sstream>

#include "runtime/runtime_inline.h"

namespace quelkit::harness {

uint64_t SplitMix64::next() {
  s_ += 0x9e3779b97f4a7c15ULL;
  return rt::mix64(s_);
}

void put_chars(uint8_t* dst, uint32_t width, std::string_view s) {
  rt::store_char(dst, width, reinterpret_cast<const uint8_t*>(s.data()), uint32_t(s.size()));
}

bool parse_structure(std::string_view word, Structure* out) {
  for (Structure s : {Structure::Heap, Structure::Isam, Structure::Hash})
    if (word == structure_name(s)) {
      *out = s;
      return true;
    }
  return false;
}

bool parse_count(std::string_view digits, uint64_t* out) {
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos) return false;
  uint64_t v = 0;
  for (char c : digits) v = v > (UINT64_MAX - 9) / 10 ? UINT64_MAX : v * 10 + uint64_t(c - '0');
  *out = v;
  return true;
}

bool split_data_spec(const std::string& spec, const std::string& option, uint64_t* rows,
                     std::vector<std::string>* qualifiers, std::string* err) {
  std::stringstream ss(spec);
  std::string part;
  std::getline(ss, part, ':');
  if (!parse_count(part, rows)) {
    *err = option + " needs a number of tuples, not '" + part + "'";
    return false;
  }
  qualifiers->clear();
  while (std::getline(ss, part, ':')) qualifiers->push_back(part);
  // getline drops a trailing empty field: "10:" would read as "10".
  if (!spec.empty() && spec.back() == ':') qualifiers->push_back("");
  int structures = 0;
  for (const std::string& q : *qualifiers) {
    Structure s = Structure::Heap;
    if (q.empty()) {
      *err = option + " '" + spec + "': an empty qualifier (nothing between or after ':')";
      return false;
    }
    if (parse_structure(q, &s) && ++structures > 1) {
      *err = option + " '" + spec + "': more than one structure (heap, isam, hash)";
      return false;
    }
  }
  return true;
}

}  // namespace quelkit::harness
