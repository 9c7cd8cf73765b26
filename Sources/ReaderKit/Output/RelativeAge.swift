/// Ages as people say them: `42 s`, `5 min`, `3 h`, `2 days`.
public enum RelativeAge {
    /// Describes `seconds` briefly.
    public static func describe(seconds: Int) -> String {
        switch max(0, seconds) {
        case ..<60: "\(max(0, seconds)) s"
        case ..<3600: "\(seconds / 60) min"
        case ..<86_400: "\(seconds / 3600) h"
        case ..<(86_400 * 2): "1 day"
        default: "\(seconds / 86_400) days"
        }
    }
}
