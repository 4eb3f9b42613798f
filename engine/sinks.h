// The sinks a scan writes rows into (engine.h's Sink): the statement's
// result (with the check that a replace gives each tuple one set of values),
// a detachment's temporary, --sink count's counter, and an aggregate's
// accumulation.
#pragma once

#include <unordered_map>
#include <vector>

#include "engine/engine.h"

namespace quelkit::harness {

// Inserts detached rows into the temporary.
class TempSink : public Sink {
 public:
  explicit TempSink(Relation& r) : rel_(r) {}
  uint8_t* room(size_t min_rows, size_t* room) override {
    if (buf_.size() < min_rows * rel_.tuple_len() + 1) buf_.resize(min_rows * rel_.tuple_len() + 1);
    *room = min_rows;
    return buf_.data();
  }
  void wrote(size_t n, const Tid*) override {
    for (size_t i = 0; i < n; ++i) rel_.insert(buf_.data() + i * rel_.tuple_len());
  }

 private:
  Relation& rel_;
  std::vector<uint8_t> buf_;
};

class ResultSink : public Sink {
 public:
  // `replaced` (replace only): the updated relation, whose tuples must each
  // get one set of new values however many combinations qualify them.
  ResultSink(Result& r, const Relation* replaced, SrcPos pos, const SourceRef& src)
      : r_(r), replaced_(replaced), pos_(pos), src_(src) {}
  uint8_t* room(size_t min_rows, size_t* room) override { return at_ = r_.rows.room(min_rows, room); }
  void wrote(size_t n, const Tid* tids) override {
    if (tids) {
      reserve_charged(r_.tids, r_.tids.size() + n, r_.tids_charge, r_.rows.what());
      if (replaced_) check_replace(at_, n, tids);
      r_.tids.insert(r_.tids.end(), tids, tids + n);
    }
    r_.rows.commit(n);
  }

 private:
  // A tuple seen again must get the same values (bit for bit) as the first time.
  void check_replace(const uint8_t* data, size_t n, const Tid* tids);

  Result& r_;
  const Relation* replaced_;
  SrcPos pos_;
  SourceRef src_;
  uint8_t* at_ = nullptr;  // the last room given
  std::unordered_map<uint64_t, size_t> first_;  // tid -> its first row, from the second row on
  uint64_t first_key_ = 0;                      // the first row's tid
};

// --sink count: rows of no columns, counted. Room is endless and the rows
// take no bytes, so the scan hands them over once, at its end.
class CountSink : public Sink {
 public:
  uint8_t* room(size_t, size_t* room) override {
    *room = size_t(1) << 40;
    return &none_;
  }
  void wrote(size_t n, const Tid*) override { count += n; }
  uint64_t count = 0;

 private:
  uint8_t none_ = 0;
};

// An aggregate's inner query: the rows its back end projected accumulated as
// they arrive (the harness's accumulation: runtime/accumulate.h, the code a
// back end's accumulating kernel calls), none kept. A scan whose back end
// accumulates hands the block to its kernel instead (accumulator()).
class AccumSink : public Sink {
 public:
  AccumSink(qk_accum* acc, uint32_t row_len) : acc_(acc), len_(row_len) {}
  uint8_t* room(size_t min_rows, size_t* room) override {
    if (buf_.size() < min_rows * len_ + 1) buf_.resize(min_rows * len_ + 1);
    *room = min_rows;
    return buf_.data();
  }
  void wrote(size_t n, const Tid*) override {
    for (size_t i = 0; i < n; ++i) qk_accum_row(acc_, buf_.data() + i * len_);
  }
  qk_accum* accumulator() override { return acc_; }

 private:
  qk_accum* acc_;
  uint32_t len_;
  std::vector<uint8_t> buf_;
};

}  // namespace quelkit::harness
