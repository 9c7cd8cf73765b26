import ArgumentParser
import Foundation

/// A size on the command line: `100MB`, `512k`, `1g` or a number of bytes. Units are powers of
/// 1024, as `du -h` and `ls -h` count.
struct ByteCount: ExpressibleByArgument, Equatable {
    var bytes: Int

    init(bytes: Int) { self.bytes = bytes }

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        let digits = text.prefix { $0.isNumber || $0 == "." }
        guard !digits.isEmpty, let number = Double(digits), number.isFinite, number >= 0 else { return nil }
        let unit: Double
        switch text.dropFirst(digits.count).trimmingCharacters(in: .whitespaces) {
        case "", "b": unit = 1
        case "k", "kb", "kib": unit = 1024
        case "m", "mb", "mib": unit = 1024 * 1024
        case "g", "gb", "gib": unit = 1024 * 1024 * 1024
        default: return nil
        }
        guard number * unit <= Double(Int64.max / 2) else { return nil }
        bytes = Int(number * unit)
    }

    /// `1.2 MB`, `512 KB`, `80 B`.
    static func describe(_ bytes: Int) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var index = 0
        while value >= 1024, index < units.count - 1 {
            value /= 1024
            index += 1
        }
        return index == 0 ? "\(bytes) B" : String(format: value < 10 ? "%.1f %@" : "%.0f %@", value, units[index])
    }
}
