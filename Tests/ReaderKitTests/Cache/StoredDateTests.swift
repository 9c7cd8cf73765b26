import Foundation
import GRDB
import Testing
import TestSupport
@testable import ReaderKit

/// The cache's dates are written and read by arithmetic instead of GRDB's formatter and calendar:
/// the same text and the same `Date`, to the bit, as GRDB's, or GRDB's own path.
@Suite struct StoredDateTests {
    /// GRDB's text for `date`.
    func grdbText(_ date: Date) -> String? {
        String.fromDatabaseValue(date.databaseValue)
    }

    @Test func theTextIsGRDBsForInstantsFrom1970To9999() {
        // Given random instants (whole milliseconds, fractions of one, and near a millisecond's edge)
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        var instants: [Date] = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 253_402_300_799.999),
                                Date(timeIntervalSince1970: 1_700_000_000.9995), Date(timeIntervalSince1970: 951_782_400)]
        for _ in 0..<20_000 {
            let seconds = Double.random(in: 0..<253_402_300_800, using: &random)
            let milliseconds = (seconds * 1000).rounded(.down) / 1000
            instants += [Date(timeIntervalSince1970: seconds), Date(timeIntervalSince1970: milliseconds),
                         Date(timeIntervalSince1970: milliseconds).addingTimeInterval(-1e-9)]
        }

        // Then each is written as GRDB writes it
        for instant in instants {
            let text = StoredDate.text(instant)
            guard text == grdbText(instant) else {
                Issue.record("seed \(seed): \(instant.timeIntervalSinceReferenceDate) is \(text ?? "nil"), GRDB writes \(grdbText(instant) ?? "nil")")
                return
            }
            #expect(StoredDate.databaseValue(instant) == instant.databaseValue)
        }
    }

    @Test func instantsOutside1970To9999AreLeftToGRDB() {
        for instant in [Date(timeIntervalSince1970: -0.001), Date(timeIntervalSince1970: 253_402_300_800), .distantPast,
                        Date(timeIntervalSinceReferenceDate: .infinity), Date(timeIntervalSinceReferenceDate: .nan)] {
            #expect(StoredDate.text(instant) == nil, "\(instant.timeIntervalSinceReferenceDate)")
            #expect(StoredDate.databaseValue(instant) == instant.databaseValue)
        }
    }

    @Test func theDateIsGRDBsToTheBit() {
        // Given GRDB's text for random instants, and random texts of its shape
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        var texts: [String] = ["1970-01-01 00:00:00.000", "9999-12-31 23:59:59.999", "2000-02-29 12:00:00.500", "2024-02-29 00:00:00.001"]
        for _ in 0..<20_000 {
            let seconds = Double.random(in: 0..<253_402_300_800, using: &random)
            texts += [grdbText(Date(timeIntervalSince1970: seconds))!]
            texts += [String(format: "%04d-%02d-%02d %02d:%02d:%02d.%03d", Int.random(in: 1970...9999, using: &random),
                             Int.random(in: 1...12, using: &random), Int.random(in: 1...28, using: &random), Int.random(in: 0...23, using: &random),
                             Int.random(in: 0...59, using: &random), Int.random(in: 0...59, using: &random), Int.random(in: 0...999, using: &random))]
        }

        // Then each reads as the very Date GRDB reads
        for text in texts {
            let expected = Date.fromDatabaseValue(text.databaseValue)
            let read = StoredDate.date(text.databaseValue)
            guard let read, let expected, read.timeIntervalSinceReferenceDate.bitPattern == expected.timeIntervalSinceReferenceDate.bitPattern else {
                Issue.record("seed \(seed): \(text) reads as \(String(describing: read?.timeIntervalSinceReferenceDate)), GRDB reads \(String(describing: expected?.timeIntervalSinceReferenceDate))")
                return
            }
        }
    }

    @Test func textOfAnotherShapeIsLeftToGRDB() {
        let others = ["2024-01-01T00:00:00.000", "2024-01-01 00:00:00", "2024-01-01 00:00:00.0000", "2024-01-01", "2024-02-30 00:00:00.000",
                      "2023-02-29 00:00:00.000", "2024-13-01 00:00:00.000", "2024-00-10 00:00:00.000", "2024-01-01 24:00:00.000",
                      "2024-01-01 00:60:00.000", "2024-01-01 00:00:60.000", "1969-12-31 23:59:59.999", "2024-01-01 00:00:00.00Z",
                      "+024-01-01 00:00:00.000", "2024-01-01 00:00:0a.000", "２０２４-01-01 00:00:00.000", ""]
        for text in others {
            #expect(StoredDate.date(text) == nil, "\(text)")
        }
        #expect(StoredDate.date(DatabaseValue(value: 1_700_000_000.0)!) == nil, "a number is GRDB's to read")
    }
}
