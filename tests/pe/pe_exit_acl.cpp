// pe_exit_acl.cpp ME NPES tcp URL|uid DIR SCENARIO - the leaving-without-finalize cases of
// pe_exit.c in the aclshmem.h launch modes (ip_port "tcp://", and the unique ID passed through a
// file in DIR), started by tests/acl/acl_launch.sh;
// pe_exit_acl.cpp - - mpi - SCENARIO - the same under mpirun with ACLSHMEMX_INIT_WITH_MPI
// (comm_args NULL: the library initialises MPI; ME and NPES are mpirun's rank and size).
// The last PE leaves:
//   exit4          exit(4) while the others wait in aclshmem_barrier_all
//   exit0-barrier  returns 0 without aclshmem_finalize while the others call the barrier
//   exit0-all      every PE returns 0 without aclshmem_finalize: the job succeeds
#include <aclshmem.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

namespace {

bool join_by_uid(int me, int npes, const std::string& dir, aclshmemx_init_attr_t* attr, aclshmemx_uniqueid_t* uid) {
  const std::string path = dir + "/uid";
  if (me == 0) {
    if (aclshmemx_get_uniqueid(uid) != 0) return false;
    std::ofstream(path + ".tmp", std::ios::binary).write(reinterpret_cast<const char*>(uid), sizeof *uid);
    if (std::rename((path + ".tmp").c_str(), path.c_str()) != 0) return false;  // appears whole
  } else {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    for (;;) {
      std::ifstream in(path, std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (bytes.size() == sizeof *uid) {
        std::memcpy(uid, bytes.data(), sizeof *uid);
        break;
      }
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));  // polling for the file (bounded)
    }
  }
  return aclshmemx_set_attr_uniqueid_args(me, npes, 64LL << 20, uid, attr) == 0 &&
         aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_UNIQUEID, attr) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s ME NPES tcp URL|uid DIR SCENARIO  or  %s - - mpi - SCENARIO\n", argv[0], argv[0]);
    return 2;
  }
  const std::string mode = argv[3], arg = argv[4], scenario = argv[5];
  const bool mpi = mode == "mpi";
  const char* rank_env = std::getenv("OMPI_COMM_WORLD_RANK");
  const char* size_env = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (mpi && (rank_env == nullptr || size_env == nullptr)) {
    std::fprintf(stderr, "pe_exit_acl: mode mpi needs mpirun (OMPI_COMM_WORLD_RANK / _SIZE)\n");
    return 2;
  }
  const int me = std::atoi(mpi ? rank_env : argv[1]), npes = std::atoi(mpi ? size_env : argv[2]);
  aclshmemx_init_attr_t attr{};
  aclshmemx_uniqueid_t uid = ACLSHMEM_UNIQUEID_INITIALIZER;
  bool ok;
  if (mpi) {
    attr.my_pe = me;
    attr.n_pes = npes;
    attr.local_mem_size = 64ULL << 20;
    attr.comm_args = nullptr;  // MPI_COMM_WORLD, MPI initialised by the library
    ok = aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_MPI, &attr) == 0;
  } else if (mode == "tcp") {
    attr.my_pe = me;
    attr.n_pes = npes;
    std::snprintf(attr.ip_port, sizeof attr.ip_port, "%s", arg.c_str());
    attr.local_mem_size = 64ULL << 20;
    ok = aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &attr) == 0;
  } else {
    ok = join_by_uid(me, npes, arg, &attr, &uid);
  }
  if (!ok) {
    std::fprintf(stderr, "PE %d: init failed\n", me);
    return 1;
  }
  aclshmem_barrier_all();
  const int victim = npes - 1;
  if (scenario == "exit0-all") {
    std::printf("PE %d: exit0-all: OK\n", me);
    return 0;  // no aclshmem_finalize
  }
  if (me == victim) {
    if (scenario == "exit4") std::exit(4);
    return 0;  // exit0-barrier
  }
  aclshmem_barrier_all();
  std::fprintf(stderr, "PE %d: NOT STOPPED: passed the barrier in %s\n", me, scenario.c_str());
  aclshmem_finalize();
  return 0;
}
