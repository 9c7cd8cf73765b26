import Foundation
import GRDB

/// A date as the cache file holds it: GRDB's text, `yyyy-MM-dd HH:mm:ss.SSS` in UTC, written and
/// read by arithmetic rather than by GRDB's `DateFormatter` and Gregorian `Calendar`.
///
/// Those two cost more than the rest of a cached read's SQL: the formatter builds an ICU
/// formatter, the calendar reads the environment and fills a calendar cache, and each first use
/// scans the program's protocol conformances. The arithmetic gives the same text and the same
/// `Date`, to the bit, for the years 1970 to 9999 (a test compares both ways with GRDB's over
/// random instants); anything else (another year, another shape of text, a number) goes through
/// GRDB exactly as before.
enum StoredDate {
    /// Seconds from 1970 to 2001, the reference date.
    private static let referenceSince1970 = 978_307_200.0
    /// The first instant of the year 10000, in milliseconds since 1970.
    private static let endMilliseconds = 253_402_300_800_000.0

    /// The database value GRDB stores for `date`.
    static func databaseValue(_ date: Date) -> DatabaseValue {
        if let text = text(date) { return text.databaseValue }
        return date.databaseValue
    }

    /// GRDB's text for `date`, when it is from 1970 to 9999; nil otherwise.
    static func text(_ date: Date) -> String? {
        // The formatter is handed milliseconds since 1970 as a double, half a millisecond added,
        // and shows their whole part: the nearest millisecond.
        let milliseconds = ((date.timeIntervalSinceReferenceDate + referenceSince1970) * 1000 + 0.5).rounded(.down)
        guard milliseconds >= 0, milliseconds < endMilliseconds, let whole = Int(exactly: milliseconds) else { return nil }
        let (days, millisecondOfDay) = whole.quotientAndRemainder(dividingBy: 86_400_000)
        let (year, month, day) = civilDate(daysSince1970: days)
        let (second, millisecond) = millisecondOfDay.quotientAndRemainder(dividingBy: 1000)
        var bytes = [UInt8](repeating: 0, count: 23)
        func put(_ value: Int, at offset: Int, digits: Int) {
            var value = value
            for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                bytes[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
        }
        put(year, at: 0, digits: 4)
        put(month, at: 5, digits: 2)
        put(day, at: 8, digits: 2)
        put(second / 3600, at: 11, digits: 2)
        put(second / 60 % 60, at: 14, digits: 2)
        put(second % 60, at: 17, digits: 2)
        put(millisecond, at: 20, digits: 3)
        for (offset, separator) in [(4, "-"), (7, "-"), (10, " "), (13, ":"), (16, ":"), (19, ".")] as [(Int, Unicode.Scalar)] {
            bytes[offset] = UInt8(ascii: separator)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The date GRDB reads from `value` when it is text in exactly GRDB's shape for a date from
    /// 1970 to 9999; nil for anything else, which the caller reads through GRDB.
    static func date(_ value: DatabaseValue) -> Date? {
        guard case .string(let text) = value.storage else { return nil }
        return date(text)
    }

    /// As ``date(_:)``, for the text itself.
    static func date(_ text: String) -> Date? {
        let utf8 = text.utf8
        return utf8.withContiguousStorageIfAvailable { bytes -> Date? in
            guard bytes.count == 23 else { return nil }
            func number(_ offset: Int, _ digits: Int) -> Int? {
                var value = 0
                for index in offset..<(offset + digits) {
                    let digit = Int(bytes[index]) - Int(UInt8(ascii: "0"))
                    guard (0...9).contains(digit) else { return nil }
                    value = value * 10 + digit
                }
                return value
            }
            guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: " "),
                  bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "."),
                  let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
                  let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
                  let millisecond = number(20, 3),
                  (1970...9999).contains(year), (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
                  hour < 24, minute < 60, second < 60 else { return nil }
            // As Foundation's Gregorian calendar adds it up: the day's start, then the time in the
            // day with its fraction (one rounding, at the end, as there).
            let dayStart = Double(daysSince1970(year: year, month: month, day: day) * 86_400) - referenceSince1970
            let secondsInDay = Double(hour * 3600 + minute * 60 + second) + Double(millisecond * 1_000_000) / 1_000_000_000
            return Date(timeIntervalSinceReferenceDate: dayStart + secondsInDay)
        } ?? nil
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the given day of the (proleptic) Gregorian calendar
    /// (Howard Hinnant's `days_from_civil`).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = shiftedYear / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The day `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`), for days ≥ 0.
    private static func civilDate(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
