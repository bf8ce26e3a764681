// Distributed locks: the lock is a symmetric long initialised to 0 on every PE.
#include "api/shim.hpp"

namespace {
void check_lock(const char* func, long* lock) noexcept {
  if (shmem::api::checking()) shmem::core::check_symmetric(func, "lock", lock, sizeof(long));
}
}  // namespace

extern "C" {

void shmem_set_lock(long* lock) noexcept {
  check_lock(__func__, lock);
  shmem::core::set_lock(lock);
}
void shmem_clear_lock(long* lock) noexcept {
  check_lock(__func__, lock);
  shmem::core::clear_lock(lock);
}
// 0 when the lock was acquired, 1 when another PE holds it.
int shmem_test_lock(long* lock) noexcept {
  check_lock(__func__, lock);
  return shmem::core::test_lock(lock);
}

}  // extern "C"
