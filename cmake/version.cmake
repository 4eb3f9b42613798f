# Writes OUT, the kit's version (VERSION, the project's) and the commit it is
# built from (`git describe --always --dirty` in SOURCE_DIR, "unknown" where
# that gives nothing: no git, no repository), at every build, so that a report
# or a benchmark file names the code that measured it. The file is rewritten
# only when its text changes, so an unchanged tree recompiles nothing.
set(commit "")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" describe --always --dirty --abbrev=12
                  OUTPUT_VARIABLE commit ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    set(commit "")
  endif()
endif()
if(commit STREQUAL "")
  set(commit "unknown")
endif()
set(text "// Written by cmake/version.cmake at every build: do not edit.
#include \"engine/version.h\"

namespace quelkit::harness {

const char* kit_version() { return \"${VERSION}\"; }
const char* kit_commit() { return \"${commit}\"; }

}  // namespace quelkit::harness
")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
