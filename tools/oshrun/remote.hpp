#pragma once
// PEs on other hosts. oshrun starts each one as
//     AGENT HOST '<oshrun>' --remote-exec --pe R --host HOST -- '<program>' '<arg>'...
// (AGENT = --rsh / SHMEM_RSH, called as ssh is), so no command line carries the secret.
// The remote oshrun (the "stub") then reads, from its stdin:
//     "SHMEM-REMOTE 1 <n>\n" and n bytes: NUL-terminated strings, the working directory
//     first, then the PE's environment (job variables and secret included)
// execs the PE (stdout/stderr are the agent's, so output flows back as it does over ssh),
// and keeps reading its stdin for control lines ("signal N\n": send signal N to the PE).
// End of stdin means the launcher or the agent is gone: the PE gets SIGTERM, then SIGKILL
// after kRemoteKillDelay. The stub exits with the PE's status (128+n when signal n killed
// it, as a shell reports it); 126/127 when it cannot run the PE. 255 stays the agent's own
// failure code (ssh's convention).
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace oshrun {

inline constexpr std::string_view kRemoteExecOption = "--remote-exec";
inline constexpr std::chrono::milliseconds kRemoteKillDelay{1000};
// An environment block larger than this is refused (it must fit in the agent's stdin pipe
// so that writing it never blocks the launcher).
inline constexpr std::size_t kMaxRemoteBlock = 1024 * 1024;

// 'word' for sh -c, with embedded single quotes escaped.
std::string shell_quote(std::string_view word);

// The one command-line argument handed to the agent (the remote shell runs it).
std::string remote_command_line(const std::string& oshrun_path, int rank, const std::string& host,
                                const std::vector<std::string>& command);

// The block written to the agent's stdin.
std::string encode_remote_block(const std::string& cwd, const std::vector<std::string>& env);

// Splits an agent setting ("ssh -o BatchMode=yes") on blanks into words.
std::vector<std::string> split_agent(std::string_view text);

// Variables that describe the host a process runs on: a remote PE keeps its own host's values
// of these instead of the launcher's (PWD is set to the working directory).
bool is_host_local_variable(std::string_view name);

// "exited with status 3", "killed by signal 11 (Segmentation fault)" (status 128+n), or the
// agent's own failure (255, or the agent killed locally).
std::string describe_remote_status(int wait_status);

// The stub: argv[0] is oshrun, argv[1] "--remote-exec". Returns the exit status.
int remote_exec_main(int argc, char** argv);

}  // namespace oshrun
