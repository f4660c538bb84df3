# ctest check that a component builds without the simulator (issue 24). Run as
#   cmake -DNINJA=... -DBUILD_DIR=... -DTEST_FILE=<test binary> -DLIBRARY=<component library>
#         -DSOURCE_DIR=<component folder> -P check_no_simulator.cmake
# It reads the link command Ninja would run for the component's test binary and fails if the
# simulator's library (or any models/ library) is on it, or if the line is not the expected one
# (so a renamed target cannot make the check pass vacuously); then it fails if any source of the
# component includes a sim/ or models/ header.
foreach(var NINJA BUILD_DIR TEST_FILE LIBRARY SOURCE_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_no_simulator: -D${var}=... is required")
  endif()
endforeach()
file(RELATIVE_PATH target ${BUILD_DIR} ${TEST_FILE})
execute_process(COMMAND ${NINJA} -C ${BUILD_DIR} -t commands ${target}
                OUTPUT_VARIABLE commands RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ninja -t commands ${target} failed (${rc})")
endif()
string(REPLACE "\n" ";" lines "${commands}")
set(link_line "")
foreach(line IN LISTS lines)
  if(line MATCHES " -o ${target} ")
    set(link_line "${line}")
  endif()
endforeach()
if(link_line STREQUAL "")
  message(FATAL_ERROR "no link command for ${target} in:\n${commands}")
endif()
if(NOT link_line MATCHES "lib${LIBRARY}\\.a")
  message(FATAL_ERROR "the link line of ${target} lacks lib${LIBRARY}.a:\n${link_line}")
endif()
if(link_line MATCHES "libskysim_sim\\.a" OR link_line MATCHES "models/")
  message(FATAL_ERROR "${target} links the simulator:\n${link_line}")
endif()
message(STATUS "link line of ${target} has no simulator:\n${link_line}")

file(GLOB_RECURSE sources ${SOURCE_DIR}/*.hpp ${SOURCE_DIR}/*.cpp)
foreach(source IN LISTS sources)
  file(STRINGS ${source} includes REGEX "^#include \"(sim|models)/")
  if(includes)
    message(FATAL_ERROR "${source} includes the simulator: ${includes}")
  endif()
endforeach()
