import Foundation

/// The ranges that numbers from outside (an answer's body and headers, a cache row, the token
/// file, the environment) are read into, where they enter.
///
/// Swift traps on overflow, so a number a server or a file chose is never used as it came: it is
/// checked against one of these ranges at the boundary, and an absurd value is either a decoding
/// error (the API's meaning is broken: a post made in the year 10^292) or clamped (the meaning
/// survives: "come back in 10^20 seconds" is "come back later"). Each range is far wider than any
/// real value and far narrower than what arithmetic on it could overflow: the rest of the code
/// may add, multiply and convert them freely.
public enum OutsideNumbers {
    /// Counts a server gives (comments on a post, a collection's size, comments behind a "more"):
    /// at most a billion.
    public static let count: ClosedRange<Int> = 0...1_000_000_000

    /// Scores, which may be negative: within a billion either way.
    public static let score: ClosedRange<Int> = -1_000_000_000...1_000_000_000

    /// Instants, as seconds since 1970: from 1970 to the end of the year 9999, the range every
    /// calendar and formatter on every platform can show.
    public static let epochSeconds: ClosedRange<Double> = 0...253_402_300_799

    /// The longest wait a server can ask for that is kept as a number (ten years); a longer one is
    /// this long, with no date ("come back later").
    public static let maximumWaitSeconds: Double = 10 * 365 * 86_400

    /// The units of a length of time, as `--timeout` and the config file take them (`500ms`,
    /// `90`, `90s`, `5m`, `2h`, `7d`), in seconds.
    public static let timeUnits: [String: Double] = ["ms": 0.001, "": 1, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "d": 86_400]

    /// A number with a unit as a person writes it (`90s`, `1.5g`): ASCII digits and a point (at
    /// most 20 characters), then one of `units` (case-insensitive), times that unit's factor. Nil
    /// when it does not read; the caller bounds the result. `spaceBeforeUnit` allows `1 g` too.
    public static func number(_ text: String, units: [String: Double], spaceBeforeUnit: Bool = false) -> Double? {
        let lowered = text.trimmingCharacters(in: .whitespaces).lowercased()
        let digits = lowered.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        let rest = lowered.dropFirst(digits.count)
        guard !digits.isEmpty, digits.count <= 20, let number = Double(digits), number.isFinite, number >= 0,
              let unit = units[spaceBeforeUnit ? rest.trimmingCharacters(in: .whitespaces) : String(rest)] else { return nil }
        return number * unit
    }

    /// A decimal number as a header writes it (`42`, `0.0`, `-1`, `1e3`): ASCII digits with an
    /// optional sign, point and exponent, at most 32 characters. Nil for anything else — `Double`'s
    /// own parser also takes `0x10`, `nan` and `infinity`, which no header means. A number too
    /// large for a `Double` (`1e400`) is infinite: the caller bounds it.
    public static func decimal(_ text: some StringProtocol) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.count <= 32,
              trimmed.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: ".")
                  || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }),
              trimmed.utf8.contains(where: { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let number = Double(trimmed), !number.isNaN else { return nil }
        return number
    }

    /// Whether `seconds` since 1970 is an instant reader can show and compute with.
    public static func isPlausibleEpoch(_ seconds: Double) -> Bool {
        seconds.isFinite && epochSeconds.contains(seconds)
    }

    /// Whether `date` lies within ``epochSeconds``.
    public static func isPlausible(_ date: Date) -> Bool {
        isPlausibleEpoch(date.timeIntervalSince1970)
    }

    /// `seconds` rounded toward zero into an `Int`, saturating at the ends and 0 for NaN: for
    /// differences of instants that are already plausible, and as a last guard where an
    /// unchecked `Double` could reach an `Int` (a library user's own values).
    public static func wholeSeconds(_ seconds: Double) -> Int {
        guard !seconds.isNaN else { return 0 }
        // 2^62: exactly representable, and far beyond any plausible difference of instants.
        let limit = 4_611_686_018_427_387_904.0
        if seconds >= limit { return Int(limit) }
        if seconds <= -limit { return -Int(limit) }
        return Int(seconds)
    }
}

extension Duration {
    /// `seconds` as a duration, with NaN and negatives as zero and anything beyond
    /// ``OutsideNumbers/maximumWaitSeconds`` as that: never a trap, whatever the `Double`.
    static func clamping(seconds: Double) -> Duration {
        guard seconds.isFinite else { return seconds > 0 ? clamping(seconds: OutsideNumbers.maximumWaitSeconds) : .zero }
        let bounded = min(max(seconds, 0), OutsideNumbers.maximumWaitSeconds)
        return .milliseconds(Int64((bounded * 1000).rounded(.up)))
    }
}

extension KeyedDecodingContainer {
    /// Decodes an integer that must lie within `range`; outside it, the value is corrupt at that
    /// key (a D1005 with its coding path), never a number the code downstream may overflow on.
    func decode(_ type: Int.Type, forKey key: Key, within range: ClosedRange<Int>) throws -> Int {
        let value = try decode(Int.self, forKey: key)
        guard range.contains(value) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription: "\(value) is outside \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// As ``decode(_:forKey:within:)``, where the key may be missing or null (a feed's post has
    /// no score): nil then, never a number made up.
    func decodeIfPresent(_ type: Int.Type, forKey key: Key, within range: ClosedRange<Int>) throws -> Int? {
        guard let value = try decodeIfPresent(Int.self, forKey: key) else { return nil }
        guard range.contains(value) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription: "\(value) is outside \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }
}
