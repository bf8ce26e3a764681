# SHMEM_WITH_CUDA=AUTO|ON|OFF: the CUDA backend (the GPU symmetric heap plugin, the device API in
# CUDA kernels, the GPU tests and examples). AUTO builds it when CMake finds a CUDA compiler
# (nvcc); ON requires one. Nothing here links the driver (libcuda): the plugin loads it at run
# time, so one build runs on machines with and without GPUs. Sets SHMEM_HAVE_CUDA.
set(SHMEM_WITH_CUDA AUTO CACHE STRING "Build the CUDA backend: AUTO (when nvcc is found), ON or OFF")
set_property(CACHE SHMEM_WITH_CUDA PROPERTY STRINGS AUTO ON OFF)
string(TOUPPER "${SHMEM_WITH_CUDA}" _shmem_cuda_mode)
if(NOT _shmem_cuda_mode MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "SHMEM_WITH_CUDA=${SHMEM_WITH_CUDA}: use AUTO, ON or OFF")
endif()
set(SHMEM_HAVE_CUDA OFF)
if(NOT _shmem_cuda_mode STREQUAL "OFF")
  # nvcc is often outside PATH (/usr/local/cuda/bin): look there too unless the user chose one.
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)  # Hopper (H100/H200); override with -DCMAKE_CUDA_ARCHITECTURES=...
    endif()
    enable_language(CUDA)
    # CMake before 3.26 does not know nvcc's C++20 flag (CUDA sources inherit CXX_STANDARD 20).
    if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(SHMEM_HAVE_CUDA ON)
    message(STATUS "shmem CUDA backend: nvcc ${CMAKE_CUDA_COMPILER_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES}")
  elseif(_shmem_cuda_mode STREQUAL "ON")
    message(FATAL_ERROR "SHMEM_WITH_CUDA=ON but no CUDA compiler was found (set CMAKE_CUDA_COMPILER or CUDACXX)")
  else()
    message(STATUS "shmem CUDA backend: skipped (no CUDA compiler found; SHMEM_WITH_CUDA=AUTO)")
  endif()
endif()
