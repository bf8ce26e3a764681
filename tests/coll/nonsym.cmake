# Non-symmetric collective buffers (issue 12): every collective, team and active-set form, small
# and large, called by every PE with a stack array as dest or as source, must end the job with
# a message naming the routine and the argument as the program called them:
#     "<routine>: <dest|source>=0x... is not symmetric ..."     (e.g. shmem_long_sum_reduce: dest=0x7ffd...)
# never an internal name ("shmem collective") and never a word twice in a row. Included at the
# end of tests/coll/CMakeLists.txt. 2 PEs, ~0.1-0.3 s per case.
shmem_test_program(coll_nonsym coll_nonsym.c)
set(_nonsym_hex "0x[0-9a-f]+")
foreach(routine long_broadcast broadcastmem long_sum_reduce long_max_reduce long_fcollect long_collect long_alltoall
                broadcast64 long_sum_to_all fcollect64 collect64 alltoall64)
  foreach(arg dest source)
    foreach(nelems 4 8192)
      shmem_expect_test(coll_nonsym_${routine}_${arg}_${nelems}_np2 --exit nonzero --timeout 30
                        --match "shmem_${routine}: ${arg}[= ].*is not symmetric"
                        --no-match "NOT STOPPED" --no-match "shmem collective"
                        --no-match "(^|[^a-z_])([a-z]+) \\2([^a-z_]|$)"
                        -- $<TARGET_FILE:oshrun> -n 2 $<TARGET_FILE:coll_nonsym> ${routine} ${arg} ${nelems})
    endforeach()
  endforeach()
endforeach()
