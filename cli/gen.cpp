// `quelkit gen` (cli/gen.h): one CLI11 subcommand per data set, each with
// only the options that mean something for it (--wide for PARTS, --seed for
// Wisconsin), so a misplaced one is a usage error rather than ignored.
#include "cli/gen.h"

#include <iostream>
#include <memory>

#include "bench/workloads/parts.h"
#include "bench/workloads/wisconsin.h"
#include "storage/whole_file.h"

namespace quelkit::cli {

namespace {

struct GenOptions {
  uint64_t rows = 0, seed = harness::kWisconsinSeed;
  bool wide = false;
  std::string csv;
  std::string parts_rows;  // checked as --parts' count is (harness::parts_rows_refusal)
};

int write_csv(const GenOptions& o, bool wisconsin) {
  auto write = [&](std::ostream& os) {
    if (wisconsin) harness::write_wisconsin_csv(os, o.rows, o.seed);
    else harness::write_parts_csv(os, o.rows, o.wide);
  };
  if (o.csv.empty() || o.csv == "-") {
    write(std::cout);
    return 0;
  }
  // Written whole or not at all: a failed write (the disk full, the
  // file-size limit) leaves the old file, or none, never a truncated one.
  harness::WholeFile f(o.csv);
  if (f.ok()) write(f.stream());
  if (!f.commit()) {
    std::cerr << "quelkit: error: " << f.error() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

Run define_gen(CLI::App& app, const std::vector<std::string>&) {
  auto o = std::make_shared<GenOptions>();
  CLI::App* parts = app.add_subcommand("parts", "the PARTS data as CSV (pnum,pname,color,weight,qoh)");
  // PARTS' bound is pnum's, an i4: the same check, in the same words, as --parts.
  parts->add_option("--rows", o->parts_rows, "tuples (at most 2147483647: pnum is an i4)")->required()->type_name("N");
  parts->add_flag("--wide", o->wide, "the wide variant: a sixth column, filler (c166, all blanks: empty in the file; 200-byte tuples)");
  parts->add_option("--csv", o->csv, "write to FILE (default: standard output)")
      ->check(a_name("a file name"))
      ->type_name("FILE");
  CLI::App* wisc = app.add_subcommand("wisconsin", "the Wisconsin data as CSV (unique1,...,string4)");
  wisc->add_option("--rows", o->rows, "tuples")
      ->required()
      ->check(whole(0, harness::kWisconsinMaxRows))
      ->type_name("N");
  wisc->add_option("--seed", o->seed, "generator seed (default 1983)")->check(whole(0))->type_name("S");
  wisc->add_option("--csv", o->csv, "write to FILE (default: standard output)")
      ->check(a_name("a file name"))
      ->type_name("FILE");
  return [o, parts, wisc] {
    if (!parts->parsed() && !wisc->parsed()) usage_error("say what to generate: quelkit gen parts|wisconsin --rows N");
    if (parts->parsed()) {
      if (std::string why = harness::parts_rows_refusal("--rows", o->parts_rows); !why.empty()) usage_error(why);
      o->rows = std::stoull(o->parts_rows);  // digits, at most kPartsMaxRows
    }
    return write_csv(*o, wisc->parsed());
  };
}

}  // namespace quelkit::cli
