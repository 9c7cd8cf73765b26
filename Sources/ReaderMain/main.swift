// The `reader` executable: everything it does is in ReaderCLI (commands and renderers) and
// ReaderKit (the engine), so that tests and fuzzers reach all of it.
import ReaderCLI

await ReaderCommandLine.main()
