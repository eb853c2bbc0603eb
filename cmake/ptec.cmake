# Helpers shared by every part's CMakeLists.txt.

# ptec_library(NAME SOURCES ... DEPS ...): a static library of ptec's own code.
function(ptec_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PUBLIC_DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
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
