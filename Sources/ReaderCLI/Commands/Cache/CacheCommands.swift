import ArgumentParser
import Foundation
import ReaderKit
import ReaderTerminal

extension ServiceName: ExpressibleByArgument {
    /// A service's name as typed: `SWAPI` is `swapi`, as `reader sync` takes it.
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}

extension Reader {
    /// `reader cache stats|list|clear|prune|path`.
    package struct Cache: AsyncParsableCommand, HelpExamples {
        // As visible as the type, for ArgumentParser (the implicit one is internal).
        package init() {}

        package static let configuration = CommandConfiguration(
            commandName: "cache",
            abstract: "Show, list, clear or prune the local cache.",
            subcommands: [Stats.self, List.self, Clear.self, Prune.self, Path.self],
            defaultSubcommand: Stats.self)

        static var examples: [String] {
            ["reader cache", "reader cache stats --json", "reader cache list --service \(CacheCommand.exampleService)",
             "reader cache prune --older-than 7d", "reader cache clear --service \(CacheCommand.exampleService)", "reader cache path"]
        }

        // The subcommands' options, taken before the subcommand's name too
        // (`reader cache --cache-path P path`): ArgumentParser hands a subcommand the option group
        // of the same type that its parent decoded.
        @OptionGroup var output: OutputOptions
        @OptionGroup var cacheFile: CacheFileOptions

        package struct Stats: AsyncParsableCommand, HelpExamples {
            // As visible as the type, for ArgumentParser (the implicit one is internal).
            package init() {}

            static let examples = ["reader cache stats", "reader cache stats --json"]

            package static let configuration = CommandConfiguration(
                commandName: "stats",
                abstract: "What the cache holds per API, and how often it answered without the network.")

            @OptionGroup var output: OutputOptions
            @OptionGroup var cacheFile: CacheFileOptions

            package func run() async throws {
                let statistics = try await CacheCommand.withClient(cacheFile, output) { client async throws(ReaderError) in
                    try await client.cacheStatistics()
                }
                let output = output.makeOutput()
                if self.output.json {
                    try output.writeJSON(statistics)
                    return
                }
                try output.writeLine(Self.render(statistics, now: Date(), width: Terminal.outputWidth()), to: .standardOutput)
            }

            /// The statistics as a table no wider than `width` (the least useful columns left out
            /// first), between the file's line and what the counts mean, wrapped to it too.
            package static func render(_ statistics: CacheStatistics, now: Date, width: Int? = nil) -> String {
                func age(_ date: Date?) -> String {
                    date.map { RelativeAge.describe(from: $0, to: now) + " ago" } ?? "-"
                }
                func row(_ name: String, _ api: CacheStatistics.ServiceStatistics) -> [String] {
                    [name, String(api.entries), ByteCount.describe(api.bytes), age(api.oldest), age(api.newest),
                     String(api.hits), String(api.revalidations), String(api.misses),
                     api.hitRatio.map { String(format: "%.0f%%", $0 * 100) } ?? "-"]
                }
                let table = Table(columns: [
                    .init(title: "API"), .init(title: "ENTRIES", alignRight: true), .init(title: "SIZE", alignRight: true),
                    .init(title: "OLDEST", alignRight: true, dropOrder: 2), .init(title: "NEWEST", alignRight: true, dropOrder: 4),
                    .init(title: "HITS", alignRight: true, dropOrder: 5), .init(title: "REVALIDATED", alignRight: true, dropOrder: 1),
                    .init(title: "MISSES", alignRight: true, dropOrder: 3), .init(title: "HIT RATIO", alignRight: true),
                ], rows: shownOrder(statistics.services.keys).map { row($0.rawValue, statistics.services[$0] ?? .init()) } + [row("total", statistics.total)])
                let created = statistics.createdAt.map { ", created \(age($0))" } ?? ""
                return [
                    Terminal.wrapMessage("cache \(TerminalText.sanitise(statistics.path)) (\(ByteCount.describe(statistics.fileBytes)) on disk\(created))",
                                         width: width, hangingIndent: 2),
                    table.render(width: width),
                    Terminal.wrapMessage("hits were answered from the cache, revalidated ones by a 304 without a body, misses needed the network",
                                         width: width),
                ].joined(separator: "\n")
            }
        }

        /// `reader cache list`: each entry, as the HTTP cache judges it now.
        package struct List: AsyncParsableCommand, HelpExamples {
            // As visible as the type, for ArgumentParser (the implicit one is internal).
            package init() {}

            static var examples: [String] { ["reader cache list", "reader cache list --service \(CacheCommand.exampleService) --json"] }

            package static let configuration = CommandConfiguration(
                commandName: "list",
                abstract: "Each cached entry: its URL, service, age, freshness lifetime, validators, size, and whether it is fresh, stale or history only.")

            @OptionGroup var only: ServiceFilterOptions

            @OptionGroup var output: OutputOptions
            @OptionGroup var cacheFile: CacheFileOptions

            package func run() async throws {
                let listing = try await CacheCommand.withClient(cacheFile, output) { client async throws(ReaderError) in
                    let name = try await only.service(known: client)
                    return try await client.cacheListing(service: name)
                }
                let output = output.makeOutput()
                if self.output.json {
                    try output.writeJSON(["entries": listing])
                    return
                }
                try output.writeLine(Self.render(listing, width: Terminal.outputWidth()), to: .standardOutput)
            }

            /// The entries as a table, every cell sanitised by ``Table``, no line wider than `width`
            /// (a terminal's; nil for a pipe, where every value is whole): the URL wraps, whole,
            /// and the validators, the lifetime, the size and the service give way in that order.
            package static func render(_ listing: [CacheListing], width: Int? = nil) -> String {
                guard !listing.isEmpty else { return "the cache holds no entries" }
                func validators(_ headers: [String: String]) -> String {
                    let names = [("etag", "ETag"), ("last-modified", "Last-Modified")].compactMap { headers[$0.0] == nil ? nil : $0.1 }
                    return names.isEmpty ? "-" : names.joined(separator: ", ")
                }
                let table = Table(columns: [
                    .init(title: "URL", flexible: true, wraps: true), .init(title: "SERVICE", maximumWidth: 12, dropOrder: 4),
                    .init(title: "AGE", alignRight: true),
                    .init(title: "LIFETIME", alignRight: true, dropOrder: 2), .init(title: "STATE"),
                    .init(title: "VALIDATORS", dropOrder: 1), .init(title: "SIZE", alignRight: true, dropOrder: 3),
                ], rows: listing.map { entry in
                    // Text from the file (a URL, a service's name): the table sanitises every cell.
                    [entry.url, entry.service.rawValue,
                     RelativeAge.describe(seconds: entry.httpCache.currentAgeSeconds),
                     RelativeAge.describe(seconds: entry.httpCache.freshnessLifetimeSeconds),
                     // A stored error answer says its status beside its state: `fresh 404`.
                     entry.isStoredError ? "\(entry.state.rawValue) \(entry.status)" : entry.state.rawValue,
                     validators(entry.httpCache.headers), ByteCount.describe(entry.bytes)]
                })
                let count = "\(listing.count) \(listing.count == 1 ? "entry" : "entries")"
                var note = "\(count); fresh ones answer without the network, stale ones after the server is asked, history-only ones only offline or when the network fails"
                if listing.contains(where: \.isStoredError) {
                    note += "; a status after the state (fresh 404) is a stored error answer: while fresh it answers as that error, and it is never shown offline"
                }
                return ([table.render(width: width)] + (width.map { TerminalText.wrap(note, toWidth: $0) } ?? [note])).joined(separator: "\n")
            }
        }

        /// The registry's services first, in its order, then any other service by name.
        static func shownOrder(_ names: some Sequence<ServiceName>) -> [ServiceName] {
            let registered = ServiceRegistry.current.names
            return registered + Set(names).subtracting(registered).sorted()
        }

        struct Clear: AsyncParsableCommand, HelpExamples {
            static let configuration = CommandConfiguration(commandName: "clear", abstract: "Delete cached entries (of every API, or of one).")
            static var examples: [String] { ["reader cache clear", "reader cache clear --service \(CacheCommand.exampleService)"] }

            @OptionGroup var only: ServiceFilterOptions

            @OptionGroup var output: OutputOptions
            @OptionGroup var cacheFile: CacheFileOptions

            func run() async throws {
                let removal = try await CacheCommand.withClient(cacheFile, output) { client async throws(ReaderError) in
                    let name = try await only.service(known: client)
                    return try await client.clearCache(service: name)
                }
                try CacheCommand.report(removal, output: output)
            }
        }

        struct Prune: AsyncParsableCommand, HelpExamples {
            static let configuration = CommandConfiguration(commandName: "prune", abstract: "Delete entries fetched longer ago than --older-than.")
            static var examples: [String] { ["reader cache prune", "reader cache prune --older-than 12h --service \(CacheCommand.exampleService)"] }

            @Option(help: ArgumentHelp("Age beyond which entries go (30d, 12h, 90m).", valueName: "time"))
            var olderThan: TimeSpan = TimeSpan(.seconds(30 * 86_400))

            @OptionGroup var only: ServiceFilterOptions

            @OptionGroup var output: OutputOptions
            @OptionGroup var cacheFile: CacheFileOptions

            func validate() throws {
                if let problem = olderThan.problem("--older-than", within: .zero...ConfigFile.maximumTimeSpan, bounds: "from 0 to 100 years") {
                    throw ValidationError(problem)
                }
            }

            func run() async throws {
                let removal = try await CacheCommand.withClient(cacheFile, output) { client async throws(ReaderError) in
                    let name = try await only.service(known: client)
                    return try await client.pruneCache(olderThan: olderThan.duration, service: name)
                }
                try CacheCommand.report(removal, output: output)
            }
        }

        struct Path: ParsableCommand, HelpExamples {
            static let configuration = CommandConfiguration(commandName: "path", abstract: "Print where the cache file is (it may not exist yet).")
            static let examples = ["reader cache path", "ls -l \"$(reader cache path)\""]

            @OptionGroup var output: OutputOptions
            @OptionGroup var cacheFile: CacheFileOptions

            func run() throws {
                let path = try cacheFile.resolve(environment: ProcessEnvironment.current)
                let output = output.makeOutput()
                if self.output.json {
                    try output.writeJSON(JSONValue.object(["path": .string(path), "exists": .bool(FileManager.default.fileExists(atPath: path))]),
                                     to: .standardOutput)
                } else {
                    try output.writeLine(TerminalText.sanitise(path), to: .standardOutput)
                }
            }
        }
    }
}

/// What the cache commands share: a client on the resolved cache, shut down once the command is
/// done (``CommandRunner/using(_:_:)``), and its notices shown.
enum CacheCommand {
    /// The service the examples name: the registry's first.
    static var exampleService: String { ServiceRegistry.current.names.first?.rawValue ?? "NAME" }

    /// `--service`'s help: the registry's services, or any other the cache holds.
    static var serviceHelp: ArgumentHelp {
        ArgumentHelp("Only the entries of this service: \(ServiceRegistry.current.names.map(\.rawValue).joined(separator: ", ")), "
                     + "or any other whose entries the cache holds.", valueName: "name")
    }

    static func withClient<T: Sendable>(_ cacheFile: CacheFileOptions, _ options: OutputOptions,
                                        _ body: (ReaderClient) async throws(ReaderError) -> T) async throws(ReaderError) -> T {
        let path = try cacheFile.resolve(environment: ProcessEnvironment.current)
        let client = ReaderClient(configuration: .init(services: ServiceRegistry.current.servicesAtTheirDefaults, cachePath: path))
        let output = options.makeOutput()
        let result = await CommandRunner.using(client, body)
        var notices = await client.notices.drain()
        // A cache command that fails on the cache says so in its error; the notice a load would
        // have shown ("carrying on without it") is not true of a command that stops.
        if case .failure(let error) = result { notices.removeAll { $0.notice.code == error.code } }
        output.notices(notices)
        return try result.get()
    }


    static func report(_ removal: CacheRemoval, output options: OutputOptions) throws(ReaderError) {
        let output = options.makeOutput()
        if options.json {
            try output.writeJSON(removal)
        } else {
            try output.writeLine("removed \(removal.entries) \(removal.entries == 1 ? "entry" : "entries") (\(ByteCount.describe(removal.bytes)))",
                             to: .standardOutput)
        }
    }
}

/// `--service NAME`, the one service whose entries a cache command removes; `--api`, its first
/// name, is still read for the scripts that use it, and not shown.
struct ServiceFilterOptions: ParsableArguments {
    @Option(help: CacheCommand.serviceHelp, completion: .list(ServiceRegistry.current.names.map(\.rawValue)))
    var service: ServiceName?

    @Option(name: .customLong("api"), help: .hidden)
    var api: ServiceName?

    func validate() throws {
        if service != nil, api != nil { throw ValidationError("--api is --service's first name: give one of them") }
    }

    /// The service named, nil for every one. A service `reader` reads or one whose entries the
    /// cache holds (an earlier program's) is taken; any other name is a mistake, said before
    /// anything is removed, naming the flag given.
    func service(known client: ReaderClient) async throws(ReaderError) -> ServiceName? {
        let (chosen, flag) = service.map { ($0, "--service") } ?? (api, "--api")
        guard let chosen else { return nil }
        let statistics = try await client.cacheStatistics()
        guard statistics.services[chosen] == nil else { return chosen }
        let known = Reader.Cache.shownOrder(statistics.services.keys).map(\.rawValue).joined(separator: ", ")
        throw .invalidArgument("\(flag) \(chosen): no service of that name is read or has entries in the cache (known: \(known))")
    }
}
