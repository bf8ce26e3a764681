// init_example: the three ways to start a job with aclshmem.h, in one program.
//
//   init_example default tcp://HOST:PORT [MY_PE N_PES]   ACLSHMEMX_INIT_WITH_DEFAULT: PE 0 hosts the
//                                                        bootstrap store at HOST:PORT
//   init_example uid FIFO [MY_PE N_PES]                  ACLSHMEMX_INIT_WITH_UNIQUEID: PE 0 makes the ID,
//                                                        the others read it from the named pipe FIFO
//   init_example uid                                     (MPI build, under mpirun) the ID goes out with MPI_Bcast
//   init_example mpi                                     (MPI build, under mpirun) ACLSHMEMX_INIT_WITH_MPI
//
// Without MY_PE N_PES the PE number and job size come from the launcher's variables (RANK and
// WORLD_SIZE, OMPI_COMM_WORLD_RANK and OMPI_COMM_WORLD_SIZE, or PMI_RANK and PMI_SIZE).
// Every mode then runs the same check: each PE puts a value into every PE, a barrier, each PE
// checks what arrived and gets one value back from its right neighbour. PE 0 prints VERIFIED.
#include <aclshmem.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#ifdef INIT_EXAMPLE_WITH_MPI
#include <mpi.h>
#endif

namespace {

constexpr uint64_t kHeapBytes = 16ULL << 20;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "init_example: FAILED: %s\n", what);
  std::exit(1);
}

// MY_PE N_PES from the command line (argv[first], argv[first + 1]) or the launcher's variables.
void ranks(int argc, char** argv, int first, int& me, int& npes) {
  if (argc > first + 1) {
    me = std::atoi(argv[first]);
    npes = std::atoi(argv[first + 1]);
    return;
  }
  const char* pairs[][2] = {{"RANK", "WORLD_SIZE"}, {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                            {"PMI_RANK", "PMI_SIZE"}};
  for (const auto& p : pairs) {
    const char* r = std::getenv(p[0]);
    const char* n = std::getenv(p[1]);
    if (r && n) {
      me = std::atoi(r);
      npes = std::atoi(n);
      return;
    }
  }
  fail("give MY_PE N_PES, or start me with a launcher that sets RANK and WORLD_SIZE (or mpirun)");
}

// The same check in every mode; then aclshmem_finalize.
void check_and_finalize(const char* mode) {
  const int me = aclshmem_my_pe(), npes = aclshmem_n_pes();
  auto* slot = static_cast<int32_t*>(aclshmem_malloc(sizeof(int32_t) * static_cast<size_t>(npes)));
  if (slot == nullptr) fail("aclshmem_malloc");
  const int32_t mine = 100 * me + 7;
  for (int pe = 0; pe < npes; ++pe) aclshmem_int32_put(&slot[me], &mine, 1, pe);  // my slot on every PE
  aclshmem_barrier_all();                                                            // ... has arrived
  for (int pe = 0; pe < npes; ++pe) {
    if (slot[pe] != 100 * pe + 7) {
      std::fprintf(stderr, "init_example: FAILED: PE %d: slot[%d] = %d, expected %d\n", me, pe, slot[pe], 100 * pe + 7);
      aclshmem_global_exit(1);  // ends every PE, not only this one
    }
  }
  const int right = (me + 1) % npes;
  const int32_t got = aclshmem_int32_g(&slot[right], right);
  if (got != 100 * right + 7) {
    std::fprintf(stderr, "init_example: FAILED: PE %d: get from PE %d returned %d\n", me, right, got);
    aclshmem_global_exit(1);
  }
  aclshmem_barrier_all();
  aclshmem_free(slot);
  if (aclshmem_finalize() != ACLSHMEM_SUCCESS) fail("aclshmem_finalize");
  if (me == 0) std::printf("init_example %s: VERIFIED (%d PEs)\n", mode, npes);
}

// ---- default: tcp://host:port -------------------------------------------------------------------
void run_default(const char* url, int me, int npes) {
  aclshmemx_init_attr_t attr{};
  attr.my_pe = me;
  attr.n_pes = npes;
  std::snprintf(attr.ip_port, sizeof attr.ip_port, "%s", url);
  attr.local_mem_size = kHeapBytes;
  if (aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &attr) != ACLSHMEM_SUCCESS)
    fail("aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT)");
  check_and_finalize("default");
}

// ---- unique ID over a named pipe ----------------------------------------------------------------
// PE 0 opens the pipe for reading and writing (so it never waits for a reader, and the pipe
// stays open however slowly the others come) and writes one copy of the ID per other PE; each
// other PE opens it for reading, which waits for PE 0, and reads one copy. Copies are smaller
// than PIPE_BUF, so each write and each read moves one whole ID.
void init_uid(const aclshmemx_uniqueid_t& shared, int me, int npes) {
  aclshmemx_uniqueid_t uid = shared;
  aclshmemx_init_attr_t attr{};
  if (aclshmemx_set_attr_uniqueid_args(me, npes, static_cast<int64_t>(kHeapBytes), &uid, &attr) != ACLSHMEM_SUCCESS)
    fail("aclshmemx_set_attr_uniqueid_args");
  if (aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_UNIQUEID, &attr) != ACLSHMEM_SUCCESS)
    fail("aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_UNIQUEID)");
}

void run_uid_fifo(const char* path, int me, int npes) {
  if (::mkfifo(path, 0600) != 0 && errno != EEXIST) fail("mkfifo (is the directory writable?)");
  struct stat st {};
  if (::stat(path, &st) != 0 || !S_ISFIFO(st.st_mode)) fail("the uid path exists and is not a named pipe");
  aclshmemx_uniqueid_t uid = ACLSHMEM_UNIQUEID_INITIALIZER;
  if (me == 0) {
    if (aclshmemx_get_uniqueid(&uid) != ACLSHMEM_SUCCESS) fail("aclshmemx_get_uniqueid");
    const int fd = ::open(path, O_RDWR);
    if (fd < 0) fail("open the pipe");
    for (int pe = 1; pe < npes; ++pe)
      if (::write(fd, &uid, sizeof uid) != static_cast<ssize_t>(sizeof uid)) fail("write the ID to the pipe");
    init_uid(uid, me, npes);  // returns once every PE has joined, so all have read their copy
    ::close(fd);
    ::unlink(path);
  } else {
    const int fd = ::open(path, O_RDONLY);
    if (fd < 0) fail("open the pipe");
    size_t got = 0;
    while (got < sizeof uid) {
      const ssize_t n = ::read(fd, reinterpret_cast<char*>(&uid) + got, sizeof uid - got);
      if (n <= 0 && !(n < 0 && errno == EINTR)) fail("read the ID from the pipe");
      if (n > 0) got += static_cast<size_t>(n);
    }
    ::close(fd);
    init_uid(uid, me, npes);
  }
  check_and_finalize("uid");
}

#ifdef INIT_EXAMPLE_WITH_MPI
// ---- unique ID over MPI_Bcast -------------------------------------------------------------------
void run_uid_mpi() {
  MPI_Init(nullptr, nullptr);
  int me = 0, npes = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &npes);
  aclshmemx_uniqueid_t uid = ACLSHMEM_UNIQUEID_INITIALIZER;
  if (me == 0 && aclshmemx_get_uniqueid(&uid) != ACLSHMEM_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Bcast(&uid, static_cast<int>(sizeof uid), MPI_BYTE, 0, MPI_COMM_WORLD);
  init_uid(uid, me, npes);
  check_and_finalize("uid (MPI_Bcast)");
  MPI_Finalize();
}

// ---- ACLSHMEMX_INIT_WITH_MPI --------------------------------------------------------------------
void run_mpi() {
  MPI_Init(nullptr, nullptr);
  int me = 0, npes = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &npes);
  MPI_Comm comm = MPI_COMM_WORLD;
  aclshmemx_init_attr_t attr{};
  attr.my_pe = me;  // must be the rank and size in the communicator
  attr.n_pes = npes;
  attr.local_mem_size = kHeapBytes;
  attr.comm_args = &comm;  // NULL would mean MPI_COMM_WORLD too
  if (aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_MPI, &attr) != ACLSHMEM_SUCCESS) {
    std::fprintf(stderr, "init_example: FAILED: aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_MPI)\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  check_and_finalize("mpi");
  MPI_Finalize();  // the program initialised MPI, so it finalises it
}
#endif

int usage() {
  std::fprintf(stderr,
               "usage: init_example default tcp://HOST:PORT [MY_PE N_PES]\n"
               "       init_example uid FIFO [MY_PE N_PES]\n"
#ifdef INIT_EXAMPLE_WITH_MPI
               "       init_example uid        (under mpirun: the ID goes out with MPI_Bcast)\n"
               "       init_example mpi        (under mpirun: ACLSHMEMX_INIT_WITH_MPI)\n"
#else
               "       (uid over MPI_Bcast and the mpi mode need a build with MPI)\n"
#endif
  );
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  int me = -1, npes = 0;
  if (mode == "default" && argc > 2) {
    ranks(argc, argv, 3, me, npes);
    run_default(argv[2], me, npes);
  } else if (mode == "uid" && argc > 2) {
    ranks(argc, argv, 3, me, npes);
    run_uid_fifo(argv[2], me, npes);
#ifdef INIT_EXAMPLE_WITH_MPI
  } else if (mode == "uid") {
    run_uid_mpi();
  } else if (mode == "mpi") {
    run_mpi();
#endif
  } else {
    return usage();
  }
  return 0;
}
