# Install and packaging rules (included at the end of the top-level CMakeLists.txt).
#
#   <prefix>/bin/            oshcc oshc++ oshrun shmemrun(->oshrun) shmem-info
#   <prefix>/include/        shmem.h shmemx.h ... and include/shmem/
#   <prefix>/lib/            libshmem.so -> .so.<major> -> .so.<version>
#                            libshmem_bootstrap_{mpi,pmix}.so (where MPI / PMIx were found)
#   <prefix>/lib/cmake/shmem shmemConfig.cmake, shmemConfigVersion.cmake, shmemTargets*.cmake
#   <prefix>/lib/pkgconfig/  shmem.pc
#
# Every installed path is relative to <prefix> (wrappers, CMake package and pkg-config file
# locate the prefix from their own location), so an installed tree can be moved.
include(CMakePackageConfigHelpers)

# Libraries go to <prefix>/lib even where GNUInstallDirs picks lib/<multiarch> (prefix /usr
# on Debian): oshcc, shmem.pc and the CMake package assume one flat layout. This shadows the
# cache entry for the rules below only.
set(CMAKE_INSTALL_LIBDIR lib)
set(SHMEM_SPEC_VERSION 1.6)
set(SHMEM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/shmem)

# --- the library and its headers -----------------------------------------------------------
install(TARGETS shmem EXPORT shmemTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT devel
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT devel
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  COMPONENT devel)

# --- plugins: bootstrap, UCX transport, CUDA (next to the library, where it looks for them) ---
foreach(_plugin shmem_bootstrap_mpi shmem_bootstrap_pmix shmem_transport_ucx shmem_cuda)
  if(TARGET ${_plugin})
    install(TARGETS ${_plugin} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime)
  endif()
endforeach()

# --- tools -----------------------------------------------------------------------------------
install(TARGETS oshrun shmem-info RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
# shmemrun: a relative symlink, created at install time so it honours DESTDIR and --prefix.
install(CODE "
  set(_bindir \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}\")
  message(STATUS \"Installing: \${_bindir}/shmemrun -> oshrun\")
  file(CREATE_LINK oshrun \"\${_bindir}/shmemrun\" SYMBOLIC)
" COMPONENT runtime)

# Install variants of the wrappers: headers and library relative to the script's prefix.
if(IS_ABSOLUTE "${CMAKE_INSTALL_BINDIR}" OR CMAKE_INSTALL_BINDIR MATCHES "/")
  message(FATAL_ERROR "oshcc assumes CMAKE_INSTALL_BINDIR is one level deep (got ${CMAKE_INSTALL_BINDIR})")
endif()
set(_shmem_wrapper_dir ${CMAKE_BINARY_DIR}/tools/install)
shmem_oshcc_configure(${_shmem_wrapper_dir}/oshcc oshcc C SHMEM_CC ${CMAKE_C_COMPILER}
  "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}" "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
shmem_oshcc_configure(${_shmem_wrapper_dir}/oshc++ oshc++ C++ SHMEM_CXX ${CMAKE_CXX_COMPILER}
  "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}" "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
install(PROGRAMS ${_shmem_wrapper_dir}/oshcc ${_shmem_wrapper_dir}/oshc++
  DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT devel)

# --- CMake package -------------------------------------------------------------------------
install(EXPORT shmemTargets NAMESPACE shmem:: DESTINATION ${SHMEM_INSTALL_CMAKEDIR}
  COMPONENT devel)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/shmemConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/shmemConfig.cmake
  INSTALL_DESTINATION ${SHMEM_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/shmemConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/shmemConfig.cmake
  ${CMAKE_BINARY_DIR}/cmake/shmemConfigVersion.cmake
  DESTINATION ${SHMEM_INSTALL_CMAKEDIR} COMPONENT devel)

# --- pkg-config ------------------------------------------------------------------------------
set(SHMEM_PC_LIBDIR ${CMAKE_INSTALL_LIBDIR})
set(SHMEM_PC_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR})
file(RELATIVE_PATH SHMEM_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
string(REGEX REPLACE "/$" "" SHMEM_PC_TO_PREFIX "${SHMEM_PC_TO_PREFIX}")
configure_file(${CMAKE_SOURCE_DIR}/cmake/shmem.pc.in ${CMAKE_BINARY_DIR}/cmake/shmem.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/cmake/shmem.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT devel)

include(${CMAKE_SOURCE_DIR}/cmake/package.cmake)  # cpack -G DEB
include(${CMAKE_SOURCE_DIR}/cmake/man.cmake)  # man pages from docs/man/*.md
include(${CMAKE_SOURCE_DIR}/cmake/pip.cmake)  # the target setup.py builds (after man.cmake)
