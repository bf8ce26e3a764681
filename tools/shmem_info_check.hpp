#pragma once
// shmem-info --check [-n N]: checks this host's environment for shmem jobs of N PEs here.
#include <string>

namespace shmem::tools {

// args: the arguments after --check. Prints one line per check (ok, warn, FAIL) with what to fix;
// returns the exit status: 0, 1 when a check failed, 2 on bad usage.
int run_check(int argc, char** argv, const std::string& plugin_dir);

}  // namespace shmem::tools
