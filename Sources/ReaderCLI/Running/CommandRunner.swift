import Foundation
import ReaderKit
import ReaderTerminal

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
        // A revalidation begun behind a stale-while-revalidate answer must not hold the answer
        // back: the client is shut down, waiting for it, once the command's output is written.
        if client.hasRevalidationsInFlight {
            await DeferredShutdowns.shared.add(client)
        } else {
            await client.shutdown()
        }
        return result
    }

    /// Loads `endpoint`, one resource, and writes it: `render` for people, `jsonItem` for `--json`.
    /// - Parameters:
    ///   - jsonItem: what of the raw body `--json` writes as its `item`.
    ///   - render: the human form; returns the text for stdout and an optional footer for stderr.
    ///   - jsonMeta: members the raw body adds to `meta` (where the data came from).
    static func run<Value>(
        _ endpoint: Endpoint<Value>, options: GlobalOptions, jsonItem: (JSONValue) -> JSONValue,
        jsonMeta: (JSONValue) -> [String: JSONValue] = { _ in [:] },
        render: (Value) -> (table: String, footer: String?)
    ) async throws {
        let loaded = try await withClient(options) { (client) throws(LoadFailure) in
            try await client.load(endpoint, options: options.loadOptions)
        }
        try writeItem(loaded, options: options, jsonItem: jsonItem, jsonMeta: jsonMeta, render: render)
    }

    /// Writes one resource: as JSON, `{"item":…,"meta":…}`; for people, what `render` makes of it.
    /// - Throws: ``ReaderError/decoding(_:)`` (`D1002`) for a body the models read but that has no
    ///   JSON to write back; ``ReaderError/output(_:)`` when stdout cannot be written.
    static func writeItem<Value>(
        _ loaded: Loaded<Value>, options: GlobalOptions, jsonItem: (JSONValue) -> JSONValue,
        jsonMeta: (JSONValue) -> [String: JSONValue] = { _ in [:] },
        render: (Value) -> (table: String, footer: String?)
    ) throws(ReaderError) {
        guard options.json else {
            let (table, footer) = render(loaded.value)
            return try writeTable(table, footer: footer, options: options)
        }
        let raw = try PagedJSON.rawBody(of: loaded)
        var meta = (try? JSONValue(encoding: loaded.metadata)) ?? .null
        if case .object(var members) = meta {
            members.merge(jsonMeta(raw)) { $1 }
            meta = .object(members)
        }
        let item = jsonItem(raw)
        try options.makeOutput().writeJSON(JSONValue.object(["item": item, "meta": meta]), to: .standardOutput)
    }

    /// Writes data loaded in one or more requests (pages): as JSON, the items of every page in
    /// order with one `meta` for all (``PagedJSON``, as `--all` writes them); for people, what
    /// `render` makes of the values.
    /// - Parameter jsonItems: the items of a page's raw body, and the members it adds to `meta`
    ///   (with several pages, the last page's win: its `after` is the cursor to go on from).
    /// - Throws: ``ReaderError/decoding(_:)`` (`D1002`) for a body the models read but that has no
    ///   JSON to write back (a malformed number in a field they skip): never an empty list in its
    ///   place; ``ReaderError/output(_:)`` when stdout cannot be written.
    static func write<Value>(
        _ pages: [Loaded<Value>], options: GlobalOptions, jsonItems: @escaping PagedJSON.Items,
        render: ([Value]) -> (table: String, footer: String?)
    ) throws(ReaderError) {
        guard options.json else {
            let (table, footer) = render(pages.map(\.value))
            return try writeTable(table, footer: footer, options: options)
        }
        // The pages are held already: their items stay in memory, never in a temporary file.
        let json = PagedJSON(memoryLimit: .max, items: jsonItems)
        for page in pages { try json.add(page) }
        try json.write(to: StandardOutput.write)
    }

    /// Writes the human form: `table` to stdout, then `footer`, a message, to stderr.
    /// - Throws: ``ReaderError/output(_:)`` when stdout cannot be written.
    static func writeTable(_ table: String, footer: String?, options: GlobalOptions) throws(ReaderError) {
        let output = options.makeOutput()
        try output.writeLine(table, to: .standardOutput)
        // A footer is a message: wrapped to the terminal, never cut.
        if let footer { try output.writeLine(Terminal.wrapMessage(footer, width: Terminal.errorWidth()), to: .standardError) }
    }
}

extension JSONValue {
    /// `value` as reader writes it in JSON, read back as a tree.
    init(encoding value: some Encodable) throws {
        self = try JSONValue(parsing: ReaderJSON.makeEncoder().encode(value))
    }
}

/// Clients whose shutdown waits for revalidations begun behind an answer (RFC 5861's
/// stale-while-revalidate): shut down once the command has written its output, so the answer is
/// not held back by the network and the next run still finds the cache refreshed.
actor DeferredShutdowns {
    static let shared = DeferredShutdowns()
    private var clients: [ReaderClient] = []

    func add(_ client: ReaderClient) {
        clients.append(client)
    }

    /// Shuts down every client handed over, in order.
    func finish() async {
        while !clients.isEmpty {
            await clients.removeFirst().shutdown()
        }
    }
}
