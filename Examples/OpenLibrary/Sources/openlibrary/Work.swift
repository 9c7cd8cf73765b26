import ArgumentParser
import Foundation
import OpenLibraryKit
import ReaderKit

extension OpenLibraryCommand {
    /// `openlibrary work OL45804W`: a work, with its authors' names.
    struct Work: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a work: its title, authors, first publication, subjects and description.")

        @Argument(help: "The work's id, such as OL45804W.")
        var id: String

        @OptionGroup var options: CommonOptions

        /// The most authors whose names are read for one work: one request each.
        static let maximumAuthors = 5

        func run() async throws {
            let endpoint = try OpenLibrary.work(id)
            let options = options
            let (work, authors) = try await options.withClient { (client) throws(LoadFailure) in
                let work = try await client.load(endpoint, options: options.loadOptions)
                // With --json the work's own record is the answer: no author is read.
                guard !options.json else { return (work, [AuthorName]()) }
                var authors: [AuthorName] = []
                for id in work.value.authorIDs.prefix(Self.maximumAuthors) {
                    authors.append(await AuthorName.load(id, client: client, options: options.loadOptions))
                }
                return (work, authors)
            }
            if options.json { return try options.writeJSON(work) }
            for author in authors {
                if let failure = author.failure {
                    Console.error("notice \(failure.error.code): the name of author \(author.id) could not be read: \(OpenLibraryWording().message(of: failure.error))")
                }
            }
            Console.output(Rendering.work(work.value, authorNames: authors.map(\.shown)))
        }
    }
}

/// An author's name for a work's byline, or the id when the name cannot be read.
struct AuthorName {
    var id: OpenLibraryID
    var name: String?
    var failure: LoadFailure?

    var shown: String { name ?? id.description }

    static func load(_ id: OpenLibraryID, client: ReaderClient, options: LoadOptions) async -> AuthorName {
        do throws(LoadFailure) {
            guard let endpoint = try? OpenLibrary.author(id.description) else { return AuthorName(id: id) }
            return AuthorName(id: id, name: try await client.load(endpoint, options: options).value.name)
        } catch {
            return AuthorName(id: id, failure: error)
        }
    }
}
