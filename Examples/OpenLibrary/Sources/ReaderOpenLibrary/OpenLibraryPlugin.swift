import ArgumentParser
import Foundation
import OpenLibraryKit
import ReaderCLI
import ReaderKit

/// Open Library in `reader`, from outside it: its address, the works `reader sync` keeps, and a
/// `work` command. `reader` learns of it by one line:
/// `ReaderCommandLine.prepareProcess(services: .builtIn.adding(OpenLibraryPlugin()))`.
public struct OpenLibraryPlugin: ServicePlugin {
    public init() {}

    public var name: ServiceName { OpenLibrary.serviceName }

    public var summary: String { "Open Library's books" }

    public var settings: [ServiceSetting] {
        [
            ServiceSetting(key: "openlibrary.url", variable: OpenLibrary.baseURLVariable,
                           summary: "The Open Library base URL (default \(OpenLibrary.defaultBaseURL.absoluteString)).",
                           kind: .url(default: OpenLibrary.defaultBaseURL)),
            ServiceSetting(key: "openlibrary.works", summary: "The works 'reader sync' keeps without arguments.",
                           kind: .list(check: { ids throws(SettingProblem) in try ids.map(Self.workID) })),
        ]
    }

    /// `id` as a work's id (`OL45804W`), or the problem with it.
    static func workID(_ id: String) throws(SettingProblem) -> String {
        do { return try OpenLibraryID.parse(id, as: .work).description } catch {
            throw SettingProblem("\"\(TerminalText.sanitise(id, maxLength: 40))\" is not a work's id, such as OL45804W")
        }
    }

    public func service(from settings: ServiceSettings) throws(ReaderError) -> any Service {
        try OpenLibrary(baseURL: settings.url("openlibrary.url"))
    }

    public var commands: [any ParsableCommand.Type] { [WorkCommand.self] }

    public var sync: SyncCapability? {
        SyncCapability(
            usage: "openlibrary WORK…", description: "openlibrary followed by work ids", summary: "Open Library's works",
            explanation: "'openlibrary WORK…' reads each work as 'reader work ID' does.",
            configuredHelp: "the works of [openlibrary] works", example: "openlibrary OL45804W",
            argumentsNeeded: "openlibrary needs at least one work id, such as 'openlibrary OL45804W'",
            argument: { id throws(ReaderError) in try OpenLibraryID.parse(id, as: .work).description },
            configured: { settings in
                let works = settings.list("openlibrary.works")
                return works.isEmpty ? nil : works
            },
            configExample: "[openlibrary] works = [\"OL45804W\"]",
            run: { client, ids, options, progress in
                await client.sync(ids.compactMap { try? OpenLibrary.work($0) }, phase: "openlibrary, works", options: options, progress: progress)
            })
    }
}

/// `reader work OL45804W`: a work's title and first publication, as `reader` shows what it reads.
struct WorkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "work", abstract: "Show an Open Library work.")

    @Argument(help: "The work's id, such as OL45804W.")
    var id: String

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await options.show(try OpenLibrary.work(id)) { work in
            [work.title, work.firstPublishDate.map { "first published \($0)" }].compactMap { $0 }
                .map { TerminalText.sanitise($0, maxLength: 300) }.joined(separator: "\n")
        }
    }
}
