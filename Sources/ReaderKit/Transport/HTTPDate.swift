import Foundation

/// An HTTP-date (RFC 9110 §5.6.7): IMF-fixdate, and the obsolete RFC 850 and asctime forms a
/// recipient must accept.
public enum HTTPDate {
    /// The date `value` writes; nil when it is absent, not printable ASCII, longer than any date,
    /// in none of the three forms, or no instant from 1970 to 9999.
    public static func instant(_ value: String?) -> Date? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), let date = parse(value), OutsideNumbers.isPlausible(date) else { return nil }
        return date
    }

    /// The date `value` writes in one of the three forms, as the formatter reads it (unbounded).
    static func parse(_ value: String) -> Date? {
        if let date = imfFixdate(value) { return date }
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

    /// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the form servers send, read by arithmetic:
    /// a cached read judges its `Date` and `Expires` without building a DateFormatter.
    static func imfFixdate(_ value: String) -> Date? {
        let bytes = Array(value.utf8)
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == 0x20, bytes[7] == 0x20, bytes[11] == 0x20,
              bytes[16] == 0x20, bytes[19] == UInt8(ascii: ":"), bytes[22] == UInt8(ascii: ":"), bytes[25] == 0x20,
              bytes[26...28].elementsEqual("GMT".utf8),
              ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].contains(String(decoding: bytes[0..<3], as: UTF8.self)) else { return nil }
        func number(_ offset: Int, _ digits: Int) -> Int? {
            var value = 0
            for byte in bytes[offset..<offset + digits] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard let monthIndex = months.firstIndex(of: String(decoding: bytes[8..<11], as: UTF8.self)),
              let day = number(5, 2), let year = number(12, 4), let hour = number(17, 2), let minute = number(20, 2),
              let second = number(23, 2), (1...StoredDate.daysIn(month: monthIndex + 1, year: year)).contains(day),
              hour < 24, minute < 60, second < 61 else { return nil }
        let days = StoredDate.daysSince1970(year: year, month: monthIndex + 1, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + second))
    }
}
