// The session a Google Benchmark suite times a paper query in: the parts
// relation of the query's kind, its range variables declared and the query
// bound once, so timed iterations only evaluate. Built on first use (a filter
// selects what is built) and kept for the binary's life. One definition for
// every suite (paper_bench, vector_bench), so they set up alike.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "frontend/frontend.h"
#include "storage/page.h"
#include "bench/workloads/parts.h"
#include "storage/relation.h"
#include "engine/session.h"
#include "bench/measure/paper_queries.h"

namespace quelkit::bench {

// What a fixture is built for; each distinct one is built once.
struct FixtureSpec {
  std::string backend;  // backend:mode, as -b takes it
  uint64_t tuples = 0;
  harness::Structure structure = harness::Structure::Heap;
  uint32_t page = harness::kDefaultPageSize;
  uint32_t batch = 0;  // tuples per vector batch; 0: the back end's default
};

struct Fixture {
  std::ostringstream out, err;
  std::unique_ptr<harness::Session> session;
  SourceRef src;
  frontend::BoundQuery q;
};

inline Fixture& fixture(const PaperQuerySpec& pq, const FixtureSpec& s) {
  static std::map<std::string, std::unique_ptr<Fixture>> cache;
  std::string key = std::string(pq.id) + "/" + harness::structure_name(s.structure) + "/" + s.backend + "/" +
                    std::to_string(s.page) + "/" + std::to_string(s.batch) + "/" + std::to_string(s.tuples);
  auto& f = cache[key];
  if (!f) {
    f = std::make_unique<Fixture>();
    harness::SessionOptions o;
    o.backends = harness::parse_backend_list(s.backend);
    o.format = harness::OutFormat::None;
    o.page_size = s.page;
    o.prepare.vector_batch = s.batch;
    f->session = std::make_unique<harness::Session>(o, f->out, f->err);
    // The keyed queries (e)-(i) read the wide relation.
    f->session->catalog().add(harness::make_parts(s.tuples, pq.keyed, s.structure, s.page));
    f->session->run(std::make_shared<Source>("<bench>", "range of p is parts range of q is parts"));
    f->src = std::make_shared<Source>(std::string("<") + pq.id + ">", pq.text);
    auto stmts = frontend::parse(f->src);
    f->q = frontend::bind(*stmts[0], f->session->ranges(), f->session->catalog(), f->src);
  }
  return *f;
}

}  // namespace quelkit::bench
