/*
 * pshmem.h - the OpenSHMEM 1.6 profiling interface: every routine of <shmem.h> and <shmemx.h>
 * under its name-shifted entry point pshmem_* / pshmemx_* (spec, "Profiling Interface"); the
 * deprecated 1.2 routines outside the shmem_ namespace as pstart_pes, p_my_pe, p_num_pes,
 * pshmalloc, pshfree, pshrealloc and pshmemalign (the names Sandia OpenSHMEM and Open MPI's
 * OSHMEM give them).
 *
 * A profiling library defines the shmem_* routines it wants to intercept and calls the
 * pshmem_* name to reach the library:
 *
 *     #include <pshmem.h>
 *     void shmem_putmem(void* dest, const void* source, size_t nelems, int pe) {
 *       ... record ...;  pshmem_putmem(dest, source, nelems, pe);
 *     }
 *
 * and is linked before libshmem (cc app.o -lmyprof -lshmem) or loaded with LD_PRELOAD. In
 * libshmem, pshmem_X and shmem_X are one function with two exported names (aliases made at
 * link time for every routine, cmake/pshmem.cmake), so routines not intercepted resolve to the
 * library as usual. The library's internal calls do not go through the shmem_* names, so a
 * collective is never counted as the point-to-point calls it is made of. shmem_pcontrol is a
 * no-op in the library (a profiler defines it to act on the level). The C11 generic names and
 * the C++ overloads are inline or macros over the typed routines and have no pshmem_ form; the
 * typed routines they call can be intercepted. The types and constants the declarations need
 * come from <shmem.h> and <shmemx.h>, included here.
 */
#ifndef PSHMEM_H
#define PSHMEM_H

#include "shmem.h"
#include "shmemx.h"

#ifdef __cplusplus
extern "C" {
#endif

#include "shmem/pshmem_decls.h"

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PSHMEM_H */
