import ArgumentParser
import Foundation
import OpenLibraryKit
import ReaderKit

extension OpenLibraryCommand {
    /// `openlibrary search "lord of the rings" --limit 5`.
    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Search works by title, author or subject.")

        @Argument(help: "What to look for.")
        var text: String

        @Option(help: "How many works to show, 1 to \(OpenLibrary.maximumSearchLimit).")
        var limit = 10

        @OptionGroup var options: CommonOptions

        func run() async throws {
            let endpoint = try OpenLibrary.search(text, limit: limit)
            let options = options
            let page = try await options.withClient { (client) throws(LoadFailure) in
                try await client.load(endpoint, options: options.loadOptions)
            }
            if options.json { return try options.writeJSON(page) }
            let (table, footer) = Rendering.search(page.value)
            Console.output(table)
            if let footer { Console.error(footer) }
        }
    }
}
