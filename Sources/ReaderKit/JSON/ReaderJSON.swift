import Foundation

/// The JSON coders ReaderKit uses for both APIs.
///
/// SWAPI's `created` and `edited` are ISO 8601 with fractional seconds, Reddit's `created_utc` is
/// epoch seconds; one date strategy accepts both, so every model decodes with the same decoder.
public enum ReaderJSON {
    /// A decoder that reads SWAPI and Reddit dates.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            if let seconds = try? container.decode(Double.self) {
                // An instant no calendar can show (a server's 1e300) is corrupt here, where it
                // enters, rather than a trap wherever an age is worked out from it.
                guard OutsideNumbers.isPlausibleEpoch(seconds) else {
                    throw DecodingError.dataCorruptedError(
                        in: container, debugDescription: "\(seconds) seconds since 1970 is not a date from 1970 to 9999")
                }
                return Date(timeIntervalSince1970: seconds)
            }
            let text = try container.decode(String.self)
            guard let date = parseTimestamp(text), OutsideNumbers.isPlausible(date) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "Expected an ISO 8601 timestamp, found \(text.debugDescription)")
            }
            return date
        }
        return decoder
    }

    /// An encoder that writes dates as ISO 8601 with fractional seconds, keys sorted, so output is stable.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(formatTimestamp(date))
        }
        return encoder
    }

    /// Parses `2014-12-09T13:50:51.644000Z` (any number of fractional digits) or `2014-12-09T13:50:51Z`.
    /// Anything but printable ASCII is nil at once: a timestamp is ASCII, and the text is a server's.
    public static func parseTimestamp(_ text: String) -> Date? {
        guard text.utf8.count <= 64, text.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        if let date = try? Date(text, strategy: withFractionalSeconds) {
            return date
        }
        return try? Date(text, strategy: wholeSeconds)
    }

    /// Formats a date as ISO 8601 in UTC with millisecond precision.
    public static func formatTimestamp(_ date: Date) -> String {
        date.formatted(withFractionalSeconds)
    }

    // Made once: each made anew looked its calendar up again (SWAPI's list has two dates a resource).
    private static let withFractionalSeconds = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let wholeSeconds = Date.ISO8601FormatStyle()
}
