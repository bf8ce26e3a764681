#include "bootstrap/launch_env.hpp"
#include "bootstrap/torch_store.hpp"

#include <openssl/evp.h>

#include <cstdlib>
#include <string_view>

#include "bootstrap/store.hpp"
#include "base/config.hpp"
#include "base/error.hpp"
#include "base/log.hpp"

namespace shmem::bootstrap {
namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

int env_int(const char* name, long lo, long hi) {
  const std::int64_t v = parse_int(env(name), name);
  if (v < lo || v > hi)
    throw Error(Errc::kInvalidValue, std::string(name) + "=" + std::to_string(v) + " is outside " +
                                         std::to_string(lo) + ".." + std::to_string(hi));
  return static_cast<int>(v);
}

std::string sha256_hex(std::string_view text) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(text.data(), text.size(), md, &len, EVP_sha256(), nullptr);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < len; ++i) {
    out += hex[md[i] >> 4];
    out += hex[md[i] & 15];
  }
  return out;
}

// How long a rank that knows it is misconfigured tries to tell the job's store before it gives up.
constexpr Millis kReportTimeout{3000};

// Says hello to the store as `rank` of `npes` so that it fails the job naming the problem;
// returns the store's words (empty if it could not be told).
std::string report_to_store(const LaunchSpec& s, int rank, int npes) {
  try {
    StoreClient c(s.store_host, s.store_port, s.tls, rank, kReportTimeout, npes);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

// A task of a multi-task srun step that has no PMIx (srun without --mpi=pmix, MpiDefault=none,
// or --mpi=pmi2) would otherwise run as a job of one PE, once per task, each "succeeding" alone.
void slurm_without_pmix() {
  const char* tasks = env("SLURM_STEP_NUM_TASKS");
  const char* task = env("SLURM_PROCID");
  if (!tasks || !task) return;
  char* end = nullptr;
  const long n = std::strtol(tasks, &end, 10);
  if (*end != '\0' || n <= 1) return;
  throw Error(Errc::kBootstrap, std::string("started by srun as task ") + task + " of " + tasks +
                                    " (SLURM_PROCID, SLURM_STEP_NUM_TASKS) but without PMIx (PMIX_RANK is not set" +
                                    (env("PMI_RANK") ? "; srun --mpi=pmi2 is not supported" : "") +
                                    "): the PEs meet through PMIx; start the program with srun --mpi=pmix, or set "
                                    "MpiDefault=pmix in slurm.conf");
}

void apply_tls(const Config& cfg, TlsConfig& tls) {
  tls.enabled = cfg.bootstrap_tls;
  tls.secret = cfg.job_secret;
  if (!cfg.bootstrap_tls_info.empty()) tls.apply_tls_info(cfg.bootstrap_tls_info);
}

}  // namespace

LaunchSpec launch_spec_from_env(const Config& cfg) {
  LaunchSpec s;
  apply_tls(cfg, s.tls);
  if (cfg.npes > 0) {  // oshrun (or anything that sets our variables)
    if (cfg.pe < 0 || cfg.pe >= cfg.npes)
      throw Error(Errc::kInvalidValue, "SHMEM_PE=" + std::to_string(cfg.pe) + " is outside 0.." +
                                           std::to_string(cfg.npes - 1) + " (SHMEM_NPES=" + std::to_string(cfg.npes) + ")");
    s.pe = static_cast<int>(cfg.pe);
    s.npes = static_cast<int>(cfg.npes);
    s.origin = "oshrun";
    s.job_id = cfg.job_id;
    if (s.npes > 1) {
      if (cfg.store_addr.empty())
        throw Error(Errc::kBootstrap, "SHMEM_NPES=" + std::to_string(s.npes) +
                                          " but SHMEM_STORE_ADDR is not set: start the program with oshrun -n N");
      std::tie(s.store_host, s.store_port) = parse_host_port(cfg.store_addr, "SHMEM_STORE_ADDR");
    }
    return s;
  }
  if (env("OMPI_COMM_WORLD_SIZE") && env("OMPI_COMM_WORLD_RANK")) {  // Open MPI's mpirun
    s.npes = env_int("OMPI_COMM_WORLD_SIZE", 1, 1 << 20);
    s.pe = env_int("OMPI_COMM_WORLD_RANK", 0, s.npes - 1);
    s.origin = "mpirun";
    s.pmix = s.npes > 1;
    if (s.pmix && !env("PMIX_NAMESPACE"))
      throw Error(Errc::kBootstrap, "started by Open MPI's mpirun (OMPI_COMM_WORLD_SIZE=" + std::to_string(s.npes) +
                                        ") but PMIX_NAMESPACE is not set: the PEs meet through PMIx, which this "
                                        "launcher does not provide; start the program with oshrun -n N");
    return s;
  }
  if (env("WORLD_SIZE") && env("RANK")) {  // torchrun / torch.distributed style
    s.npes = env_int("WORLD_SIZE", 1, 1 << 20);
    const int rank = env_int("RANK", 0, 1 << 20);
    s.pe = rank < s.npes ? rank : 0;
    s.origin = "torchrun";
    if (s.npes > 1) {
      if (!env("MASTER_ADDR") || !env("MASTER_PORT"))
        throw Error(Errc::kBootstrap, "RANK and WORLD_SIZE are set but MASTER_ADDR/MASTER_PORT are not: rank 0 hosts "
                                      "the bootstrap store at MASTER_ADDR:MASTER_PORT");
      s.store_host = env("MASTER_ADDR");
      s.store_port = static_cast<std::uint16_t>(env_int("MASTER_PORT", 1, 65535));
      s.host_store = s.pe == 0;
    }
    const std::string where = s.store_host + ":" + std::to_string(s.store_port) + "/" + std::to_string(s.npes) + "/" +
                              (env("TORCHELASTIC_RUN_ID") ? env("TORCHELASTIC_RUN_ID") : "");
    s.job_id = sha256_hex(where).substr(0, 16).insert(0, 1, 't');  // (not "t" + ...: GCC 12 -Wrestrict false positive)
    if (s.tls.secret.empty() && !s.tls.uses_certificates()) {
      // torchrun hands out no secret: derive one from the rendezvous values, which every rank
      // knows, and say plainly that this authenticates nothing against a local attacker.
      s.tls.secret = sha256_hex("shmem-derived-secret/" + where);
      if (s.pe == 0 && !torch_agent_store(s))  // (there rank 0 makes a random secret: torch_store.hpp)
        SHMEM_WARN("init", "no SHMEM_JOB_SECRET under torchrun-style launch: the bootstrap store's secret is derived "
                           "from MASTER_ADDR/MASTER_PORT; set SHMEM_JOB_SECRET (same value on every rank) or "
                           "certificates in SHMEM_BOOTSTRAP_TLS_INFO to authenticate PEs");
    }
    if (rank >= s.npes) {
      const std::string told = s.npes > 1 ? report_to_store(s, rank, s.npes) : std::string();
      throw Error(Errc::kInvalidValue, "RANK=" + std::to_string(rank) + " is outside the job: WORLD_SIZE=" +
                                           std::to_string(s.npes) + " (ranks 0.." + std::to_string(s.npes - 1) + ")" +
                                           (told.empty() ? "" : "; the job's store says: " + told));
    }
    return s;
  }
  if (env("PMIX_RANK") && env("PMIX_NAMESPACE")) {  // another PMIx process manager: srun, prterun
    s.pe = env_int("PMIX_RANK", 0, (1 << 20) - 1);
    s.npes = 0;  // PMIx tells
    s.origin = "pmix";
    s.pmix = true;
    return s;
  }
  slurm_without_pmix();
  return s;  // singleton
}

}  // namespace shmem::bootstrap

namespace shmem::bootstrap {

void store_host_failed(const LaunchSpec& launch, const Error& why) {
  if (std::string_view(why.what()).find("in use") == std::string_view::npos) throw why;
  // Someone listens on our port: if it is this job's store, hosted by a process that also
  // claims our rank, our hello makes that job fail with "RANK 0 claimed twice".
  std::string told;
  try {
    StoreClient c(launch.store_host, launch.store_port, launch.tls, launch.pe, kReportTimeout, kClaimProbe);
  } catch (const Error& e) {
    told = e.what();
  }
  if (told.find("claimed twice") != std::string::npos)
    throw Error(Errc::kInvalidValue, "RANK " + std::to_string(launch.pe) + " claimed twice: another process with RANK=" +
                                         std::to_string(launch.pe) + " already hosts the bootstrap store at " +
                                         launch.store_host + ":" + std::to_string(launch.store_port));
  throw why;
}

}  // namespace shmem::bootstrap
