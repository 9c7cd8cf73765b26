import ArgumentParser
import Foundation
import ReaderKit

/// A length of time on the command line: `90` or `90s`, `500ms`, `5m`, `2h`, `7d`.
struct TimeSpan: ExpressibleByArgument, Equatable {
    var duration: Duration

    init(_ duration: Duration) { self.duration = duration }

    init?(argument: String) {
        guard let seconds = OutsideNumbers.number(argument, units: OutsideNumbers.timeUnits),
              seconds <= ConfigFile.maximumTimeSpan.inSecondsForHelp else { return nil }
        duration = .milliseconds(Int64((seconds * 1000).rounded()))
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
