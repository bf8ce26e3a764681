# shmem_pip: what `pip install .` / `pip wheel .` (setup.py) needs, and nothing more: the library,
# its plugins, oshrun, shmem-info, their man pages and the Python module. Included from
# cmake/install.cmake, after every target is defined.
add_custom_target(shmem_pip)
# (shmem_man: the runtime component setup.py installs holds oshrun.1 and shmem-info.1.)
foreach(_t shmem oshrun shmem-info shmem_man shmem_python shmem_torch_backend
        shmem_bootstrap_mpi shmem_bootstrap_pmix shmem_transport_ucx shmem_cuda)
  if(TARGET ${_t})
    add_dependencies(shmem_pip ${_t})
  endif()
endforeach()
