// The `reader` executable: everything it does is in ReaderCLI (commands and renderers) and
// ReaderKit (the engine), so that tests and fuzzers reach all of it.
//
// A synchronous entry on purpose: the standard descriptors are checked (a closed stdout is
// remembered and stood in for by /dev/null) before the concurrency runtime or Dispatch open any
// descriptor of their own, which would otherwise take the number of a closed stdout and receive
// the output.
import Dispatch
import ReaderCLI

ReaderCommandLine.prepareProcess()
Task {
    await ReaderCommandLine.main()
    ReaderCommandLine.exitSucceeding()
}
dispatchMain()
