# The CMake helpers of every test folder (included by tests/CMakeLists.txt). A folder sets its
# defaults before registering tests:
#   SHMEM_TEST_LABEL     the CTest label of its tests (ctest -L <label>)
#   SHMEM_TEST_TIMEOUT   seconds per multi-PE test (default 120)
#   SHMEM_EXPECT_TIMEOUT seconds per expect test (default 60)
#   SHMEM_EXPECT_SERIAL  TRUE: expect tests run alone (RUN_SERIAL), for their timing and leftover
#                        checks; FALSE: they run next to others, so the folder passes
#                        --no-leak-check in SHMEM_EXPECT_OPTIONS
#   SHMEM_EXPECT_OPTIONS options every expect test of the folder passes to expect_run.sh
set(SHMEM_TEST_SUPPORT_DIR ${CMAKE_CURRENT_LIST_DIR})
set(SHMEM_EXPECT_RUN ${CMAKE_CURRENT_LIST_DIR}/expect_run.sh)

# shmem_test_program(<name> <sources...>): a test program linked with libshmem, which includes
# its own folder and tests/support (check.h).
function(shmem_test_program name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE shmem)
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR} ${SHMEM_TEST_SUPPORT_DIR})
endfunction()

# shmem_test(<program> NPES n... [NAME base] [ARGS a...] [ENV K=V...] [TIMEOUT s])
# registers <base>_np<n> (base defaults to the program name) for every n: the program under
# oshrun -n n. The program checks itself and exits non-zero on any failure.
function(shmem_test prog)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "NPES;ARGS;ENV" ${ARGN})
  if(NOT T_NAME)
    set(T_NAME ${prog})
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT ${SHMEM_TEST_TIMEOUT})
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  foreach(np IN LISTS T_NPES)
    set(test ${T_NAME}_np${np})
    add_test(NAME ${test} COMMAND $<TARGET_FILE:oshrun> -n ${np} $<TARGET_FILE:${prog}> ${T_ARGS})
    set_tests_properties(${test} PROPERTIES TIMEOUT ${T_TIMEOUT} LABELS "${SHMEM_TEST_LABEL}")
    if(T_ENV)
      set_tests_properties(${test} PROPERTIES ENVIRONMENT "${T_ENV}")
    endif()
  endforeach()
endfunction()

# shmem_expect_test(<test name> <expect_run.sh options...> -- <command...>): a test whose exit
# status and messages expect_run.sh checks (failures on purpose, timing, leftovers).
function(shmem_expect_test name)
  set(timeout ${SHMEM_EXPECT_TIMEOUT})
  if(NOT timeout)
    set(timeout 60)
  endif()
  add_test(NAME ${name} COMMAND ${SHMEM_EXPECT_RUN} ${SHMEM_EXPECT_OPTIONS} ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${timeout} LABELS "${SHMEM_TEST_LABEL}"
                       WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  if(SHMEM_EXPECT_SERIAL)
    set_tests_properties(${name} PROPERTIES RUN_SERIAL TRUE)
  endif()
endfunction()
