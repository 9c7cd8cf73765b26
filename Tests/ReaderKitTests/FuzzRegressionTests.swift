import Foundation
import Testing
@_spi(Fuzzing) import ReaderKit
import TestSupport

/// Replays, through the fuzzer's own entry point, every input the fuzzer ever crashed on
/// (`Fuzz/Regressions`), and the recorded responses under each status and content type. A crash
/// here is a crash the fuzzer found again.
@Suite struct FuzzRegressionTests {
    static var regressions: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/Regressions")
    }

    @Test func everyInputThatOnceCrashedIsSurvived() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.regressions.path)
            .filter { !$0.hasPrefix(".") }.sorted()
        for name in names {
            let bytes = try Data(contentsOf: Self.regressions.appendingPathComponent(name))
            AnswerFuzzing.run(bytes)
        }
    }

    @Test func everyRecordedResponseIsSurvivedUnderEveryStatusAndContentType() {
        let files = Fixtures.names(in: "swapi", withExtension: "json") + Fixtures.names(in: "reddit", withExtension: "json")
            + Fixtures.names(in: "reddit", withExtension: "html") + Fixtures.names(in: "swapi", withExtension: "html")
        #expect(files.count > 20)
        for file in files {
            let body = Fixtures.bytes(file).prefix(20_000)
            for status in [0, 9, 11, 13, 200] as [UInt8] {
                for contentType in [0, 2, 3, 8] as [UInt8] {
                    AnswerFuzzing.run([status, contentType, 0x0F] + body)
                }
            }
        }
    }
}
