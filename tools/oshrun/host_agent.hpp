#pragma once
// `oshrun --host-agent --host HOST -- /abs/program [args...]`: the one process per remote host
// that starts and watches that host's PEs, starts the hosts below it in the tree through the
// same agent (--rsh), and reports everything upward on its stdout (agent_protocol.hpp).
namespace oshrun {

// argv[0] is oshrun, argv[1] "--host-agent". Returns the exit status (0 once every PE below
// has been reported; 1 when the job could not be read).
int host_agent_main(int argc, char** argv);

}  // namespace oshrun
