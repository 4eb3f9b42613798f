// The result sink's check of a replace (sinks.h).
#include "engine/sinks.h"

#include <cstring>

#include "engine/exec.h"

namespace quelkit::harness {

// A tuple seen again must get the same values (bit for bit) as the first time.
void ResultSink::check_replace(const uint8_t* data, size_t n, const Tid* tids) {
  const uint32_t len = r_.layout.tuple_len;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t key = uint64_t(tids[i].page) << 16 | tids[i].line;
    const size_t row = r_.tids.size() + i;
    // The map is made at the second row: a single-tuple replace needs none.
    if (row == 0) {
      first_key_ = key;
      continue;
    }
    if (row == 1) first_.emplace(first_key_, 0);
    auto [it, fresh] = first_.emplace(key, row);
    if (fresh) continue;
    const uint8_t* before = it->second < r_.tids.size() ? r_.rows.row(it->second)
                                                        : data + (it->second - r_.tids.size()) * len;
    if (std::memcmp(before, data + i * len, len) == 0) continue;
    int64_t ordinal = 0, at = -1;
    replaced_->for_each([&](Tid t, const uint8_t*) {
      ++ordinal;
      if (t == tids[i] && at < 0) at = ordinal;
    });
    Error e;
    e.kind = ErrKind::Runtime;
    e.code = QK_ERR_AMBIGUOUS_REPLACE;
    e.message = std::string(qk_err_message(QK_ERR_AMBIGUOUS_REPLACE)) +
                ": the qualification gives one tuple two different new values";
    e.pos = pos_;
    e.src = src_;
    e.relation = replaced_->name();
    e.tuple = at;
    throw RuntimeFailure{std::move(e)};
  }
}

}  // namespace quelkit::harness
