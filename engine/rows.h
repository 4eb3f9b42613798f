// Reading, comparing and printing packed rows: the terminal table, CSV and
// JSON Lines output, sort by / unique, and the first-difference message of a back-end mismatch.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "frontend/ir.h"
#include "frontend/schema.h"
#include "engine/result_rows.h"

namespace quelkit::harness {

ir::Value get_value(const Attribute& a, const uint8_t* row);
// Writes v (of a's numeric type, or characters padded/truncated) into the row.
void put_value(const Attribute& a, const ir::Value& v, uint8_t* row);
// Copies a value of type `from` stored at src into attribute `to` of row
// (characters blank padded or truncated; numbers must already have to's type).
void copy_value(Type from, const uint8_t* src, const Attribute& to, uint8_t* row);
// An integer attribute's value (i1, i2, i4; bool), widened, read in place.
int64_t int_value(const Attribute& a, const uint8_t* row);
// Orders two values of the same attribute as QUEL compares them, read in
// place (sort by, unique, min and max compare rows with it).
int compare_value(const Attribute& a, const uint8_t* x, const uint8_t* y);
std::string value_text(const Attribute& a, const uint8_t* row);

// INGRES-style terminal table of the rows.
void print_table(std::ostream& os, const Schema& s, const ResultRows& rows);
// CSV with a header line, values as `quelkit gen` writes them. A row of one
// empty value is written `""`, so that no row is a blank line (the line
// between two results under --format csv).
void print_csv(std::ostream& os, const Schema& s, const ResultRows& rows);
// --format json: JSON Lines, one object per row, {"stmt": stmt, then each
// column by its key (json_keys)}; numbers as numbers, characters as strings
// without their trailing blanks, each byte that is not UTF-8 written as the
// four characters \xNN (as the terminal table shows it), so each line is
// valid JSON.
void print_json(std::ostream& os, const Schema& s, const ResultRows& rows, int stmt);
// The keys of a row's object: each column's name, but a name already taken
// ("stmt" is, by the statement number) gets the first free suffix _2, _3,
// ... (two targets named qoh: qoh, qoh_2).
std::vector<std::string> json_keys(const Schema& s);

}  // namespace quelkit::harness
