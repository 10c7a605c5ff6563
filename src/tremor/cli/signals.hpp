#pragma once
// SIGINT and SIGTERM for the commands that write results (run, bem, static): the first signal
// asks the command to stop at its next check and finish its file as "incomplete"; a
// second one, while it winds down, ends the process at once (the `.partial` file stays). The same
// signal again within a second of the first is the same request (`timeout` sends it twice).
namespace tremor::cli {

// Installs the handlers and clears any earlier request.
void catch_stop_signals();
// The signal that asked to stop (SIGINT or SIGTERM), or 0.
int stop_signal();
// "SIGINT" or "SIGTERM" (SIGINT when none was received).
const char* stop_signal_name();

}  // namespace tremor::cli
