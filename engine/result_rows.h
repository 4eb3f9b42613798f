// Where a statement's result rows are stored while it runs: projected, packed
// rows (the result layout's tuple_len each) in result order, in chunks that
// the result grows by. A row is written once, by the scan loop or a back
// end's page kernel, where it stays: no chunk is ever copied to grow the
// result. Chunks are charged to the memory budget (budget.h) before they are
// taken, so a result too large for it is the statement error "memory budget
// exceeded", and freed chunks are pooled for the next statement, so a repeated
// run (--repeat) does not fault the same memory in again on the clock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "storage/budget.h"

namespace quelkit::harness {

class ResultRows {
 public:
  ResultRows() = default;
  explicit ResultRows(uint32_t row_len) : len_(row_len) {}
  // `what`: the rows as the memory budget's error names them.
  ResultRows(uint32_t row_len, std::string what) : len_(row_len), what_(std::move(what)) {}
  ResultRows(ResultRows&& o) noexcept;
  ResultRows& operator=(ResultRows&& o) noexcept;
  ResultRows(const ResultRows&) = delete;
  ResultRows& operator=(const ResultRows&) = delete;
  ~ResultRows() { clear(); }
  // An empty one's row length and name, set in place (a statement's result,
  // without a ResultRows made and moved in).
  void shape(uint32_t row_len, const std::string& what) {
    clear();
    len_ = row_len;
    what_ = what;
  }

  uint32_t row_len() const { return len_; }
  const std::string& what() const { return what_; }
  size_t size() const { return rows_; }
  bool empty() const { return rows_ == 0; }
  // Bytes of the rows (size() * row_len()); what the chunks hold may be more.
  uint64_t bytes() const { return uint64_t(rows_) * len_; }

  // Where the next rows go, contiguous, with room for at least `min_rows`
  // (a new chunk when the current one has less); *room is set to how many
  // rows fit there. Nothing is a row until commit(). Throws the statement
  // error "memory budget exceeded" when a new chunk would not fit.
  uint8_t* room(size_t min_rows, size_t* room);
  // The first n rows at the last room() are rows now (n <= its *room).
  void commit(size_t n);
  void append(const uint8_t* rows, size_t n);  // room + copy + commit

  // Row i (0-based, result order): a search over the chunks, for readers
  // after the run (printing, comparing); the scan only appends.
  const uint8_t* row(size_t i) const;
  // f(rows, n) for each chunk's rows in order: the way to read them all.
  template <class F>
  void for_each_run(F&& f) const {
    for (const Chunk& c : chunks_)
      if (c.rows) f(static_cast<const uint8_t*>(c.mem), c.rows);
  }
  // Chunks back to the pool, no rows left (the row length stays).
  void clear();
  friend bool operator==(const ResultRows& a, const ResultRows& b);

 private:
  struct Chunk {
    uint8_t* mem;
    size_t bytes;  // capacity
    size_t rows;   // rows in use
    size_t first;  // index of its first row in the result
  };
  uint32_t len_ = 0;
  size_t rows_ = 0;
  std::vector<Chunk> chunks_;
  MemCharge charge_;  // the chunks' bytes
  std::string what_ = "the result";
};

// Frees the pooled chunks no result holds (tests, and a session that wants
// its memory back); the pool is otherwise bounded (result_rows.cpp).
void trim_result_pool();

}  // namespace quelkit::harness
