// The engine's routines as `quelkit profile` names them
// (runtime/routine_table.h): the scan loop and access paths (the paper's SCAN),
// storage, plans and the plan cache, the statement driver, and the output side
// (row formatting, the paper's FWRITE; sinks and the result checksum).
#pragma once

#include "engine/access_path.h"
#include "storage/checksum.h"
#include "engine/engine.h"
#include "storage/relation.h"
#include "runtime/routine_table.h"
#include "engine/rows.h"
#include "engine/session.h"

namespace quelkit::harness {

namespace hot {
inline constexpr std::string_view kPlans = "plans: building, access-path choice, plan cache";
inline constexpr std::string_view kDriver = "statement driver: decomposition, substitution";
inline constexpr std::string_view kSinks = "result rows: sink and checksum";
}  // namespace hot

// Exec (the scan loop and the statement driver, exec.h) and the plan helpers
// are internal to the engine: their rows are checked by name only.
inline constexpr HotRoutine kHotRoutines[] = {
    {"harness::Exec::execute", hot::Scan, "scan loop: setting up a plan's scan", "SCAN"},
    {"harness::Exec::Scan::*", hot::Scan, "scan loop: page walk, line table, tuple fetch, qualify/project calls",
     "SCAN"},
    {"harness::Relation::scan_pages", hot::Scan, "access path: the relation's pages in scan order", "SCAN",
     hot::address_of<&Relation::scan_pages>},
    // Inline: a routine of its own only in unoptimised builds (the address keeps a copy for the check).
    {"harness::Relation::page", hot::Scan, "access path: the relation's pages in scan order", "SCAN",
     hot::address_of<&Relation::page>},
    {"harness::Relation::*", hot::Scan, "storage: pages, inserts, key lookups"},

    {"harness::print_table", hot::Output, "output: formatting rows as a table", "FWRITE", hot::address_of<&print_table>},
    {"harness::print_csv", hot::Output, "output: formatting rows as a table", "FWRITE", hot::address_of<&print_csv>},
    {"harness::value_text", hot::Output, "output: formatting and writing rows", "FWRITE", hot::address_of<&value_text>},
    {"harness::get_value", hot::Output, "output: formatting and writing rows", "FWRITE", hot::address_of<&get_value>},
    {"harness::row_hash", hot::Output, hot::kSinks, "", hot::address_of<&row_hash>},
    {"harness::hash_lanes<*", hot::Output, hot::kSinks},  // row_hash and Checksum::add_rows, several rows at once
    {"harness::checksum_hex", hot::Output, hot::kSinks, "", hot::address_of<&checksum_hex>},
    {"harness::Checksum::*", hot::Output, hot::kSinks, "", hot::address_of<&Checksum::add>},
    {"harness::ResultSink::*", hot::Output, hot::kSinks},
    {"harness::TempSink::*", hot::Output, hot::kSinks},
    {"harness::CountSink::*", hot::Output, hot::kSinks},
    {"harness::ResultRows::*", hot::Output, hot::kSinks, "", hot::address_of<&ResultRows::room>},

    {"harness::Exec::make_plan", hot::Prepare, hot::kPlans},
    {"harness::choose_access", hot::Prepare, hot::kPlans, "", hot::address_of<&choose_access>},
    {"harness::Exec::rewrite", hot::Prepare, hot::kPlans},
    {"harness::Plan::*", hot::Prepare, hot::kPlans},
    {"harness::PlanCache::*", hot::Prepare, hot::kPlans, "", hot::address_of<&PlanCache::find>},
    {"harness::Runner::get", hot::Prepare, hot::kPlans, "", hot::address_of<&Runner::get>},
    {"harness::refs", hot::Prepare, hot::kPlans},
    {"harness::attr_refs", hot::Prepare, hot::kPlans},
    {"harness::layout_text", hot::Prepare, hot::kPlans},

    {"harness::Engine::evaluate", hot::Scan, hot::kDriver, "", hot::address_of<&Engine::evaluate>},
    {"harness::Session::run_statement", hot::Scan, hot::kDriver, "", hot::address_of<&Session::run_statement>},
    {"harness::Exec::*", hot::Scan, hot::kDriver},
    {"harness::*", hot::Scan, "harness"},
};

}  // namespace quelkit::harness
