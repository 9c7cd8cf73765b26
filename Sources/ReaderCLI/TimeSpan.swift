import ArgumentParser
import Foundation

/// A length of time on the command line: `90` or `90s`, `500ms`, `5m`, `2h`, `7d`.
struct TimeSpan: ExpressibleByArgument, Equatable {
    var duration: Duration

    init(_ duration: Duration) { self.duration = duration }

    init?(argument: String) {
        let units: [String: Double] = ["ms": 0.001, "": 1, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "d": 86_400]
        guard let seconds = Self.number(argument, units: units), seconds <= 100 * 365 * 86_400 else { return nil }
        duration = .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// A non-negative number followed by one of `units` (case-insensitive), times that unit's
    /// factor; nil when it does not read. `spaceBeforeUnit` allows `1 g` as well as `1g`.
    static func number(_ argument: String, units: [String: Double], spaceBeforeUnit: Bool = false) -> Double? {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        let digits = text.prefix { $0.isNumber || $0 == "." }
        let rest = text.dropFirst(digits.count)
        guard !digits.isEmpty, let number = Double(digits), number.isFinite, number >= 0,
              let unit = units[spaceBeforeUnit ? rest.trimmingCharacters(in: .whitespaces) : String(rest)] else { return nil }
        return number * unit
    }

    static var defaultCompletionKind: CompletionKind { .default }

    /// How `--help` shows a default: `20s`, `30d`, `500ms`.
    var defaultValueDescription: String {
        let milliseconds = Int64(duration.inSecondsForHelp * 1000)
        for (unit, size) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("m", 60_000), ("s", 1000)]
        where milliseconds >= size && milliseconds % size == 0 {
            return "\(milliseconds / size)\(unit)"
        }
        return "\(milliseconds)ms"
    }
}

extension Duration {
    fileprivate var inSecondsForHelp: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
