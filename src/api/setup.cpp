// Library setup, exit and query routines (shmem_init ... shmem_pcontrol, start_pes).
#include <cstdarg>
#include <cstring>
#include <exception>

#include "api/shim.hpp"
#include "core/init_ops.hpp"
#include "stream/stream.hpp"
#include "base/error.hpp"
#include "base/log.hpp"

namespace {

using shmem::core::fatal;

// core::init and core::query_thread use the spec's numbering of the thread levels.
static_assert(SHMEM_THREAD_SINGLE == 0 && SHMEM_THREAD_FUNNELED == 1 && SHMEM_THREAD_SERIALIZED == 2 &&
              SHMEM_THREAD_MULTIPLE == 3);

// Runs a set-up step that may throw; returns 0 on success, else a nonzero code after logging.
// `fatal_on_error` turns the error into a job-ending message instead (shmem_init has no return).
template <class Fn>
int guarded(const char* func, bool fatal_on_error, Fn&& fn) noexcept {
  try {
    fn();
    return 0;
  } catch (const shmem::Error& e) {
    if (fatal_on_error) fatal(func, "%s (%s)", e.what(), shmem::errc_name(e.code()));
    SHMEM_ERROR("api", "%s: %s (%s)", func, e.what(), shmem::errc_name(e.code()));
    const int rc = static_cast<int>(e.code());
    return rc != 0 ? rc : -1;
  } catch (const std::exception& e) {
    if (fatal_on_error) fatal(func, "%s", e.what());
    SHMEM_ERROR("api", "%s: %s", func, e.what());
  } catch (...) {
    if (fatal_on_error) fatal(func, "unknown error");
    SHMEM_ERROR("api", "%s: unknown error", func);
  }
  return static_cast<int>(shmem::Errc::kInternal);
}

}  // namespace

extern "C" {

void shmem_init(void) noexcept {
  int provided = SHMEM_THREAD_SINGLE;
  guarded(__func__, true, [&] { shmem::core::init(SHMEM_THREAD_SINGLE, &provided); });
}

// Returns 0 on success and nonzero otherwise (the reason is logged), as the spec requires.
int shmem_init_thread(int requested, int* provided) noexcept {
  if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) {
    SHMEM_ERROR("api", "%s: requested=%d is not a SHMEM_THREAD_* level", __func__, requested);
    return static_cast<int>(shmem::Errc::kInvalidArgument);
  }
  int level = SHMEM_THREAD_SINGLE;
  const int rc = guarded(__func__, false, [&] { shmem::core::init(requested, &level); });
  if (rc == 0 && provided != nullptr) *provided = level;
  return rc;
}

void shmem_query_thread(int* provided) noexcept {
  if (provided != nullptr) *provided = shmem::core::query_thread();
}

void shmem_query_initialized(int* initialized) noexcept {
  if (initialized != nullptr) *initialized = shmem::core::initialized() ? 1 : 0;
}

// Pending stream work (collectives included) must meet its peers before the finalize barrier.
void shmemx_finalize_at_exit(void) noexcept { shmem::core::finalize_at_exit_request(); }

void shmem_finalize(void) noexcept {
  if (shmem::core::ignored_in_forked_child("shmem_finalize")) return;
  shmem::stream::before_finalize();
  shmem::core::finalize();
}

void shmem_global_exit(int status) noexcept { shmem::core::global_exit(status); }

int shmem_my_pe(void) noexcept { return shmem::core::my_pe(); }
int shmem_n_pes(void) noexcept { return shmem::core::n_pes(); }

// Queries: an invalid PE is an answer (0), not an error, so these are never checked.
int shmem_pe_accessible(int pe) noexcept { return shmem::core::pe_accessible(pe) ? 1 : 0; }
int shmem_addr_accessible(const void* addr, int pe) noexcept {
  return shmem::core::addr_accessible(addr, pe) ? 1 : 0;
}

void* shmem_ptr(const void* dest, int pe) noexcept {
  if (shmem::api::checking()) shmem::core::check_pe(__func__, pe);
  return shmem::core::hot::ptr(dest, pe);
}

void shmem_info_get_version(int* major, int* minor) noexcept {
  if (major != nullptr) *major = SHMEM_MAJOR_VERSION;
  if (minor != nullptr) *minor = SHMEM_MINOR_VERSION;
}

// Copies SHMEM_VENDOR_STRING, NUL-terminated; `name` must hold SHMEM_MAX_NAME_LEN characters.
void shmem_info_get_name(char* name) noexcept {
  static_assert(sizeof(SHMEM_VENDOR_STRING) <= SHMEM_MAX_NAME_LEN);
  if (name != nullptr) std::memcpy(name, SHMEM_VENDOR_STRING, sizeof(SHMEM_VENDOR_STRING));
}

// The extra arguments are profiling-library defined; this library reads none of them.
void shmem_pcontrol(const int level, ...) noexcept { shmem::core::pcontrol(level); }

// Deprecated (1.2). start_pes may be called repeatedly (later calls are no-ops) and implies
// finalization at exit, which the spec still supports for it: that is the library's implicit
// finalize at exit, registered by every init (core/instances.cpp, on_exit). It knows the exit
// status and meets the other PEs with a deadline, so a PE that exits early ends the job with
// a message; a plain finalize from an atexit handler here would wait for them forever.
void start_pes(int npes) noexcept {
  (void)npes;  // historical argument, ignored as the spec allows
  int provided = SHMEM_THREAD_SINGLE;
  guarded(__func__, true, [&] { shmem::core::init(SHMEM_THREAD_SINGLE, &provided); });
}
int _my_pe(void) noexcept { return shmem::core::my_pe(); }
int _num_pes(void) noexcept { return shmem::core::n_pes(); }

}  // extern "C"
