import ArgumentParser
import Foundation
import ReaderKit

/// A length of time on the command line: `90` or `90s`, `500ms`, `5m`, `2h`, `7d`. A negative one
/// (`-1`) is read too, so that the option's own check can say what its bounds are.
struct TimeSpan: ExpressibleByArgument, Equatable {
    var duration: Duration
    /// The text given for a time longer than any option takes, said as it was in the refusal.
    private var tooLong: String?

    init(_ duration: Duration) { self.duration = duration }

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces)
        let negative = text.hasPrefix("-")
        guard let seconds = OutsideNumbers.number(negative ? String(text.dropFirst()) : text, units: OutsideNumbers.timeUnits)
        else { return nil }
        guard seconds <= ConfigFile.maximumTimeSpan.inSecondsForHelp else {
            // Held as just beyond the longest any option takes, so that its own check refuses it with its bounds.
            let beyond = ConfigFile.maximumTimeSpan + .seconds(1)
            duration = negative ? .zero - beyond : beyond
            tooLong = text
            return
        }
        let milliseconds = Int64((seconds * 1000).rounded())
        duration = .milliseconds(negative ? -milliseconds : milliseconds)
    }

    static var defaultCompletionKind: CompletionKind { .default }

    /// How `--help` shows a default, and a message a value: `20s`, `30d`, `500ms`, `-1s`.
    var defaultValueDescription: String {
        let milliseconds = Int64(duration.inSecondsForHelp * 1000)
        let sign = milliseconds < 0 ? "-" : ""
        let magnitude = milliseconds.magnitude
        // Nothing at all, in no unit ("0ms" read as a time too short, not as none).
        if magnitude == 0 { return "0" }
        for (unit, size) in [("d", UInt64(86_400_000)), ("h", 3_600_000), ("m", 60_000), ("s", 1000)]
        where magnitude >= size && magnitude % size == 0 {
            return "\(sign)\(magnitude / size)\(unit)"
        }
        return "\(sign)\(magnitude)ms"
    }

    /// Nil when the time is within `range`, else `OPTION must be BOUNDS, got VALUE`.
    func problem(_ option: String, within range: ClosedRange<Duration>, bounds: String) -> String? {
        range.contains(duration) ? nil : "\(option) must be \(bounds), got \(tooLong ?? defaultValueDescription)"
    }
}

extension Duration {
    fileprivate var inSecondsForHelp: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
