// <aclshmem.h> next to <shmem.h> and <shmemx.h>, in both orders: no name clashes (Ascend SHMEM's
// `#define shmem_xxx aclshmem_xxx` aliases are deliberately absent). Compiled, never run.
#include <aclshmem.h>
#include <shmem.h>
#include <shmemx.h>
#include <aclshmem.h>  // include guard

int acl_both_headers_probe() { return aclshmem_my_pe() + shmem_my_pe(); }
