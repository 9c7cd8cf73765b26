import Foundation
import TestSupport
import Testing

/// The documentation's "Getting started" article shows `Examples/Films/main.swift`, the program
/// the README shows and the tests run: the article's copy is that file, byte for byte.
@Suite struct GettingStartedArticleTests {
    static let root = PackageRoot.url
    static let article = root.appendingPathComponent("Sources/ReaderKit/ReaderKit.docc/GettingStarted.md")
    static let example = root.appendingPathComponent("Examples/Films/main.swift")

    /// The article's code block that starts with the example's first line.
    static func programInArticle() throws -> String? {
        let text = try String(contentsOf: article, encoding: .utf8)
        for block in text.components(separatedBy: "```swift\n").dropFirst() {
            guard block.hasPrefix("// Examples/Films/main.swift"), let end = block.range(of: "```") else { continue }
            return String(block[..<end.lowerBound])
        }
        return nil
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: example.path), "Examples/Films is not in this tree"))
    func theArticleShowsTheExampleAsItIs() throws {
        let program = try #require(try Self.programInArticle(), "no code block starting // Examples/Films/main.swift")
        #expect(program == (try String(contentsOf: Self.example, encoding: .utf8)))
    }
}
