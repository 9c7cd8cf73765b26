import ArgumentParser
import Foundation
import ReaderKit
import Testing
import TestSupport

@testable import ReaderCLI

/// A built-in service is its two folders (`Sources/ReaderKit/Services/NAME/`,
/// `Sources/ReaderCLI/Services/NAME/`) and one line in each registry: nothing else in the code
/// names it, so a fourth service needs no other file.
@Suite struct ServiceFoldersTests {
    /// The registry lines, the only places outside its folders that name a built-in service.
    static let registryLines = [
        "ReaderKit/Services/BuiltInServices.swift": "public static let builtInServices",
        "ReaderCLI/Services/ServiceRegistry.swift": "Plugin(),",
    ]

    /// Every line of code (comments aside) under `Sources/` and `Fuzz/Harness/` that names one of
    /// `words`, outside `allowedFolders` and the registry lines.
    static func linesNaming(_ words: [String], outside allowedFolders: [String]) throws -> [String] {
        var found: [String] = []
        for root in ["Sources", "Fuzz/Harness"] {
            let folder = PackageRoot.appending(root)
            let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
            for file in files.sorted() where file.hasSuffix(".swift") {
                let path = root == "Sources" ? file : root + "/" + file
                guard !allowedFolders.contains(where: path.hasPrefix) else { continue }
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    guard !code.hasPrefix("//"), !(registryLines[path].map(code.contains) ?? false) else { continue }
                    let lowered = code.lowercased()
                    if words.contains(where: lowered.contains) { found.append("\(path):\(number + 1): \(code)") }
                }
            }
        }
        return found
    }

    @Test("no file outside a built-in service's folders names it", arguments: [
        (folder: "SWAPI", words: ["swapi", "star wars"]),
        (folder: "Reddit", words: ["reddit", "subreddit"]),
    ])
    func builtInServiceIsNamedOnlyInItsFolders(folder: String, words: [String]) throws {
        let allowed = ["ReaderKit/Services/\(folder)/", "ReaderCLI/Services/\(folder)/", "ReaderKit/ReaderKit.docc/"]
        let offenders = try Self.linesNaming(words, outside: allowed)
        #expect(offenders.isEmpty, "\(offenders.count) lines name \(folder) outside its folders:\n\(offenders.joined(separator: "\n"))")
        #expect(FileManager.default.fileExists(atPath: PackageRoot.appending("Sources/ReaderCLI/Services/\(folder)").path),
                "the scan reads the sources")
    }

    /// A fourth service, from nowhere but this file, in a registry with the built-in ones: its
    /// setting is read from the environment, its service made, its commands and its secret known.
    @Test func aFourthServiceNeedsOnlyItsPlugin() throws {
        let registry = ServiceRegistry.builtIn.adding(FourthPlugin())
        #expect(registry.names.map(\.rawValue) == ["swapi", "reddit", "fourth"])
        #expect(registry.addressVariables.contains("READER_FOURTH_URL"))

        var settings = ReaderSettings.builtIn(of: registry)
        try settings.apply(environment: ["READER_FOURTH_URL": "http://127.0.0.1:9/fourth"])
        let service = try #require(try settings.services()["fourth"])
        #expect(service.baseURL.absoluteString == "http://127.0.0.1:9/fourth")
        #expect(registry.servicesAtTheirDefaults.names.map(\.rawValue) == ["fourth", "reddit", "swapi"])
        #expect(LinkOpener.secretVariables(of: registry).contains("READER_FOURTH_TOKEN"))
        #expect(registry.service(of: FourthCommand.self)?.rawValue == "fourth")
    }
}

/// A service of the test's own.
private struct FourthService: Service {
    var name: ServiceName { "fourth" }
    var baseURL: URL
    var freshness: FreshnessPolicy.Rule { FreshnessPolicy.Rule(defaultLifetime: .seconds(60)) }
}

private struct FourthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "fourth-things")
}

private struct FourthPlugin: ServicePlugin {
    var name: ServiceName { "fourth" }

    var settings: [ServiceSetting] {
        [
            ServiceSetting(key: "fourth.url", variable: "READER_FOURTH_URL", summary: "Where the fourth service is.",
                           kind: .url(default: URL(string: "https://fourth.example")!)),
            ServiceSetting(key: "fourth.user", variable: "READER_FOURTH_USER", summary: "Who reads it.",
                           kind: .identity(check: { _ in nil }, unset: "none")),
            ServiceSetting(key: "fourth.token", variable: "READER_FOURTH_TOKEN", summary: "Their token.",
                           kind: .secret(of: "fourth.user", check: { _ in nil })),
        ]
    }

    func service(from settings: ServiceSettings) throws(ReaderError) -> any Service {
        FourthService(baseURL: settings.url("fourth.url"))
    }

    var commands: [any ParsableCommand.Type] { [FourthCommand.self] }
}
