// The terminal monitor, as INGRES's: lines accumulate in a query buffer and
// backslash commands, anywhere on a line outside strings and comments, act on
// it: \g go (run the buffer), \p print it, \r reset it, \e edit it in
// $VISUAL/$EDITOR, \i FILE include a file into it, \q quit. On a terminal,
// lines are read with libedit (editing, history in $HOME/.quelkit_history);
// Ctrl-C cancels the running statement or clears the line being typed, Ctrl-D
// on an empty line quits.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "engine/session.h"

namespace quelkit::cli {

// A script file's text, without a UTF-8 byte-order mark; false with the
// reason in *err ("cannot open: ...", "is a directory"). Read in lines
// bounded by kMaxLineBytes and kMaxTextBytes (frontend/source.h): past one,
// *cut says so and the text holds the lines before it; without `cut`, that
// is an error too.
bool read_script(const std::string& path, std::string* text, std::string* err,
                 std::optional<Source::Cut>* cut = nullptr);

// Lets the session's scripts (files, -e texts) use `\i FILE`: the file runs
// there as a script of its own (its errors name it, its \q ends it); files
// nest 16 deep, a cycle is refused at its \i, and the file's syntax error
// stops the text that included it too.
void allow_script_includes(harness::Session& session);

// Reads commands from `in` (a pipe or file: no prompts, no editing). Exit
// status: 0 if every statement succeeded, 1 if one failed, 130 if Ctrl-C
// cancelled a statement (the rest of the input is not read).
int monitor_stream(harness::Session& session, std::istream& in);

// Reads commands from the terminal on standard input. Exit status 0 when
// the user quits (\q or Ctrl-D), whatever earlier statements did.
int monitor_terminal(harness::Session& session);

}  // namespace quelkit::cli
