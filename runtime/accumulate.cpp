// The accumulation helpers of accumulate.h. Written once, in C++ behind the C
// ABI: the harness's accumulation and the back ends' accumulating kernels
// call the same code, so their values and errors cannot drift apart.
#include "runtime/accumulate.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <unordered_set>
#include <vector>

#include "runtime/accumulate_inline.h"
#include "runtime/runtime_inline.h"

namespace {

template <class T>
T load_at(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

int64_t int_at(const qk_col& c, const uint8_t* row) {
  const uint8_t* p = row + c.offset;
  switch (c.kind) {
    case QK_COL_I1: return int8_t(p[0]);
    case QK_COL_I2: return load_at<int16_t>(p);
    case QK_COL_I4: return load_at<int32_t>(p);
    default: return p[0];  // bool
  }
}

double float_at(const qk_col& c, const uint8_t* row) {
  const uint8_t* p = row + c.offset;
  switch (c.kind) {
    case QK_COL_F4: return double(load_at<float>(p));
    case QK_COL_F8: return load_at<double>(p);
    default: return double(int_at(c, row));
  }
}

// A value as `=` tells values apart, written at `out`: integers by value (8
// bytes), floats with -0.0 equal to 0.0 (8 bytes), characters without
// blanks (rt::put_char_key: their length, then the bytes), so the keys of
// several columns concatenate unambiguously. At most key_room(c) bytes;
// returns how many. The bytes engine/aggregate.cpp's append_equality_key
// makes, so a group is what the join back on `=` finds.
uint32_t key_room(const qk_col& c) { return c.kind == QK_COL_C ? uint32_t(sizeof(uint32_t)) + c.len : 8; }

uint32_t put_key(const qk_col& c, const uint8_t* row, uint8_t* out) {
  switch (c.kind) {
    case QK_COL_F4:
    case QK_COL_F8: {
      double d = float_at(c, row);
      if (d == 0) d = 0;  // -0.0 and 0.0 are one value
      std::memcpy(out, &d, sizeof d);
      return sizeof d;
    }
    case QK_COL_C: return quelkit::rt::put_char_key(out, row + c.offset, c.len);
    default: {
      const int64_t i = int_at(c, row);
      std::memcpy(out, &i, sizeof i);
      return sizeof i;
    }
  }
}

void append_key(const qk_col& c, const uint8_t* row, std::string* key) {
  const size_t at = key->size();
  key->resize(at + key_room(c));
  key->resize(at + put_key(c, row, reinterpret_cast<uint8_t*>(key->data()) + at));
}

// A 64-bit hash of a group key of `words` 8-byte words (the key's bytes, then
// zeros to a word's end), each multiplied and folded in.
uint64_t hash_key(const uint64_t* w, uint32_t words, uint32_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
  for (uint32_t i = 0; i < words; ++i) {
    h = (h ^ w[i]) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  h *= 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 29);
}

using Seen = std::unordered_set<std::string>;

// The u variants: true if the value (its key) was counted before; else it is
// remembered now.
bool seen_before(qk_agg* g, const std::string& key) {
  if (!g->seen) g->seen = new Seen;
  return !static_cast<Seen*>(g->seen)->insert(key).second;
}

// A number added: an integer (int64) or a float (double), its equality key
// its 8 bytes (a float's -0.0 made 0.0); the rest is accumulate_inline.h's.
template <class T>
void add_value(qk_agg* g, T v, T* best) {
  if (g->err) return;
  if (g->is_unique) {
    const T k = v == 0 ? T(0) : v;
    if (seen_before(g, std::string(reinterpret_cast<const char*>(&k), sizeof k))) return;
  }
  quelkit::rt::agg_add_plain(g, g->fn, g->int_sum, v, best);
}

void init_agg(qk_agg* g, const qk_agg& proto) {
  std::memset(g, 0, sizeof *g);
  g->fn = proto.fn;
  g->is_unique = proto.is_unique;
  g->int_sum = proto.int_sum;
  g->arg = proto.arg;
  if (g->arg.kind == QK_COL_C && (g->fn == QK_AGG_MIN || g->fn == QK_AGG_MAX))
    g->best_c = new uint8_t[g->arg.len ? g->arg.len : 1];
}

void free_agg(qk_agg* g) {
  delete[] g->best_c;
  delete static_cast<Seen*>(g->seen);
  g->best_c = nullptr;
  g->seen = nullptr;
}

struct Group {
  std::unique_ptr<uint8_t[]> by;
  std::unique_ptr<qk_agg[]> aggs;
};

// The group table: groups in order of first appearance, found by an
// open-addressed index (linear probing, at most half full) of their keys'
// hashes; each group's key kept in one arena. A group's accumulators stay
// where they were made, so a pointer to them outlives later probes.
struct Groups {
  std::vector<Group> order;
  std::vector<uint64_t> hashes;     // each group's key hash
  std::vector<uint64_t> key_off;    // each group's key: its first word in keys, and its length in bytes
  std::vector<uint32_t> key_len;
  std::vector<uint64_t> keys;       // the keys, each whole words (zeros after its bytes)
  std::vector<uint32_t> slots;      // group + 1, or 0: empty; a power of two long
  std::vector<qk_agg> protos;
  int64_t (*probe)(qk_accum*, Groups*, const uint8_t*) noexcept = nullptr;  // through the front, or probe_key
  // What qk_group_find gives a row that makes no group: accumulators added
  // to and never read, reset as they are given out.
  std::unique_ptr<qk_agg[]> discard;
  std::vector<uint64_t> key;        // room for one row's key, and a word of zeros after it
  uint32_t mask = 0;
  // The front (qk_accum's front_*): kFrontSlots rows, given up once 65,536
  // lookups or more (the runtime's and the kernels' hits, front_hits) hit
  // under a quarter of the time.
  static constexpr uint32_t kFrontSlots = 1u << QK_FRONT_SLOT_BITS;
  std::vector<uint8_t> front_rows;
  std::vector<uint32_t> front_group;
  std::vector<qk_agg*> front_aggs;
  uint64_t front_lookups = 0, front_hits = 0;
  bool front_off = false;

  void grow() {
    const size_t n = slots.empty() ? 64 : slots.size() * 2;
    slots.assign(n, 0);
    mask = uint32_t(n - 1);
    for (uint32_t gi = 0; gi < order.size(); ++gi) {
      uint32_t s = uint32_t(hashes[gi]) & mask;
      while (slots[s]) s = (s + 1) & mask;
      slots[s] = gi + 1;
    }
  }
};

// The group of the row's by values through the table's index (qk_group_probe
// tries the front first).
int64_t probe_key(qk_accum* a, Groups* g, const uint8_t* row) noexcept {
  uint64_t* key = g->key.data();
  uint8_t* bytes = reinterpret_cast<uint8_t*>(key);
  uint32_t n = 0;
  for (uint32_t i = 0; i < a->nby; ++i) n += put_key(a->by[i], row, bytes + n);
  std::memset(bytes + n, 0, 8);
  const uint32_t words = (n + 7) / 8;
  const uint64_t h = hash_key(key, words, n);
  uint32_t s = uint32_t(h) & g->mask;
  for (; g->slots[s]; s = (s + 1) & g->mask) {
    const uint32_t gi = g->slots[s] - 1;
    if (g->hashes[gi] != h || g->key_len[gi] != n) continue;
    const uint64_t* k = g->keys.data() + g->key_off[gi];
    uint32_t i = 0;
    while (i < words && k[i] == key[i]) ++i;
    if (i == words) return int64_t(gi);
  }
  if (a->err) return -1;
  const uint64_t more = a->by_len + 2 * n + 64 + a->naggs * (sizeof(qk_agg) + 16);
  if (a->bytes + more > a->room || g->order.size() >= UINT32_MAX / 2) {
    a->err = QK_ERR_MEMORY;
    return -1;
  }
  a->bytes += more;
  Group gr;
  gr.by.reset(new uint8_t[a->by_len ? a->by_len : 1]);
  std::memcpy(gr.by.get(), row, a->by_len);
  gr.aggs.reset(new qk_agg[a->naggs ? a->naggs : 1]);
  for (uint32_t i = 0; i < a->naggs; ++i) init_agg(&gr.aggs[i], g->protos[i]);
  const uint32_t gi = uint32_t(g->order.size());
  g->order.push_back(std::move(gr));
  g->hashes.push_back(h);
  g->key_off.push_back(g->keys.size());
  g->key_len.push_back(n);
  g->keys.insert(g->keys.end(), key, key + words);
  g->slots[s] = gi + 1;
  if (2 * (size_t(gi) + 1) > g->slots.size()) g->grow();
  return int64_t(gi);
}

void front_give_up(Groups* g) {
  g->front_off = true;
  g->probe = probe_key;
  std::fill(g->front_group.begin(), g->front_group.end(), 0u);
}

// qk_group_probe through the front, for by values of N bytes (0: by_len,
// read with calls), so the common widths (up to 40 bytes) hash and compare
// in registers.
template <uint32_t N>
int64_t probe_front(qk_accum* a, Groups* g, const uint8_t* row) noexcept {
  const uint32_t n = N ? N : a->by_len;
  const uint32_t first = quelkit::rt::front_slot(row, n, a->front_slots);
  ++g->front_lookups;
  for (const uint32_t s : {first, first ^ 1u})  // two ways: the slot and its pair (accumulate.h)
    if (a->front_group[s] && std::memcmp(a->front_rows + size_t(s) * n, row, n) == 0) {
      ++g->front_hits;
      return int64_t(a->front_group[s]) - 1;
    }
  const int64_t gi = probe_key(a, g, row);
  if (gi < 0 || g->front_off || a->probe_only) return gi;
  const uint64_t lookups = g->front_lookups + a->front_hits, hits = g->front_hits + a->front_hits;
  if (lookups >= (1u << 16) && hits < lookups / 4) {
    front_give_up(g);
    return gi;
  }
  // An empty way, else the slot itself (its pair keeps its row).
  const uint32_t s = a->front_group[first] && !a->front_group[first ^ 1u] ? first ^ 1u : first;
  std::memcpy(a->front_rows + size_t(s) * n, row, n);
  a->front_group[s] = uint32_t(gi) + 1;
  a->front_aggs[s] = g->order[size_t(gi)].aggs.get();
  return gi;
}

template <uint32_t... N>
auto probe_front_for(uint32_t n, std::integer_sequence<uint32_t, N...>) {
  int64_t (*p)(qk_accum*, Groups*, const uint8_t*) noexcept = probe_front<0>;
  ((n == N + 1 ? (p = probe_front<N + 1>, 0) : 0), ...);
  return p;
}

}  // namespace

extern "C" {

void qk_agg_add_i(qk_agg* g, int64_t v) noexcept { add_value(g, v, &g->best_i); }

void qk_agg_add_f(qk_agg* g, double v) noexcept { add_value(g, v, &g->best_f); }

void qk_agg_add_c(qk_agg* g, const uint8_t* v) noexcept {
  if (g->err) return;
  const uint32_t len = g->arg.len;
  if (g->is_unique) {
    std::string key;
    qk_col at = g->arg;
    at.offset = 0;
    append_key(at, v, &key);
    if (seen_before(g, key)) return;
  }
  if (g->fn == QK_AGG_MIN || g->fn == QK_AGG_MAX) {
    const int c = g->has_best ? quelkit::rt::char_cmp(v, len, g->best_c, len) : 0;
    if (!g->has_best || (g->fn == QK_AGG_MIN ? c < 0 : c > 0)) {
      std::memcpy(g->best_c, v, len);
      g->has_best = 1;
    }
  }
  if (quelkit::rt::agg_keeps_count(g->fn)) ++g->count;  // (characters are neither summed nor averaged)
}

void qk_agg_add_row(qk_agg* g, const uint8_t* row) noexcept {
  // A count reads no value (and cannot fail): the commonest aggregate, and
  // the one whose per-tuple cost is all call and dispatch.
  if (g->fn == QK_AGG_COUNT && !g->is_unique) {
    ++g->count;
    return;
  }
  switch (g->arg.kind) {
    case QK_COL_F4:
    case QK_COL_F8: qk_agg_add_f(g, float_at(g->arg, row)); break;
    case QK_COL_C: qk_agg_add_c(g, row + g->arg.offset); break;
    default: qk_agg_add_i(g, int_at(g->arg, row)); break;
  }
}

qk_accum* qk_accum_new(uint32_t naggs, const qk_agg* protos, uint32_t nby, const qk_col* by, uint32_t row_len,
                       uint64_t room) noexcept {
  auto* a = new qk_accum{};
  a->naggs = naggs;
  a->nby = nby;
  a->row_len = row_len;
  a->row = new uint8_t[row_len ? row_len : 1]();
  a->room = room;
  if (nby) {
    a->by = new qk_col[nby];
    std::memcpy(a->by, by, nby * sizeof *by);
    a->by_len = by[nby - 1].offset + by[nby - 1].len;
    auto* g = new Groups;
    g->protos.assign(protos, protos + naggs);
    g->discard.reset(new qk_agg[naggs ? naggs : 1]);
    for (uint32_t i = 0; i < naggs; ++i) init_agg(&g->discard[i], protos[i]);
    uint32_t room_key = 0;
    for (uint32_t i = 0; i < nby; ++i) room_key += key_room(by[i]);
    g->key.resize(room_key / 8 + 2);
    g->probe = probe_key;
    if (a->by_len && a->by_len <= QK_FRONT_MAX_LEN) {
      g->front_rows.resize(size_t(Groups::kFrontSlots) * a->by_len);
      g->front_group.assign(Groups::kFrontSlots, 0);
      g->front_aggs.assign(Groups::kFrontSlots, nullptr);
      a->front_slots = Groups::kFrontSlots;
      a->front_rows = g->front_rows.data();
      a->front_group = g->front_group.data();
      a->front_aggs = g->front_aggs.data();
      g->probe = probe_front_for(a->by_len, std::make_integer_sequence<uint32_t, 40>{});
    }
    g->grow();
    a->groups = g;
  } else {
    a->aggs = new qk_agg[naggs ? naggs : 1];
    for (uint32_t i = 0; i < naggs; ++i) init_agg(&a->aggs[i], protos[i]);
  }
  return a;
}

void qk_accum_free(qk_accum* a) noexcept {
  if (!a) return;
  if (auto* g = static_cast<Groups*>(a->groups)) {
    for (Group& gr : g->order)
      for (uint32_t i = 0; i < a->naggs; ++i) free_agg(&gr.aggs[i]);
    for (uint32_t i = 0; i < a->naggs; ++i) free_agg(&g->discard[i]);
    delete g;
  } else {
    for (uint32_t i = 0; i < a->naggs; ++i) free_agg(&a->aggs[i]);
  }
  delete[] a->aggs;
  delete[] a->by;
  delete[] a->row;
  delete a;
}

int64_t qk_group_probe(qk_accum* a, const uint8_t* row) noexcept {
  auto* g = static_cast<Groups*>(a->groups);
  return g->probe(a, g, row);
}

const qk_agg* qk_accum_protos(const qk_accum* a) noexcept {
  return a->groups ? static_cast<const Groups*>(a->groups)->protos.data() : a->aggs;
}

uint64_t qk_group_count(const qk_accum* a) noexcept {
  return a->groups ? static_cast<const Groups*>(a->groups)->order.size() : 0;
}

qk_agg* qk_group_aggs(qk_accum* a, uint64_t group) noexcept {
  return static_cast<Groups*>(a->groups)->order[group].aggs.get();
}

const uint8_t* qk_group_row(const qk_accum* a, uint64_t group) noexcept {
  return static_cast<const Groups*>(a->groups)->order[group].by.get();
}

qk_agg* qk_group_find(qk_accum* a, const uint8_t* row) noexcept {
  auto* g = static_cast<Groups*>(a->groups);
  const int64_t slot = qk_group_probe(a, row);
  if (slot < 0 || a->probe_only) return g->discard.get();
  return g->order[size_t(slot)].aggs.get();
}

void qk_accum_row(qk_accum* a, const uint8_t* row) noexcept {
  qk_agg* aggs = a->aggs;
  if (a->nby) {
    const int64_t slot = qk_group_probe(a, row);
    if (slot < 0 || a->probe_only) return;
    aggs = qk_group_aggs(a, uint64_t(slot));
  }
  for (uint32_t i = 0; i < a->naggs; ++i) qk_agg_add_row(&aggs[i], row);
}

}  // extern "C"
