// The selectivity sweep's relation (sweep_data.h).
#include "bench/workloads/sweep_data.h"

#include <vector>

#include "bench/workloads/datagen.h"
#include "storage/page.h"

namespace quelkit::harness {

std::unique_ptr<Relation> make_sweep_relation(uint64_t n, uint32_t page_size, std::string name) {
  Schema schema = Schema::packed({{"pct", Type::i4()}, {"half", Type::i4()}, {"v", Type::i4()}});
  auto rel = std::make_unique<Relation>(std::move(name), schema, page_size);
  std::vector<uint8_t> t(schema.tuple_len);
  rel->reserve_tuples(n);  // exactly: no growth slack held in the memory budget
  SplitMix64 rng(kSweepSeed);
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t a = rng.next(), b = rng.next();
    store<int32_t>(t.data() + schema.attrs[0].offset, int32_t(a % 10000));
    store<int32_t>(t.data() + schema.attrs[1].offset, int32_t(b % 2));
    store<int32_t>(t.data() + schema.attrs[2].offset, int32_t(i));
    rel->insert(t.data());
  }
  return rel;
}

}  // namespace quelkit::harness
