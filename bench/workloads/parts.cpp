// The PARTS generator. Everything here follows DESIGN.md to the bit: the Python
// oracle (test/oracle/oracle.py) reimplements it independently and the tests
// require byte-identical CSV from both.
#include "bench/workloads/parts.h"

#include <algorithm>
#include <cstring>
#include <ostream>
#include <unordered_map>

namespace quelkit::harness {

namespace {

constexpr const char* kNames[20] = {"processor", "bolt",   "nut",     "screw",  "washer",
                                    "gear",      "cam",    "cog",     "spring", "bearing",
                                    "shaft",     "pulley", "valve",   "gasket", "piston",
                                    "rotor",     "sensor", "relay",   "switch", "fuse"};
constexpr const char* kColors[7] = {"red", "green", "blue", "white", "yellow", "gray", "brown"};

}  // namespace

Schema parts_schema(uint64_t rows, bool wide) {
  std::vector<std::pair<std::string, Type>> cols = {
      {"pnum", rows <= 32767 ? Type::i2() : Type::i4()},
      {"pname", Type::c(20)},
      {"color", Type::c(8)},
      {"weight", Type::i2()},
      {"qoh", Type::i2()}};
  if (wide) cols.push_back({"filler", Type::c(kWideFillerLen)});
  return Schema::packed(cols);
}

bool PartsGenerator::next(PartsRow& row) {
  if (done_ == n_) return false;
  uint64_t a = rng_.next(), b = rng_.next(), c = rng_.next(), d = rng_.next();
  row.pnum = int32_t(++done_);
  row.pname = kNames[a % 20];
  row.color = b % 100 == 0 ? "black" : kColors[(b % 100) % 7];
  row.weight = int(1 + c % 100);
  row.qoh = int(d % 500);
  return true;
}

std::vector<PartsRow> parts_rows(uint64_t n) {
  std::vector<PartsRow> rows;
  rows.reserve(n);
  PartsGenerator g(n);
  PartsRow r;
  while (g.next(r)) rows.push_back(r);
  return rows;
}

void pack_parts_row(const Schema& schema, const PartsRow& row, uint8_t* t) {
  const auto& at = schema.attrs;
  if (at[0].type.kind == Tk::I2)
    store<int16_t>(t + at[0].offset, int16_t(row.pnum));
  else
    store<int32_t>(t + at[0].offset, row.pnum);
  put_chars(t + at[1].offset, at[1].type.len, row.pname);
  put_chars(t + at[2].offset, at[2].type.len, row.color);
  store<int16_t>(t + at[3].offset, int16_t(row.weight));
  store<int16_t>(t + at[4].offset, int16_t(row.qoh));
  if (at.size() > 5) std::memset(t + at[5].offset, ' ', at[5].type.len);
}

uint64_t parts_held_back_count(uint64_t n) {
  // floor(n*130/3360 + 1/2) in integers; exact for any n this kit can hold.
  return (2 * n * 130 + 3360) / (2 * 3360);
}

std::vector<int32_t> parts_held_back(uint64_t n) {
  PartsGenerator g(n);
  PartsRow r;
  while (g.next(r)) {
  }
  uint64_t want = parts_held_back_count(n);
  std::vector<bool> seen(n + 1, false);
  std::vector<int32_t> out;
  out.reserve(want);
  while (out.size() < want) {
    uint64_t k = 1 + g.rng().next() % n;
    if (seen[k]) continue;
    seen[k] = true;
    out.push_back(int32_t(k));
  }
  return out;
}

std::unique_ptr<Relation> make_parts(uint64_t n, bool wide, Structure s, uint32_t page_size,
                                     std::string name) {
  Schema schema = parts_schema(n, wide);
  auto rel = std::make_unique<Relation>(std::move(name), schema, page_size);
  std::vector<uint8_t> tuple(schema.tuple_len);

  std::vector<int32_t> held;
  if (s != Structure::Heap) held = parts_held_back(n);
  // Held-back rows are kept packed, in drawn order, so the generator runs once.
  std::unordered_map<int32_t, size_t> held_slot;
  for (size_t i = 0; i < held.size(); ++i) held_slot.emplace(held[i], i);
  std::vector<uint8_t> held_tuples(held.size() * schema.tuple_len);

  rel->reserve_tuples(n);  // exactly: no growth slack held in the memory budget
  PartsGenerator g(n);
  PartsRow r;
  while (g.next(r)) {
    if (!held_slot.empty()) {
      auto it = held_slot.find(r.pnum);
      if (it != held_slot.end()) {
        pack_parts_row(schema, r, held_tuples.data() + it->second * schema.tuple_len);
        continue;
      }
    }
    pack_parts_row(schema, r, tuple.data());
    rel->insert(tuple.data());
  }
  if (s == Structure::Heap) return rel;

  rel->modify(s, schema.find("pnum"), 0);
  for (size_t i = 0; i < held.size(); ++i) rel->insert(held_tuples.data() + i * schema.tuple_len);
  return rel;
}

void write_parts_csv(std::ostream& os, uint64_t n, bool wide) {
  // The wide variant's filler is a sixth column, empty: its value is all
  // blanks, and values are written without trailing blanks, as `copy into`
  // writes them (the file round-trips through copy).
  const std::string filler = wide ? "," : "";
  os << "pnum,pname,color,weight,qoh" << (wide ? ",filler" : "") << '\n';
  PartsGenerator g(n);
  PartsRow r;
  std::string line;
  while (g.next(r)) {
    line.clear();
    line += std::to_string(r.pnum);
    line += ',';
    line += r.pname;
    line += ',';
    line += r.color;
    line += ',';
    line += std::to_string(r.weight);
    line += ',';
    line += std::to_string(r.qoh);
    line += filler;
    line += '\n';
    os << line;
  }
}

bool parse_parts_spec(const std::string& spec, PartsSpec* out, std::string* err) {
  PartsSpec p;
  std::vector<std::string> quals;
  if (!split_data_spec(spec, "--parts", &p.rows, &quals, err)) return false;
  if (std::string why = parts_rows_refusal("--parts", spec.substr(0, spec.find(':'))); !why.empty()) {
    *err = why;
    return false;
  }
  for (const std::string& q : quals) {
    if (parse_structure(q, &p.s)) continue;
    Structure ignored = Structure::Heap;
    if (const std::string word = q.substr(0, q.find('=')); word != q && (word == "wide" || parse_structure(word, &ignored))) {
      *err = "--parts: " + word + " takes no value, not '" + q + "'";
      return false;
    }
    if (q != "wide") {
      *err = "--parts: unknown qualifier '" + q + "' (heap, isam, hash, wide)";
      return false;
    }
    p.wide = true;
  }
  *out = p;
  return true;
}

std::string parts_rows_refusal(const std::string& option, const std::string& count) {
  uint64_t rows = 0;
  if (!parse_count(count, &rows)) return option + " needs a number of tuples, not '" + count + "'";
  if (rows > kPartsMaxRows)
    return option + " " + count + ": at most " + std::to_string(kPartsMaxRows) + " tuples (pnum is an i4)";
  return "";
}

uint64_t parts_memory_needed(const PartsSpec& spec, uint32_t page_size) {
  const uint64_t n = spec.rows, len = parts_schema(spec.rows, spec.wide).tuple_len;
  const uint64_t tpp = std::max<uint64_t>(1, tuples_per_page(page_size, uint32_t(len)));
  const uint64_t heap_pages = (n + tpp - 1) / tpp;
  if (spec.s == Structure::Heap) return heap_pages * page_size;
  // modify: the tuples copied, the new primary pages (hash: half full, and
  // room for overflow chains), then the held-back tuples' overflow pages.
  const uint64_t primary = spec.s == Structure::Hash ? 2 * heap_pages : heap_pages;
  const uint64_t worst = spec.s == Structure::Hash ? primary + heap_pages : primary;
  return n * len + worst * page_size + parts_held_back_count(n) * page_size;
}

}  // namespace quelkit::harness
