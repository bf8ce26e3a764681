// Symmetric memory: collective allocation and free, the live-block registry, and the checks
// that refuse freed, peer and ordinary memory where a symmetric object is required.
#include "memory.hpp"

#include <algorithm>
#include <cstring>
#include <map>

namespace shmem_py {

namespace {

// Live blocks by start address; only touched with the GIL held.
std::map<std::uintptr_t, std::shared_ptr<Block>>& live() {
  static auto* m = new std::map<std::uintptr_t, std::shared_ptr<Block>>();  // never destroyed: used at exit
  return *m;
}

// The live block containing address `addr`, if any.
Block* find_block(std::uintptr_t addr) {
  auto& m = live();
  auto it = m.upper_bound(addr);
  if (it == m.begin()) return nullptr;
  --it;
  Block* b = it->second.get();
  return addr < b->addr + std::max<std::size_t>(b->nbytes, 1) ? b : nullptr;
}

// Whether [addr, addr + bytes) is symmetric: inside one of our live blocks, or (memory this
// package did not allocate, e.g. a C extension's) symmetric by the library's own test.
bool symmetric_range(std::uintptr_t addr, std::size_t bytes, const char* name) {
  if (bytes == 0) return true;
  if (Block* b = find_block(addr)) {
    if (addr + bytes > b->addr + b->nbytes)
      raise_value(std::string(name) + " extends " + std::to_string(addr + bytes - b->addr - b->nbytes) +
                  " bytes past the end of its symmetric allocation (" + std::to_string(b->nbytes) + " bytes)");
    return true;
  }
  const auto* p = reinterpret_cast<const char*>(addr);
  const int me = shmem_my_pe();
  return addr != 0 && shmem_addr_accessible(p, me) && shmem_addr_accessible(p + bytes - 1, me);
}

// Follows ndarray.base and memoryview.obj to the SymmetricMemory that owns obj's memory.
Memory* owner_of(py::handle obj, py::object& keep) {
  py::object cur = py::reinterpret_borrow<py::object>(obj);
  for (int depth = 0; depth < 64 && cur && !cur.is_none(); ++depth) {
    if (py::isinstance<Memory>(cur)) {
      keep = cur;
      return cur.cast<Memory*>();
    }
    if (PyMemoryView_Check(cur.ptr())) {
      PyObject* base = PyMemoryView_GET_BUFFER(cur.ptr())->obj;
      if (base == nullptr) return nullptr;
      cur = py::reinterpret_borrow<py::object>(base);
    } else if (py::isinstance<py::array>(cur)) {
      cur = cur.attr("base");
    } else {
      return nullptr;
    }
  }
  return nullptr;
}

py::object wrap(std::shared_ptr<Block> block, void* data, std::size_t nbytes, int pe) {
  Memory m;
  m.block = std::move(block);
  m.data = static_cast<char*>(data);
  m.nbytes = nbytes;
  m.pe = pe;
  return py::cast(std::move(m));
}

py::object alloc(std::size_t nbytes, std::size_t align, long hints, bool clear) {
  ensure_init();
  if (align != 0 && (align & (align - 1)) != 0)
    raise_value("align=" + std::to_string(align) + " is not a power of two");
  if (hints < 0) raise_value("hints=" + std::to_string(hints) + " is negative");
  // shmem_malloc(0) returns NULL; one byte keeps every array's address a real symmetric one.
  const std::size_t bytes = nbytes == 0 ? 1 : nbytes;
  void* p = nullptr;
  {
    py::gil_scoped_release nogil;
    if (align != 0) {
      p = shmem_align(align, bytes);
    } else if (hints != 0) {
      p = shmem_malloc_with_hints(bytes, hints);
    } else {
      p = clear ? shmem_calloc(1, bytes) : shmem_malloc(bytes);
    }
    if (p != nullptr && clear && (align != 0 || hints != 0)) {
      std::memset(p, 0, bytes);
      shmem_sync_all();  // every copy is zero before any PE writes into one
    }
  }
  if (p == nullptr)
    raise_error(kOutOfMemoryCode, "symmetric allocation of " + std::to_string(nbytes) +
                                      " bytes failed: the symmetric heap is exhausted or too fragmented "
                                      "(raise SHMEM_SYMMETRIC_SIZE), or the alignment is unsupported");
  auto block = std::make_shared<Block>();
  block->addr = reinterpret_cast<std::uintptr_t>(p);
  block->nbytes = nbytes;
  live()[block->addr] = block;
  return wrap(std::move(block), p, nbytes, -1);
}

void free_mem(py::handle obj) {
  py::object keep;
  Memory* m = owner_of(obj, keep);
  if (m == nullptr)
    raise_value("mem is not symmetric memory (it was not returned by shmem.alloc, shmem.array, "
                "shmem.zeros, ...)");
  if (m->pe >= 0)
    raise_value("mem is a view of PE " + std::to_string(m->pe) + "'s memory from shmem.ptr; free the original");
  if (m->block->freed) raise_key("double free: this symmetric memory was already freed");
  std::uintptr_t start = reinterpret_cast<std::uintptr_t>(m->data);
  if (py::isinstance<py::array>(obj)) {
    start = reinterpret_cast<std::uintptr_t>(py::reinterpret_borrow<py::array>(obj).data());
  } else if (PyMemoryView_Check(obj.ptr())) {
    start = reinterpret_cast<std::uintptr_t>(PyMemoryView_GET_BUFFER(obj.ptr())->buf);
  }
  if (start != m->block->addr)
    raise_value("mem is a view starting " + std::to_string(start - m->block->addr) +
                " bytes into a symmetric allocation; free the array the allocator returned");
  ensure_init();
  auto block = m->block;
  block->freed = true;
  live().erase(block->addr);
  py::gil_scoped_release nogil;
  shmem_free(reinterpret_cast<void*>(block->addr));
}

}  // namespace

void forget_all_allocations() noexcept {
  for (auto& [addr, block] : live()) block->freed = true;
  live().clear();
}

py::object peer_view(py::handle target, void* p, std::size_t nbytes, int pe) {
  py::object keep;
  Memory* owner = owner_of(target, keep);
  std::shared_ptr<Block> block = owner ? owner->block : std::make_shared<Block>();
  return py::memoryview(wrap(std::move(block), p, nbytes, pe));
}

void require_symmetric(const Operand& op) {
  ensure_init();
  py::object keep;
  if (Memory* m = owner_of(op.obj, keep)) {
    if (m->block->freed)
      raise_value(std::string(op.name) + " refers to symmetric memory that was freed (use after free)");
    if (m->pe >= 0)
      raise_value(std::string(op.name) + " is a view of PE " + std::to_string(m->pe) +
                  "'s memory from shmem.ptr, not a symmetric object");
    return;
  }
  if (symmetric_range(reinterpret_cast<std::uintptr_t>(op.data), op.extent_bytes(), op.name)) return;
  raise_value(std::string(op.name) +
              " is not symmetric: it must live on the symmetric heap (create it with shmem.array, "
              "shmem.zeros, shmem.empty, shmem.full, shmem.new_array or shmem.alloc)");
}

bool maybe_symmetric(const Operand& op) {
  py::object keep;
  if (owner_of(op.obj, keep) != nullptr) return true;  // ours (freed or a peer view: the caller decides)
  return symmetric_range(reinterpret_cast<std::uintptr_t>(op.data), op.extent_bytes(), op.name);
}

void require_symmetric_addr(std::uintptr_t addr, std::size_t bytes, const char* name) {
  ensure_init();
  if (symmetric_range(addr, bytes, name)) return;
  raise_value(std::string(name) + " is not the address of " + std::to_string(bytes) +
              " bytes inside one live symmetric allocation");
}

void bind_memory(py::module_& m) {
  py::class_<Memory>(m, "SymmetricMemory", py::buffer_protocol())
      .def_buffer([](Memory& mem) {
        return py::buffer_info(mem.data, 1, py::format_descriptor<std::uint8_t>::format(), 1,
                               {static_cast<py::ssize_t>(mem.nbytes)}, {static_cast<py::ssize_t>(1)}, false);
      })
      .def_property_readonly("address", [](const Memory& mem) { return reinterpret_cast<std::uintptr_t>(mem.data); })
      .def_property_readonly("nbytes", [](const Memory& mem) { return mem.nbytes; })
      .def_property_readonly("freed", [](const Memory& mem) { return mem.block->freed; })
      .def_property_readonly("pe", [](const Memory& mem) { return mem.pe; })
      .def("__repr__", [](const Memory& mem) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "<shmem.SymmetricMemory %zu bytes at %p%s%s>", mem.nbytes,
                      static_cast<void*>(mem.data), mem.pe >= 0 ? " (peer view)" : "",
                      mem.block->freed ? " (freed)" : "");
        return std::string(buf);
      });
  m.def("alloc", &alloc, py::arg("nbytes"), py::arg("align") = 0, py::arg("hints") = 0, py::arg("clear") = true);
  m.def("free", &free_mem, py::arg("mem"));
  m.def("owner", [](py::handle obj) -> py::object {
    py::object keep;
    return owner_of(obj, keep) ? keep : py::none();
  });
  m.def("is_symmetric", [](py::handle obj) {
    py::object keep;
    Memory* mem = owner_of(obj, keep);
    return mem != nullptr && mem->pe < 0 && !mem->block->freed;
  });
  m.def("live_allocations", [] { return live().size(); });
}

}  // namespace shmem_py
