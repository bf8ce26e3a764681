// Team-based data movement for every standard RMA type and the byte (mem) forms:
// shmem_[TYPENAME_]{broadcast,collect,fcollect,alltoall,alltoalls}[mem]. Generated from
// SHMEM_RMA_TYPE_TABLE; nelems counts elements of TYPE (bytes for the mem forms).
#include "api/team_shim.hpp"

namespace api = shmem::api;
using api::Gather;

extern "C" {

#define SHMEM_DEF_COLL_TYPED_(T, N)                                                                            \
  int shmem_##N##_broadcast(shmem_team_t team, T* dest, const T* source, size_t nelems, int PE_root) noexcept { \
    return api::broadcast(__func__, team, dest, source, nelems, sizeof(T), PE_root);                           \
  }                                                                                                            \
  int shmem_##N##_collect(shmem_team_t team, T* dest, const T* source, size_t nelems) noexcept {               \
    return api::gather(__func__, Gather::kCollect, team, dest, source, nelems, sizeof(T));                     \
  }                                                                                                            \
  int shmem_##N##_fcollect(shmem_team_t team, T* dest, const T* source, size_t nelems) noexcept {              \
    return api::gather(__func__, Gather::kFcollect, team, dest, source, nelems, sizeof(T));                    \
  }                                                                                                            \
  int shmem_##N##_alltoall(shmem_team_t team, T* dest, const T* source, size_t nelems) noexcept {              \
    return api::gather(__func__, Gather::kAlltoall, team, dest, source, nelems, sizeof(T));                    \
  }                                                                                                            \
  int shmem_##N##_alltoalls(shmem_team_t team, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,         \
                            size_t nelems) noexcept {                                                          \
    return api::alltoalls(__func__, team, dest, source, dst, sst, nelems, sizeof(T));                          \
  }
SHMEM_RMA_TYPE_TABLE(SHMEM_DEF_COLL_TYPED_)
#undef SHMEM_DEF_COLL_TYPED_

int shmem_broadcastmem(shmem_team_t team, void* dest, const void* source, size_t nelems, int PE_root) noexcept {
  return api::broadcast(__func__, team, dest, source, nelems, 1, PE_root);
}
int shmem_collectmem(shmem_team_t team, void* dest, const void* source, size_t nelems) noexcept {
  return api::gather(__func__, Gather::kCollect, team, dest, source, nelems, 1);
}
int shmem_fcollectmem(shmem_team_t team, void* dest, const void* source, size_t nelems) noexcept {
  return api::gather(__func__, Gather::kFcollect, team, dest, source, nelems, 1);
}
int shmem_alltoallmem(shmem_team_t team, void* dest, const void* source, size_t nelems) noexcept {
  return api::gather(__func__, Gather::kAlltoall, team, dest, source, nelems, 1);
}
int shmem_alltoallsmem(shmem_team_t team, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,
                       size_t nelems) noexcept {
  return api::alltoalls(__func__, team, dest, source, dst, sst, nelems, 1);
}

}  // extern "C"
