import ArgumentParser
import Foundation
import ReaderKit

/// A size on the command line: `100MB`, `512k`, `1g` or a number of bytes. Units are powers of
/// 1024, as `du -h` and `ls -h` count. A negative size (`-1`) is read too, for its option to refuse.
struct ByteCount: ExpressibleByArgument, Equatable {
    var bytes: Int
    /// The text it was read from, if any: a refusal quotes what was given (`-1MB`), not its bytes.
    var given: String?

    init(bytes: Int) { self.bytes = bytes }

    init?(argument: String) {
        let (kilo, mega, giga): (Double, Double, Double) = (1024, 1024 * 1024, 1024 * 1024 * 1024)
        let units = ["": 1, "b": 1, "k": kilo, "kb": kilo, "kib": kilo, "m": mega, "mb": mega, "mib": mega,
                     "g": giga, "gb": giga, "gib": giga]
        // A negative size is read, so that the option's own check can say what is wrong with it.
        let text = argument.trimmingCharacters(in: .whitespaces)
        let negative = text.hasPrefix("-")
        guard let value = OutsideNumbers.number(negative ? String(text.dropFirst()) : text, units: units, spaceBeforeUnit: true),
              value <= Double(Int64.max / 2) else { return nil }
        bytes = negative ? -Int(value) : Int(value)
        given = text
    }

    /// The size as given, else as ``describe(_:)`` says it.
    var shown: String { given ?? Self.describe(bytes) }

    /// How `--help` shows a default: `100MB`.
    var defaultValueDescription: String { String(Self.describe(bytes).filter { $0 != " " }) }

    /// `1.2 MB`, `512 KB`, `80 B`.
    static func describe(_ bytes: Int) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var index = 0
        while value >= 1024, index < units.count - 1 {
            value /= 1024
            index += 1
        }
        guard index > 0 else { return "\(bytes) B" }
        // Plain Swift, not String(format:): `--help` and every parse compute the default's text,
        // and Foundation's formatting costs start-up time.
        let number = value < 10 ? String((value * 10).rounded() / 10) : String(Int(value.rounded()))
        return "\(number) \(units[index])"
    }
}
