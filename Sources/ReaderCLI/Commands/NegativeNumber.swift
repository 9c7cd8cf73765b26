import ArgumentParser
import Foundation
import ReaderKit

/// A negative number where a command takes a value (`--page -1`, `reader people -99`), which
/// ArgumentParser reads as an option: "Missing value for '--page <page>'", "Unknown option '-99'".
/// Rewritten so that it can only be a value, and parsed again, the number reaches the command's own
/// check, which says what it takes. Only a command line the parser refused is looked at: any other
/// parses as before, at no cost.
enum NegativeNumber {
    /// `arguments` with the negative number `refusal` is about made a value: `--page=-1` for an
    /// option's, `-- -99` at the end for an argument's (unless a `--` is there already): one the
    /// parser called unknown, or the first when it says an argument is missing. Nil when
    /// `refusal` is about something else.
    static func asValue(in arguments: [String], refusedWith refusal: String) -> [String]? {
        var rewritten = arguments
        if refusal.hasPrefix("Missing value for '") {
            let option = refusal.dropFirst("Missing value for '".count).prefix { $0 != " " && $0 != "'" }
            guard let index = arguments.indices.first(where: { arguments[$0] == option && $0 + 1 < arguments.count
                      && isNegativeNumber(arguments[$0 + 1]) }) else { return nil }
            rewritten[index] = "\(option)=\(arguments[index + 1])"
            rewritten.remove(at: index + 1)
            return rewritten
        }
        // "Missing expected argument '<post>'" for `reader comments -1`: the number is the argument missed.
        let isMissedArgument = refusal.hasPrefix("Missing expected argument '")
        guard !arguments.contains("--"),
              let index = arguments.firstIndex(where: { isNegativeNumber($0) && (isMissedArgument || refusal.hasPrefix("Unknown option '\($0)'")) })
        else { return nil }
        let number = rewritten.remove(at: index)
        return rewritten + ["--", number]
    }

    /// `-99`, `-1.5`, `-2h`, `-1MB`: a minus, a digit, then at most 20 letters, digits and points.
    /// No option of reader's starts with a digit.
    static func isNegativeNumber(_ argument: String) -> Bool {
        let rest = argument.dropFirst()
        return argument.hasPrefix("-") && rest.first.map { $0.isASCII && $0.isNumber } == true && rest.count <= 20
            && rest.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == ".") }
    }
}
