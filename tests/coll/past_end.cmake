# A collective range that starts at the heap's first object and runs past the heap's end is
# reported as such (issue 32, item 9), by default and under SHMEM_DEBUG=1. 2 PEs, 64 MiB heap.
shmem_test_program(coll_past_end coll_past_end.c)
foreach(debug 0 1)
  shmem_expect_test(coll_past_end_debug${debug}_np2 --exit nonzero --timeout 30
                    --env SHMEM_SYMMETRIC_SIZE=64M --env SHMEM_DEBUG=${debug}
                    --match "shmem_alltoallsmem: source=0x[0-9a-f]+ \\(symmetric heap \\+0x[0-9a-f]+\\) with [0-9]+ bytes runs past the end of the symmetric heap: only [0-9]+ bytes"
                    --match "SHMEM_SYMMETRIC_SIZE=67108864"
                    --no-match "is not symmetric" --no-match "NOT STOPPED"
                    -- $<TARGET_FILE:oshrun> -n 2 $<TARGET_FILE:coll_past_end> 1099511627776)
endforeach()
