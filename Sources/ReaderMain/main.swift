// The `reader` executable: everything it does is in ReaderCLI (commands and renderers) and
// ReaderKit (the engine), so that tests and fuzzers reach all of it.
//
// A synchronous entry on purpose:
// - the standard descriptors are checked (a closed stdout is remembered and stood in for by
//   /dev/null) before the concurrency runtime or Dispatch open any descriptor of their own, which
//   would otherwise take the number of a closed stdout and receive the output;
// - the arguments are parsed on this thread, so that help, the version and a usage error end the
//   process before any task or thread is started.
import Dispatch
import ReaderCLI

ReaderCommandLine.prepareProcess()
let parsed = ReaderCommandLine.parse()
Task {
    await ReaderCommandLine.run(parsed)
    ReaderCommandLine.exitSucceeding()
}
dispatchMain()
