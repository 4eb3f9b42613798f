# The skip path of the stencil back end at configure time: configure the kit
# with QUELKIT_STENCIL_FORCE_NO_CLANG (clang-19 treated as missing) into a
# scratch directory and check that CMake says the back end is not built and
# that no target of it exists, so its tests compile to the skip above.
#   cmake -DSRC=<source dir> -DWORK=<scratch dir> -P skip_configure.cmake
file(REMOVE_RECURSE ${WORK})
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${WORK} -G Ninja -DQUELKIT_STENCIL_FORCE_NO_CLANG=ON
          -DQUELKIT_WITH_GCCJIT=OFF
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configure failed (${rc}):\n${out}\n${err}")
endif()
string(FIND "${out}" "stencil back end: not built" at)
if(at EQUAL -1)
  message(FATAL_ERROR "configure did not say the stencil back end is not built:\n${out}")
endif()
file(READ ${WORK}/build.ninja ninja)
string(FIND "${ninja}" "quelkit_jit_stencil" target)
string(FIND "${ninja}" "QUELKIT_HAVE_STENCIL" define)
if(NOT target EQUAL -1 OR NOT define EQUAL -1)
  message(FATAL_ERROR "the stencil back end is still in the build without clang-19")
endif()
string(FIND "${ninja}" "test_jit_stencil" tests)
if(tests EQUAL -1)
  message(FATAL_ERROR "test_jit_stencil must still be built (its tests skip with a message)")
endif()
file(REMOVE_RECURSE ${WORK})
message(STATUS "without clang-19: the stencil back end is not built; test_jit_stencil skips")
