# Include roots: how the build keeps the layers (test/layers checks the order).
# No target exports the project root. Each library gets a root of its own,
# ${PROJECT_BINARY_DIR}/include/<target>/, holding one symlink named after its
# folder (storage -> <source>/storage, jit/llvm -> <source>/jit/llvm), and
# exports that root PUBLIC: a header is reachable as "storage/relation.h" only
# from targets that link quelkit_storage, so an include of a layer the target
# does not link fails to compile. Executables get theirs PRIVATE.
#
#   quelkit_include_root(TARGET)                 the whole folder of this CMakeLists.txt
#   quelkit_include_root(TARGET FILES a.h b.h)   only these headers of it
#   quelkit_include_root(TARGET TOP_LEVEL)       its headers, not its subfolders
#                                                (jit/: jit/llvm/ is another library's)
function(quelkit_include_root target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "TOP_LEVEL" "" "FILES")
  file(RELATIVE_PATH folder ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
  set(root ${PROJECT_BINARY_DIR}/include/${target})
  if(arg_TOP_LEVEL)
    file(GLOB arg_FILES LIST_DIRECTORIES false CONFIGURE_DEPENDS RELATIVE ${CMAKE_CURRENT_SOURCE_DIR}
         ${CMAKE_CURRENT_SOURCE_DIR}/*.h ${CMAKE_CURRENT_SOURCE_DIR}/*.def)
  endif()
  if(arg_FILES)
    if(IS_SYMLINK ${root}/${folder})
      file(REMOVE ${root}/${folder})
    endif()
    file(MAKE_DIRECTORY ${root}/${folder})
    foreach(f IN LISTS arg_FILES)
      file(CREATE_LINK ${CMAKE_CURRENT_SOURCE_DIR}/${f} ${root}/${folder}/${f} SYMBOLIC)
    endforeach()
  else()
    if(IS_DIRECTORY ${root}/${folder} AND NOT IS_SYMLINK ${root}/${folder})
      file(REMOVE_RECURSE ${root}/${folder})
    endif()
    get_filename_component(parent ${root}/${folder} DIRECTORY)
    file(MAKE_DIRECTORY ${parent})
    file(CREATE_LINK ${CMAKE_CURRENT_SOURCE_DIR} ${root}/${folder} SYMBOLIC)
  endif()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "EXECUTABLE")
    target_include_directories(${target} PRIVATE ${root})
  else()
    target_include_directories(${target} PUBLIC ${root})
  endif()
endfunction()
