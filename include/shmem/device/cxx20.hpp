// The device API (the headers of include/shmem/device/) is C++20: it uses std::atomic_ref.
// Each of them includes this first, so that an older standard is refused with one clear line
// before the errors it would cause.
#pragma once
#if !defined(__cplusplus) || __cplusplus < 202002L
#error \
    "shmem's device API (shmem/device/*.hpp) needs C++20: compile with -std=c++20 (oshc++ adds it unless you pass -std; CMake: target_link_libraries(app PRIVATE shmem::shmem) from an installed shmem, or set CMAKE_CXX_STANDARD 20)"
#endif
