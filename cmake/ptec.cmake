# Helpers shared by every part's CMakeLists.txt.

# The test builds link ptec's libraries as shared libraries: with static ones every test binary
# carries its own copy of them, and the sanitizer build's binaries then take about 8 GB of disk.
option(PTEC_SHARED_LIBS "Build ptec's own libraries as shared libraries" OFF)

# ptec_library(NAME SOURCES ... DEPS ...): a library of ptec's own code (static unless
# PTEC_SHARED_LIBS).
function(ptec_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PUBLIC_DEPS" ${ARGN})
  if(PTEC_SHARED_LIBS)
    add_library(${name} SHARED ${ARG_SOURCES})
  else()
    add_library(${name} STATIC ${ARG_SOURCES})
  endif()
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
  target_link_libraries(${name} PRIVATE ptec_warnings ${ARG_DEPS} PUBLIC ${ARG_PUBLIC_DEPS})
endfunction()

# ptec_test(NAME SOURCES ... DEPS ...): a GoogleTest executable registered with CTest.
function(ptec_test name)
  if(NOT PTEC_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ptec_warnings ${ARG_DEPS} GTest::gtest GTest::gmock
                                        GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE PTEC_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
                                             PTEC_BINARY_DIR="${PROJECT_BINARY_DIR}")
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES LABELS "${ARG_LABELS}")
endfunction()
