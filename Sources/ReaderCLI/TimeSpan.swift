import ArgumentParser
import Foundation

/// A length of time on the command line: `90` or `90s`, `500ms`, `5m`, `2h`, `7d`.
struct TimeSpan: ExpressibleByArgument, Equatable {
    var duration: Duration

    init(_ duration: Duration) { self.duration = duration }

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        let digits = text.prefix { $0.isNumber || $0 == "." }
        guard !digits.isEmpty, let number = Double(digits), number.isFinite, number >= 0 else { return nil }
        let unit: Double
        switch text.dropFirst(digits.count) {
        case "ms": unit = 0.001
        case "", "s", "sec": unit = 1
        case "m", "min": unit = 60
        case "h": unit = 3600
        case "d": unit = 86_400
        default: return nil
        }
        let seconds = number * unit
        guard seconds <= 100 * 365 * 86_400 else { return nil }
        duration = .milliseconds(Int64((seconds * 1000).rounded()))
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
