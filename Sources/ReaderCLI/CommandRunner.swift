import Foundation
import ReaderKit

/// The shared body of every fetching command: configure, load, show notices, render.
enum CommandRunner {
    /// Makes a client from the options, runs `work` with it, shuts it down and shows the run's
    /// notices; a failure is rethrown for ``Reader/main()`` to render.
    /// - Parameter environment: where the cache path and the services' variables are read.
    static func withClient<T, Offline>(_ options: FetchOptions<Offline>,
                                       environment: [String: String] = ProcessEnvironment.current,
                                       _ work: (ReaderClient) async throws(LoadFailure) -> T) async throws -> T {
        let configuration = try options.clientConfiguration(environment: environment)
        let client = ReaderClient(configuration: configuration, logger: CommandLogging.logger(verbose: options.verbose))
        let output = options.makeOutput()
        // Waiting is said while it happens; everything else once the work is done.
        await client.notices.listen { notice in if notice.kind == .waiting { output.notice(notice) } }
        let result = await using(client, work)
        output.notices(await client.notices.drain())
        return try result.get()
    }

    /// Runs `work` with `client`, then shuts the client down whatever `work` did: its connections
    /// closed, and what it stored copied from the cache's log into the file itself
    /// (``ReaderClient/shutdown()``). Every command that makes a client ends it here.
    static func using<T, Failure: Error>(_ client: ReaderClient,
                                         _ work: (ReaderClient) async throws(Failure) -> T) async -> Result<T, Failure> {
        let result: Result<T, Failure>
        do throws(Failure) {
            result = .success(try await work(client))
        } catch {
            result = .failure(error)
        }
        await client.shutdown()
        return result
    }

    /// Loads `endpoint` and writes it: `render` for people, `jsonItems` for `--json`.
    /// - Parameters:
    ///   - jsonItems: picks the items out of the raw body: `.list` for many, `.single` for one.
    ///   - render: the human form; returns the text for stdout and an optional footer for stderr.
    static func run<Value>(
        _ endpoint: Endpoint<Value>, options: GlobalOptions, jsonItems: @escaping (JSONValue) -> JSONShape,
        render: (Value) -> (table: String, footer: String?)
    ) async throws {
        let loaded = try await withClient(options) { (client) throws(LoadFailure) in
            try await client.load(endpoint, options: options.loadOptions)
        }
        try write([loaded], options: options, jsonItems: jsonItems) { render($0[0]) }
    }

    /// Writes data loaded in one or more requests (pages): as JSON, the items of every page in
    /// order with one `meta` for all; for people, what `render` makes of the values.
    /// - Throws: ``ReaderError/decoding(_:)`` (`D1002`) for a body the models read but that has no
    ///   JSON to write back (a malformed number in a field they skip): never an empty list in its
    ///   place; ``ReaderError/output(_:)`` when stdout cannot be written.
    static func write<Value>(
        _ pages: [Loaded<Value>], options: GlobalOptions, jsonItems: (JSONValue) -> JSONShape,
        render: ([Value]) -> (table: String, footer: String?)
    ) throws(ReaderError) {
        let output = options.makeOutput()
        guard options.json else {
            let (table, footer) = render(pages.map(\.value))
            try writeTable(table, footer: footer, options: options)
            return
        }
        var meta = LoadMetadata.combining(pages.map(\.metadata)).flatMap { try? JSONValue(encoding: $0) } ?? .null
        var items: [JSONValue] = []
        var single: JSONValue?
        for page in pages {
            let raw: JSONValue
            do {
                raw = try JSONValue(parsing: page.body)
            } catch {
                throw .decoding(DecodingFailure(.corrupt, codingPath: "", detail: "for --json: \(error)", url: page.metadata.url))
            }
            switch jsonItems(raw) {
            case .list(let more, let extra):
                items += more
                if case .object(var members) = meta { members.merge(extra) { $1 }; meta = .object(members) }
            case .single(let item):
                single = item
            }
        }
        if pages.count > 1, case .object(var members) = meta {
            members["pages"] = .integer(Int64(pages.count))
            meta = .object(members)
        }
        if let single {
            try output.writeJSON(JSONValue.object(["item": single, "meta": meta]), to: .standardOutput)
        } else {
            try output.writeJSON(JSONValue.object(["items": .array(items), "meta": meta]), to: .standardOutput)
        }
    }

    /// Writes the human form: `table` to stdout, then `footer`, a message, to stderr.
    /// - Throws: ``ReaderError/output(_:)`` when stdout cannot be written.
    static func writeTable(_ table: String, footer: String?, options: GlobalOptions) throws(ReaderError) {
        let output = options.makeOutput()
        try output.writeLine(table, to: .standardOutput)
        // A footer is a message: wrapped to the terminal, never cut.
        if let footer { try output.writeLine(Terminal.wrapMessage(footer, width: Terminal.errorWidth()), to: .standardError) }
    }

    enum JSONShape {
        /// Items of a list, with extra members for `meta` (such as the total count); with several
        /// pages, the last page's extras win (its `after` is the cursor to go on from).
        case list([JSONValue], meta: [String: JSONValue])
        case single(JSONValue)
    }
}

extension JSONValue {
    /// `value` as reader writes it in JSON, read back as a tree.
    init(encoding value: some Encodable) throws {
        self = try JSONValue(parsing: ReaderJSON.makeEncoder().encode(value))
    }
}
