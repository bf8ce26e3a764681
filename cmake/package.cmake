# Debian packages: `cpack -G DEB` in the build tree (included at the end of cmake/install.cmake).
#
#   shmem_<version>_<arch>.deb          runtime: libshmem.so.N, the plugins, oshrun, shmemrun, shmem-info
#   shmem-dev_<version>_<arch>.deb      devel: headers, oshcc/oshc++, the CMake package, shmem.pc
#   python3-shmem_<version>_<arch>.deb  python: /usr/lib/python3/dist-packages/shmem
#
# Installed under /usr with the same relative layout as `cmake --install`, so `apt install
# ./*.deb` gives /usr/bin/oshrun, /usr/lib/libshmem.so.N and a Python package that Debian's
# python3 finds without PYTHONPATH. Open MPI's oshrun, shmemrun, oshcc and oshc++ (openmpi-bin)
# are diverted to NAME.distrib while ours are installed. Dependencies come from dpkg-shlibdeps (the plugins' libraries:
# UCX, Open MPI, PMIx where they were built) plus python3-numpy for the Python package.
set(CPACK_PACKAGE_NAME shmem)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "the shmem project")
set(CPACK_PACKAGE_CONTACT "shmem maintainers <shmem@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "OpenSHMEM 1.6 symmetric-memory library with a launcher (oshrun)")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime devel)
if(TARGET shmem_python)  # the Python bindings are built only where their dependencies are found
  list(APPEND CPACK_COMPONENTS_ALL python)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# oshrun and the plugins need libshmem from the same package: tell dpkg-shlibdeps where it is.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_BINARY_DIR}/lib)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME shmem)
set(CPACK_DEBIAN_DEVEL_PACKAGE_NAME shmem-dev)
set(CPACK_DEBIAN_DEVEL_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEVEL_PACKAGE_DEPENDS "shmem (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-shmem)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "shmem (= ${PROJECT_VERSION}), python3, python3-numpy")
# Names Debian's openmpi-bin also ships (its OpenSHMEM launcher and wrappers, with their man
# pages): diverted while our package is installed (cmake/deb/divert.sh.in), restored on removal.
function(shmem_deb_divert component package)
  string(REPLACE ";" " " DIVERT_FILES "${ARGN}")
  set(DIVERT_PACKAGE ${package})
  foreach(script preinst postrm)
    configure_file(${CMAKE_SOURCE_DIR}/cmake/deb/divert.sh.in ${CMAKE_BINARY_DIR}/deb/${component}/${script} @ONLY
      FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  endforeach()
  string(TOUPPER ${component} _c)
  set(CPACK_DEBIAN_${_c}_PACKAGE_CONTROL_EXTRA
    "${CMAKE_BINARY_DIR}/deb/${component}/preinst;${CMAKE_BINARY_DIR}/deb/${component}/postrm" PARENT_SCOPE)
endfunction()
set(_man /usr/share/man/man1)
shmem_deb_divert(runtime shmem /usr/bin/oshrun /usr/bin/shmemrun ${_man}/oshrun.1.gz ${_man}/shmemrun.1.gz)
shmem_deb_divert(devel shmem-dev /usr/bin/oshcc /usr/bin/oshc++ ${_man}/oshcc.1.gz ${_man}/oshc++.1.gz)
include(CPack)
