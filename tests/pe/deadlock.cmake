# Deadlocks between waits (core/deadlock.hpp): when every PE of a one-host job waits and none can
# wake another, the job ends with one message naming where each PE waits, a few checks of
# SHMEM_COLL_CHECK_AFTER (1 s here) after it began; a PE that computes (outside the library) and
# then wakes the others, or a thread of SHMEM_THREAD_MULTIPLE that does, is never reported.
# Real processes under oshrun, 1 to 8 PEs.
shmem_test_program(pe_deadlock pe_deadlock.c)
set(_dl $<TARGET_FILE:pe_deadlock>)
set(_dl_found "deadlock: every PE is waiting and none of them can wake another")
foreach(np 2 4 8)
  shmem_expect_test(pe_deadlock_barrier_flag_np${np} --exit nonzero --timeout 40 --env SHMEM_COLL_CHECK_AFTER=1
                    --match "${_dl_found}" --match "PE 0 is in shmem_barrier_all\\(\\). PEs? 1(-[0-9]+)? (is|are) in shmem_int_wait_until on static data \\+0x[0-9a-f]+ for == 1, seeing 0"
                    --no-match "NOT STOPPED|mismatched collectives"
                    -- ${OSHRUN} -n ${np} ${_dl} barrier_flag)
endforeach()
foreach(np 2 4)
  math(EXPR _last "${np} - 1")
  shmem_expect_test(pe_deadlock_cycle_np${np} --exit nonzero --timeout 40 --env SHMEM_COLL_CHECK_AFTER=1
                    --match "${_dl_found}" --match "PEs 0-${_last} are in shmem_long_wait_until on static data \\+0x[0-9a-f]+ for >= 1, seeing 0"
                    --no-match "NOT STOPPED" -- ${OSHRUN} -n ${np} ${_dl} cycle)
  shmem_expect_test(pe_deadlock_lock_np${np} --exit nonzero --timeout 40 --env SHMEM_COLL_CHECK_AFTER=1
                    --match "${_dl_found}" --match "PE 0 is in shmem_barrier_all\\(\\). PE 1 is in shmem_set_lock on static data \\+0x[0-9a-f]+ with ticket [1-9], now serving 0"
                    --no-match "NOT STOPPED|mismatched collectives" -- ${OSHRUN} -n ${np} ${_dl} lock)
  shmem_expect_test(pe_deadlock_finalize_np${np} --exit nonzero --timeout 40 --env SHMEM_COLL_CHECK_AFTER=1
                    --match "${_dl_found}" --match "PE 0 is in finalize. PEs? 1(-[0-9]+)? (is|are) in shmem_signal_wait_until on static data \\+0x[0-9a-f]+ for != 0, seeing 0"
                    --no-match "NOT STOPPED" -- ${OSHRUN} -n ${np} ${_dl} finalize)
  shmem_expect_test(pe_deadlock_all_np${np} --exit nonzero --timeout 40 --env SHMEM_COLL_CHECK_AFTER=1
                    --match "${_dl_found}" --match "PEs 0-${_last} are in shmem_int_wait_until_all on 4 elements from static data \\+0x[0-9a-f]+ for == 1. element 3 sees 0"
                    --no-match "NOT STOPPED" -- ${OSHRUN} -n ${np} ${_dl} all)
  shmem_expect_test(pe_deadlock_late_np${np} --exit 0 --timeout 60 --env SHMEM_COLL_CHECK_AFTER=1
                    --match "pe_deadlock late: OK" --no-match "deadlock:" -- ${OSHRUN} -n ${np} ${_dl} late)
  shmem_expect_test(pe_deadlock_threads_np${np} --exit 0 --timeout 60 --env SHMEM_COLL_CHECK_AFTER=1
                    --match "pe_deadlock threads: OK" --no-match "deadlock:" -- ${OSHRUN} -n ${np} ${_dl} threads)
endforeach()
# SHMEM_WAIT_TIMEOUT before the check's verdict: the PE that times out says where the other is,
# from the beats it publishes (what it waits for, and for how long).
shmem_expect_test(pe_deadlock_timeout_np2 --exit nonzero --timeout 40
                  --env SHMEM_COLL_CHECK_AFTER=1 --env SHMEM_WAIT_TIMEOUT=2.2
                  --match "timed out after"
                  --match "waited past SHMEM_WAIT_TIMEOUT=2.2. where the other PEs are: (PE 1 is in shmem_int_wait_until on static data \\+0x[0-9a-f]+ for == 1, seeing 0 \\(for [12] s\\)|PE 0 is in shmem_barrier_all\\(\\) \\(for [12] s\\))"
                  --no-match "NOT STOPPED" -- ${OSHRUN} -n 2 ${_dl} barrier_flag)
# A wait that has completed is not named: PE 1 waited long, was woken and computes.
shmem_expect_test(pe_deadlock_left_np2 --exit nonzero --timeout 40
                  --env SHMEM_COLL_CHECK_AFTER=1 --env SHMEM_WAIT_TIMEOUT=1.5
                  --match "PE 0 waited past SHMEM_WAIT_TIMEOUT=1.5. where the other PEs are: PE 1 is in no collective call, nor in a wait"
                  --no-match "NOT STOPPED|PE 1 is in shmem_int_wait_until|deadlock:" -- ${OSHRUN} -n 2 ${_dl} left)
shmem_expect_test(pe_deadlock_self_np1 --exit nonzero --timeout 40 --env SHMEM_COLL_CHECK_AFTER=1
                  --match "${_dl_found}" --match "PE 0 is in shmem_int_wait_until on static data \\+0x[0-9a-f]+ for == 1, seeing 0"
                  --no-match "NOT STOPPED" -- ${OSHRUN} -n 1 ${_dl} self)
