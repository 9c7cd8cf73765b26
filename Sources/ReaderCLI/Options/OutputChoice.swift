import ArgumentParser
import Foundation
import ReaderKit
import ReaderTerminal

/// What the output flags say, wherever they are declared, and the output they make.
struct OutputChoice {
    static let jsonHelp = ArgumentHelp("Write one JSON object to stdout (and errors as JSON to stderr).")
    static let verboseHelp = ArgumentHelp("Show technical detail: requests, statuses, decisions.")
    static let noColorHelp = ArgumentHelp("Never colour the output (colour is also off when NO_COLOR is set, TERM is dumb, the config file says color = false, or output is not a terminal).")

    var json: Bool
    var verbose: Bool
    var noColor: Bool

    /// Whether colour is off by the flag, the environment or the config file.
    var colourOff: Bool {
        noColor || Self.settingsTurnColourOff
    }

    /// Whether the config file or the environment turns colour off (a broken config file does not).
    static var settingsTurnColourOff: Bool {
        (try? ProcessSettings.fromFileAndEnvironment.get())?.color.value == false
    }

    func makeOutput() -> Output {
        var output = Output(json: json)
        output.verbose = verbose
        output.errorStyle = Style.forDescriptor(STDERR_FILENO, noColor: colourOff)
        return output
    }
}
