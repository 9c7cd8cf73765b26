import ArgumentParser
import Foundation
import OpenLibraryKit
import ReaderKit

extension OpenLibraryCommand {
    /// `openlibrary author OL23919A`.
    struct Author: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show an author: name, dates and biography.")

        @Argument(help: "The author's id, such as OL23919A.")
        var id: String

        @OptionGroup var options: CommonOptions

        func run() async throws {
            let endpoint = try OpenLibrary.author(id)
            let options = options
            let author = try await options.withClient { (client) throws(LoadFailure) in
                try await client.load(endpoint, options: options.loadOptions)
            }
            if options.json { return try options.writeJSON(author) }
            Console.output(Rendering.author(author.value))
        }
    }
}
