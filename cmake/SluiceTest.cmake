# sluice_add_test(NAME name SOURCES a.c [b.c] LIBS libs... [TIMEOUT seconds])
# Builds one cmocka test executable and registers it with ctest under a timeout, so a
# hung test fails the suite instead of stalling CI.
find_library(CMOCKA_LIBRARY cmocka REQUIRED)

function(sluice_add_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "SOURCES;LIBS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} ${CMOCKA_LIBRARY})
  set_target_properties(${T_NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  add_test(NAME ${T_NAME} COMMAND ${T_NAME})
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${T_TIMEOUT})
endfunction()
