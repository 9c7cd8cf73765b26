// `reader` with Open Library registered beside SWAPI and Reddit: the proof that a service is a
// plug-in and one line. Everything else is `reader`'s own entry (Sources/ReaderMain).
import Dispatch
import ReaderCLI
import ReaderOpenLibrary

ReaderCommandLine.prepareProcess(services: .builtIn.adding(OpenLibraryPlugin()))
let parsed = ReaderCommandLine.parse()
Task {
    await ReaderCommandLine.run(parsed)
    ReaderCommandLine.exitSucceeding()
}
dispatchMain()
