import Foundation
import Logging
import ReaderKit

/// The shared body of every fetching command: configure, load, show notices, render.
enum CommandRunner {
    /// Loads `endpoint` and writes it: `render` for people, `jsonItems` for `--json`.
    /// - Parameters:
    ///   - jsonItems: picks the items out of the raw body: `.list` for many, `.single` for one.
    ///   - render: the human form; returns the table for stdout and an optional footer for stderr.
    static func run<Value>(
        _ endpoint: Endpoint<Value>, options: GlobalOptions, jsonItems: @escaping (JSONValue) -> JSONShape,
        render: (Value) -> (table: String, footer: String?)
    ) async throws {
        let environment = ProcessInfo.processInfo.environment
        var output = Output(json: options.json)
        output.verbose = options.verbose
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = options.verbose ? .debug : .critical
            return handler
        }
        let configuration = try options.clientConfiguration(environment: environment)
        let client = ReaderClient(configuration: configuration, logger: Logger(label: "reader"))
        let result: Result<Loaded<Value>, LoadFailure>
        do {
            result = .success(try await client.load(endpoint, options: options.loadOptions))
        } catch {
            result = .failure(error)
        }
        await client.shutdown()
        output.notices(await client.notices.drain())
        let loaded = try result.get()

        if options.json {
            let raw = (try? JSONDecoder().decode(JSONValue.self, from: loaded.body)) ?? .null
            let meta = (try? JSONDecoder().decode(JSONValue.self, from: ReaderJSON.makeEncoder().encode(loaded.metadata))) ?? .null
            switch jsonItems(raw) {
            case .list(let items, let extra):
                var metaObject = meta
                if case .object(var members) = meta { members.merge(extra) { $1 }; metaObject = .object(members) }
                output.writeJSON(JSONValue.object(["items": .array(items), "meta": metaObject]), to: .standardOutput)
            case .single(let item):
                output.writeJSON(JSONValue.object(["item": item, "meta": meta]), to: .standardOutput)
            }
        } else {
            let (table, footer) = render(loaded.value)
            output.writeLine(table, to: .standardOutput)
            if let footer { output.writeLine(footer, to: .standardError) }
        }
    }

    enum JSONShape {
        /// Items of a list, with extra members for `meta` (such as the total count).
        case list([JSONValue], meta: [String: JSONValue])
        case single(JSONValue)
    }
}
