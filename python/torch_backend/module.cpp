// shmem._c10d: the ProcessGroupShmem class for Python, a subclass of torch.distributed's
// ProcessGroup (shmem/torch.py registers the backend "shmem" with it).
#include <torch/csrc/utils/pybind.h>

#include "process_group.hpp"
#include "sub_group.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_c10d, m) {
  m.doc() = "torch.distributed backend 'shmem' (ProcessGroupShmem); registered by shmem.torch";
  py::object base = py::module_::import("torch.distributed").attr("ProcessGroup");
  py::class_<shmem_torch::ProcessGroupShmem, c10::intrusive_ptr<shmem_torch::ProcessGroupShmem>>(m, "ProcessGroupShmem",
                                                                                                 base)
      .def(py::init([](int rank, int size, int group_id) {
             return c10::make_intrusive<shmem_torch::ProcessGroupShmem>(rank, size, group_id);
           }),
           py::arg("rank"), py::arg("size"), py::arg("group_id") = 0, py::call_guard<py::gil_scoped_release>())
      .def("_set_direct_paths", &shmem_torch::ProcessGroupShmem::set_direct_paths, py::arg("on"))
      .def("_alltoall_socket_blocks", &shmem_torch::ProcessGroupShmem::alltoall_socket_blocks);
  py::class_<shmem_torch::ProcessGroupShmemSub, c10::intrusive_ptr<shmem_torch::ProcessGroupShmemSub>>(
      m, "ProcessGroupShmemSub", base)
      .def(py::init([](int rank, int size, std::vector<int> world_ranks, int group_id) {
             return c10::make_intrusive<shmem_torch::ProcessGroupShmemSub>(rank, size, std::move(world_ranks),
                                                                           group_id);
           }),
           py::arg("rank"), py::arg("size"), py::arg("world_ranks"), py::arg("group_id"),
           py::call_guard<py::gil_scoped_release>());
}
