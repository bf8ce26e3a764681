# Mismatched collectives (issue 32, item 2; core/coll_check.hpp): PEs whose collective calls
# cannot meet end the job with one message naming each PE's call and arguments, after
# SHMEM_COLL_CHECK_AFTER (1 s here) in the wait, or at once under SHMEM_DEBUG=1; a PE that is
# merely late to an agreeing call is never reported. 2 and 4 PEs, real processes under oshrun.
shmem_test_program(coll_mismatch coll_mismatch.c)
set(_mm $<TARGET_FILE:oshrun>)
set(_mm_prog $<TARGET_FILE:coll_mismatch>)
foreach(np 2 4)
  math(EXPR _last "${np} - 1")
  shmem_expect_test(coll_mismatch_routine_np${np} --exit nonzero --timeout 30 --env SHMEM_COLL_CHECK_AFTER=1
                    --match "PE [0-9]+ is in shmem_(long_sum_reduce\\(team=WORLD, nreduce=4\\)|barrier_all\\(\\)) while PE [0-9]+ is in shmem_(barrier_all\\(\\)|long_sum_reduce\\(team=WORLD, nreduce=4\\))"
                    --no-match "NOT STOPPED"
                    -- ${_mm} -n ${np} ${_mm_prog} routine)
  shmem_expect_test(coll_mismatch_count_np${np} --exit nonzero --timeout 30 --env SHMEM_COLL_CHECK_AFTER=1
                    --match "is in shmem_long_sum_reduce\\(team=WORLD, nreduce=(4|8)\\) while PE [0-9]+ is in shmem_long_sum_reduce\\(team=WORLD, nreduce=(8|4)\\)"
                    --no-match "NOT STOPPED"
                    -- ${_mm} -n ${np} ${_mm_prog} count)
  shmem_expect_test(coll_mismatch_count_debug_np${np} --exit nonzero --timeout 30 --env SHMEM_DEBUG=1
                    --match "is in shmem_long_sum_reduce\\(team=WORLD, nreduce=(4|8)\\) while PE [0-9]+ is in shmem_long_sum_reduce\\(team=WORLD, nreduce=(8|4)\\) \\(SHMEM_DEBUG=1"
                    --no-match "NOT STOPPED"
                    -- ${_mm} -n ${np} ${_mm_prog} count)
  shmem_expect_test(coll_mismatch_root_np${np} --exit nonzero --timeout 30 --env SHMEM_DEBUG=1
                    --match "is in shmem_long_broadcast\\(team=WORLD, nelems=4, PE_root=(0|1)\\) while PE [0-9]+ is in shmem_long_broadcast\\(team=WORLD, nelems=4, PE_root=(1|0)\\)"
                    --no-match "NOT STOPPED"
                    -- ${_mm} -n ${np} ${_mm_prog} root)
  shmem_expect_test(coll_mismatch_team_np${np} --exit nonzero --timeout 30 --env SHMEM_COLL_CHECK_AFTER=1
                    --match "is in shmem_(barrier_all\\(\\)|team_sync\\(team=the team in slot [0-9]+\\)) while PE [0-9]+ is in shmem_(team_sync|barrier_all)"
                    --no-match "NOT STOPPED"
                    -- ${_mm} -n ${np} ${_mm_prog} team)
  shmem_expect_test(coll_mismatch_teams_np${np} --exit nonzero --timeout 30 --env SHMEM_COLL_CHECK_AFTER=1
                    --match "is in shmem_team_sync\\(team=the team in slot [0-9]+\\) while PE [0-9]+ is in shmem_team_sync\\(team=the team in slot [0-9]+\\)"
                    --no-match "NOT STOPPED"
                    -- ${_mm} -n ${np} ${_mm_prog} teams)
  shmem_expect_test(coll_mismatch_malloc_np${np} --exit nonzero --timeout 30 --env SHMEM_COLL_CHECK_AFTER=1
                    --match "is in shmem_(malloc\\(size=64\\)|long_sum_reduce\\(team=WORLD, nreduce=4\\)) while PE [0-9]+ is in shmem_(long_sum_reduce\\(team=WORLD, nreduce=4\\)|malloc\\(size=64\\))"
                    --no-match "NOT STOPPED"
                    -- ${_mm} -n ${np} ${_mm_prog} malloc)
  shmem_expect_test(coll_mismatch_split_np${np} --exit nonzero --timeout 30 --env SHMEM_COLL_CHECK_AFTER=1
                    --match "is in shmem_(team_split_strided\\(team=WORLD\\)|long_sum_reduce\\(team=WORLD, nreduce=4\\)) while PE [0-9]+ is in shmem_(long_sum_reduce\\(team=WORLD, nreduce=4\\)|team_split_strided\\(team=WORLD\\))"
                    --no-match "NOT STOPPED"
                    -- ${_mm} -n ${np} ${_mm_prog} split)
  shmem_expect_test(coll_mismatch_set_np${np} --exit nonzero --timeout 30 --env SHMEM_COLL_CHECK_AFTER=1
                    --match "is in shmem_(barrier\\(PE_start=0, logPE_stride=0, PE_size=${np}\\)|team_sync\\(team=WORLD\\)) while PE [0-9]+ is in shmem_(team_sync\\(team=WORLD\\)|barrier\\(PE_start=0, logPE_stride=0, PE_size=${np}\\))"
                    --no-match "NOT STOPPED"
                    -- ${_mm} -n ${np} ${_mm_prog} set)
  shmem_expect_test(coll_mismatch_split_args_np${np} --exit 0 --timeout 30
                    --match "shmem_team_split_strided: the members of the parent team passed different arguments: parent PE 0 \\(world PE 0\\) passed \\(start=0, stride=1, size=${np}\\), parent PE 1 \\(world PE 1\\) passed \\(start=1, stride=1, size=${_last}\\)"
                    --match "coll_mismatch split_args: OK"
                    -- ${_mm} -n ${np} ${_mm_prog} split_args)
  shmem_expect_test(coll_mismatch_bcast_barrier_np${np} --exit nonzero --timeout 30 --env SHMEM_COLL_CHECK_AFTER=1
                    --match "PE [1-9][0-9]* is in shmem_barrier_all\\(\\) while PE 0 made shmem_long_broadcast\\(team=WORLD, nelems=4, PE_root=0\\) in its place and left it"
                    --no-match "NOT STOPPED"
                    -- ${_mm} -n ${np} ${_mm_prog} bcast_barrier)
  shmem_expect_test(coll_mismatch_skip_finalize_np${np} --exit nonzero --timeout 30 --env SHMEM_COLL_CHECK_AFTER=1
                    --match "PE [1-9][0-9]* is in shmem_barrier_all\\(\\) \\(its call 2 on WORLD\\), which PE 0 never made: PE 0 is in finalize \\(found by two checks"
                    --no-match "NOT STOPPED"
                    -- ${_mm} -n ${np} ${_mm_prog} skip_finalize)
  shmem_expect_test(coll_mismatch_bcast_then_barrier_np${np} --exit nonzero --timeout 30 --env SHMEM_COLL_CHECK_AFTER=1
                    --match "PE [1-9][0-9]* is in shmem_barrier_all\\(\\) \\(its call 3 on WORLD\\), which cannot complete: other PEs there have made their call 3 and left it without this PE.*PE 0 made it as shmem_barrier_all\\(\\) and is in finalize"
                    --no-match "NOT STOPPED"
                    -- ${_mm} -n ${np} ${_mm_prog} bcast_then_barrier)
  shmem_expect_test(coll_mismatch_finalize_early_np${np} --exit 0 --timeout 60 --env SHMEM_COLL_CHECK_AFTER=1
                    --match "coll_mismatch finalize_early: OK" --no-match "mismatched collectives"
                    -- ${_mm} -n ${np} ${_mm_prog} finalize_early)
  shmem_expect_test(coll_mismatch_teams_slow_np${np} --exit 0 --timeout 60 --env SHMEM_COLL_CHECK_AFTER=1
                    --match "coll_mismatch teams_slow: OK" --no-match "mismatched collectives"
                    -- ${_mm} -n ${np} ${_mm_prog} teams_slow)
  shmem_expect_test(coll_mismatch_slow_np${np} --exit 0 --timeout 60 --env SHMEM_COLL_CHECK_AFTER=1
                    --match "coll_mismatch slow: OK" --no-match "mismatched collectives"
                    -- ${_mm} -n ${np} ${_mm_prog} slow)
  shmem_expect_test(coll_mismatch_set_slow_np${np} --exit 0 --timeout 60 --env SHMEM_COLL_CHECK_AFTER=1
                    --match "coll_mismatch set_slow: OK" --no-match "mismatched collectives"
                    -- ${_mm} -n ${np} ${_mm_prog} set_slow)
endforeach()
