import Foundation

/// Ages as people say them: `42 s`, `5 min`, `3 h`, `2 days`, `4 months`, `3 years`.
public enum RelativeAge {
    /// Describes `seconds` briefly.
    public static func describe(seconds: Int) -> String {
        switch max(0, seconds) {
        case ..<60: "\(max(0, seconds)) s"
        case ..<3600: "\(seconds / 60) min"
        case ..<86_400: "\(seconds / 3600) h"
        case ..<(86_400 * 2): "1 day"
        case ..<(86_400 * 60): "\(seconds / 86_400) days"
        case ..<(86_400 * 365): "\(seconds / (86_400 * 30)) months"
        case ..<(86_400 * 730): "1 year"
        default: "\(seconds / (86_400 * 365)) years"
        }
    }

    /// Describes the time from `start` to `end` (an age: `now` since a post was made), whatever the
    /// two instants: a `Date` a library user built by hand is clamped, never a trap.
    public static func describe(from start: Date, to end: Date) -> String {
        describe(seconds: OutsideNumbers.wholeSeconds(end.timeIntervalSince(start)))
    }

    /// A moment to come back, in local time, as people say it: `at 14:05 (in 40 min)`, or
    /// `on 2026-11-22 at 14:05 (in 1 day)` when it is not within the day.
    public static func describe(moment: Date, from now: Date = Date(), timeZone: TimeZone = .current) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        let seconds = OutsideNumbers.wholeSeconds(moment.timeIntervalSince(now).rounded(.up))
        // Seconds matter for a short wait, the date for a long one.
        formatter.dateFormat = switch seconds {
        case ..<3600: "'at' HH:mm:ss"
        case ..<86_400: "'at' HH:mm"
        default: "'on' yyyy-MM-dd 'at' HH:mm"
        }
        return "\(formatter.string(from: moment)) (in \(describe(seconds: seconds)))"
    }
}
