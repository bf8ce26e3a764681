# The profiling interface (spec 1.6, "Profiling Interface"): every shmem_* / shmemx_* routine of
# libshmem is also exported as pshmem_* / pshmemx_*, the same code under a second name. The
# names are not written anywhere: before each link, cmake/pshmem_aliases.sh lists the routines
# the library's objects define and writes a linker script of aliases (pshmem_X = shmem_X;),
# which the link reads as an input file. A profiling library defines shmem_X itself (linked
# before libshmem, or LD_PRELOADed) and calls pshmem_X. Declarations: include/pshmem.h.
set(SHMEM_PSHMEM_LD ${CMAKE_BINARY_DIR}/pshmem_aliases.ld)
if(NOT CMAKE_NM)
  message(FATAL_ERROR "the profiling interface (cmake/pshmem.cmake) needs nm (binutils)")
endif()
add_custom_command(TARGET shmem PRE_LINK
  COMMAND sh ${CMAKE_SOURCE_DIR}/cmake/pshmem_aliases.sh ${CMAKE_NM} ${SHMEM_PSHMEM_LD}
          "$<TARGET_OBJECTS:shmem>"
  COMMAND_EXPAND_LISTS VERBATIM
  COMMENT "Generating the pshmem_ aliases of libshmem")
target_link_options(shmem PRIVATE ${SHMEM_PSHMEM_LD})
# A change to the alias rules relinks libshmem (the script runs only when the library links).
set_property(TARGET shmem APPEND PROPERTY LINK_DEPENDS ${CMAKE_SOURCE_DIR}/cmake/pshmem_aliases.sh)
