import Foundation

/// An HTTP-date (RFC 9110 §5.6.7): IMF-fixdate, and the obsolete RFC 850 and asctime forms a
/// recipient must accept.
public enum HTTPDate {
    /// The date `value` writes, read strictly, as a cache must (RFC 9111 §4.2: `Expires` in any
    /// other shape is no date, hence already expired): one of the three forms exactly, names in
    /// any case. Nil when it is absent, in none of them, or no instant from 1970 to 9999.
    /// - Parameters:
    ///   - value: the field's value, such as `Expires`'s.
    ///   - now: what an RFC 850 date's two-digit year is read against.
    public static func instant(_ value: String?, now: Date = Date()) -> Date? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), value.utf8.count <= 64 else { return nil }
        let bytes = Array(value.utf8)
        guard let date = imfFixdate(bytes) ?? rfc850Date(bytes, now: now) ?? asctimeDate(bytes), OutsideNumbers.isPlausible(date) else { return nil }
        return date
    }

    /// The date `value` writes in one of the three forms, read leniently (as `Retry-After` always
    /// was: a server's almost-date is still a time to come back), and unbounded.
    static func parse(_ value: String) -> Date? {
        if let date = imfFixdate(Array(value.utf8)) { return date }
        // An HTTP date is printable ASCII. Anything else never reaches DateFormatter, which traps
        // ("Incorrect range CFRange") on some strings with combining marks and U+FFFD in them.
        guard !value.isEmpty, value.utf8.count <= 64, value.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: value) { return date }
        }
        return nil
    }

    private static let days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    private static let longDays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`: the form servers send, read by arithmetic
    /// (a cached read judges its `Date` and `Expires` without building a DateFormatter).
    static func imfFixdate(_ value: String) -> Date? { imfFixdate(Array(value.utf8)) }

    private static func imfFixdate(_ bytes: [UInt8]) -> Date? {
        guard bytes.count == 29, text(bytes[0..<5]).lowercased().hasSuffix(", "), days.contains(text(bytes[0..<3]).lowercased()),
              bytes[7] == 0x20, bytes[11] == 0x20, bytes[16] == 0x20, bytes[25] == 0x20, text(bytes[26...]).lowercased() == "gmt",
              let day = number(bytes, 5, 2), let month = month(bytes[8..<11]), let year = number(bytes, 12, 4) else { return nil }
        return instant(year: year, month: month, day: day, time: bytes[17..<25])
    }

    /// RFC 850's `Sunday, 06-Nov-94 08:49:37 GMT`; a two-digit year is the latest such year not
    /// more than 50 years after `now`'s (RFC 9110 §5.6.7): in 2026, `76` is 2076 and `77` 1977.
    private static func rfc850Date(_ bytes: [UInt8], now: Date) -> Date? {
        guard let comma = bytes.firstIndex(of: UInt8(ascii: ",")), longDays.contains(text(bytes[..<comma]).lowercased()) else { return nil }
        let rest = Array(bytes[(comma + 1)...])
        guard rest.count == 23, rest[0] == 0x20, rest[3] == UInt8(ascii: "-"), rest[7] == UInt8(ascii: "-"), rest[10] == 0x20,
              rest[19] == 0x20, text(rest[20...]).lowercased() == "gmt",
              let day = number(rest, 1, 2), let month = month(rest[4..<7]), let shortYear = number(rest, 8, 2) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT") ?? calendar.timeZone
        let thisYear = calendar.component(.year, from: now)
        var year = thisYear - thisYear % 100 + shortYear
        if year > thisYear + 50 { year -= 100 }
        return instant(year: year, month: month, day: day, time: rest[11..<19])
    }

    /// asctime's `Sun Nov  6 08:49:37 1994` (a one-digit day after a space).
    private static func asctimeDate(_ bytes: [UInt8]) -> Date? {
        guard bytes.count == 24, days.contains(text(bytes[0..<3]).lowercased()), bytes[3] == 0x20, bytes[7] == 0x20,
              bytes[10] == 0x20, bytes[19] == 0x20, let month = month(bytes[4..<7]), let year = number(bytes, 20, 4) else { return nil }
        let day = bytes[8] == 0x20 ? number(bytes, 9, 1) : number(bytes, 8, 2)
        guard let day else { return nil }
        return instant(year: year, month: month, day: day, time: bytes[11..<19])
    }

    /// The instant of a day and an `HH:MM:SS` time, in GMT; nil when no calendar has it.
    private static func instant(year: Int, month: Int, day: Int, time: ArraySlice<UInt8>) -> Date? {
        let time = Array(time)
        guard time.count == 8, time[2] == UInt8(ascii: ":"), time[5] == UInt8(ascii: ":"), let hour = number(time, 0, 2),
              let minute = number(time, 3, 2), let second = number(time, 6, 2), hour < 24, minute < 60, second < 61,
              (1...StoredDate.daysIn(month: month, year: year)).contains(day) else { return nil }
        let days = StoredDate.daysSince1970(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + second))
    }

    private static func month(_ bytes: ArraySlice<UInt8>) -> Int? {
        months.firstIndex(of: text(bytes).lowercased()).map { $0 + 1 }
    }

    private static func number(_ bytes: [UInt8], _ offset: Int, _ digits: Int) -> Int? {
        guard offset + digits <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[offset..<offset + digits] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static func text(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
