import ArgumentParser
import Foundation
import ReaderKit

/// How results and errors are written: every command takes these (a fetching command declares
/// the same flags itself: ``FetchOptions``).
struct OutputOptions: ParsableArguments {
    @Flag(help: OutputChoice.jsonHelp)
    var json = false

    @Flag(name: .shortAndLong, help: OutputChoice.verboseHelp)
    var verbose = false

    @Flag(help: OutputChoice.noColorHelp)
    var noColor = false

    var choice: OutputChoice { OutputChoice(json: json, verbose: verbose, noColor: noColor) }
    var colourOff: Bool { choice.colourOff }
    func makeOutput() -> Output { choice.makeOutput() }
}
