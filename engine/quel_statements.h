// The statements and names University INGRES had beside the kit's core:
// modify's variants (heapsort, cheapsort, cisam, chash, truncated, minpages,
// maxpages), help's manual sections and relation listing, save, and the
// system catalogs `relation` and `attribute` as read-only relations built
// from the session's catalog for the statement that reads them.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/ast.h"
#include "frontend/frontend.h"
#include "storage/catalog.h"

namespace quelkit::harness {

class UndoLog;

// modify: checks the statement against the relation (names, keys), then
// logs the relation's old pages to `undo` (if given) and rebuilds it.
void modify_relation(Relation& rel, const frontend::ast::Stmt& s, const SourceRef& src, UndoLog* undo);

// help rel: storage structure, tuples, pages, attributes; its indexes, or
// for an index the relation and domains it indexes.
void help_relation(std::ostream& out, const Relation& r, const Catalog& cat);

// The secondary indexes on `base` now: the catalog's relations its notes
// name that are indexes of it (a name an abort took back is passed over).
std::vector<Relation*> indexes_of(const Catalog& cat, const Relation& base);
// index on rel is name (domains): checks the names, builds the index, adds
// it to the catalog (through `undo` if given) and notes it on the base,
// whose plans are then stale (restructured()).
void create_index(Catalog& cat, Relation& base, const frontend::ast::Stmt& s, const SourceRef& src, UndoLog* undo);
// An append, replace, delete or copy from that would change an index
// directly: a name error there (an index changes only with its base).
void refuse_index_update(const frontend::ast::Stmt& s, const frontend::RangeTable& ranges, const Catalog& cat,
                         const SourceRef& src);
// help "section" / help quel: the kit's own short text of a manual section;
// nullptr if there is none of that name.
const char* manual_section(std::string_view name);

// The system catalogs.
bool is_system_catalog(std::string_view name);
// The catalog's relation as the session's relations are now (the two
// catalogs included, as INGRES listed them).
std::unique_ptr<Relation> build_system_catalog(std::string_view name, const Catalog& cat, uint32_t page_size);
// Whether a retrieve, append, replace or delete reads a system catalog;
// throws a name error at the place where one would be changed.
bool reads_system_catalog(const frontend::ast::Stmt& s, const frontend::RangeTable& ranges, const SourceRef& src);

}  // namespace quelkit::harness
