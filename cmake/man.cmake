# Man pages oshrun(1), oshcc(1) (oshc++(1) points to it) and shmem-info(1): one source each,
# docs/man/<page>.1.md, converted by scripts/md2man.py at build time into <build>/share/man/man1
# (`man -l` reads them there) and installed to <prefix>/share/man/man1. Included from
# cmake/install.cmake.
if(NOT Python3_Interpreter_FOUND)
  find_package(Python3 COMPONENTS Interpreter QUIET)
endif()
if(NOT Python3_Interpreter_FOUND)
  message(STATUS "shmem man pages: skipped (no python3 to run scripts/md2man.py)")
  return()
endif()
set(SHMEM_MAN_DIR ${CMAKE_BINARY_DIR}/share/man/man1)
file(MAKE_DIRECTORY ${SHMEM_MAN_DIR})
set(_shmem_man_pages)
foreach(_page oshrun oshcc shmem-info)
  add_custom_command(OUTPUT ${SHMEM_MAN_DIR}/${_page}.1
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/md2man.py
            ${CMAKE_SOURCE_DIR}/docs/man/${_page}.1.md ${SHMEM_MAN_DIR}/${_page}.1 ${PROJECT_VERSION}
    DEPENDS ${CMAKE_SOURCE_DIR}/docs/man/${_page}.1.md ${CMAKE_SOURCE_DIR}/scripts/md2man.py
    COMMENT "Man page ${_page}(1)" VERBATIM)
  list(APPEND _shmem_man_pages ${SHMEM_MAN_DIR}/${_page}.1)
endforeach()
file(WRITE ${SHMEM_MAN_DIR}/oshc++.1 ".so man1/oshcc.1\n")
add_custom_target(shmem_man ALL DEPENDS ${_shmem_man_pages})
install(FILES ${SHMEM_MAN_DIR}/oshrun.1 ${SHMEM_MAN_DIR}/shmem-info.1
  DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT runtime)
install(FILES ${SHMEM_MAN_DIR}/oshcc.1 ${SHMEM_MAN_DIR}/oshc++.1
  DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT devel)
