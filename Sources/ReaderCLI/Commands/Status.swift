import ArgumentParser
import Foundation
import ReaderKit
import ReaderTerminal

extension Reader {
    struct Status: AsyncParsableCommand, HelpExamples {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Is it me or the network? Check each service step by step, and the cache.",
            discussion: """
                For each service: name resolution, TCP connect and one HTTP request, each timed, with \
                the error code where one fails. Then the cache's path, size and age. Exit 0 when \
                every service is reachable, else the exit code of the first failure.
                """)

        static let examples = ["reader status", "reader status --timeout 2s", "reader status --json"]

        @Option(help: ArgumentHelp("Give each step at most this long (5s, 500ms).", valueName: "time"))
        var timeout: TimeSpan = TimeSpan(.seconds(5))

        @OptionGroup var output: OutputOptions
        @OptionGroup var cacheFile: CacheFileOptions

        func validate() throws {
            if let problem = timeout.problem("--timeout", within: .milliseconds(1)...(.seconds(300)), bounds: "more than 0 and at most 5 minutes") {
                throw ValidationError(problem)
            }
        }

        func run() async throws {
            let environment = ProcessEnvironment.current
            let settings = try ReaderSettings.load(environment: environment)
            let services = try settings.services()
            let client = ReaderClient(configuration: .init(
                services: services, cachePath: try cacheFile.resolve(environment: environment), timeout: timeout.duration,
                proxies: try settings.proxiesForRequests()))
            let registry = ServiceRegistry.current
            let (checks, tokens, cache, lockouts, detours) = await CommandRunner.using(client) { client in
                // Every service at once, listed in the registry's order.
                let checks = await withTaskGroup(of: (Int, ConnectivityCheck).self) { group in
                    for (index, name) in registry.names.enumerated() {
                        guard let probe = services[name]?.probe else { continue }
                        group.addTask { (index, await client.checkConnectivity(of: probe)) }
                    }
                    return await group.reduce(into: []) { $0.append($1) }.sorted { $0.0 < $1.0 }.map(\.1)
                }
                var tokens: [(plugin: any ServicePlugin, wording: CredentialWording, token: (held: Bool, expiresAt: Date?)?)] = []
                for plugin in registry.plugins {
                    guard let wording = plugin.credential else { continue }
                    tokens.append((plugin, wording, await client.credentialStatus(of: plugin.name)))
                }
                let cache: Result<CacheStatistics, ReaderError>
                do throws(ReaderError) { cache = .success(try await client.cacheStatistics()) } catch { cache = .failure(error) }
                let lockouts = await client.rateLimitLockouts().map { (host: $0.origin, until: $0.resetAt) }
                return (checks, tokens, cache, lockouts, await client.detours())
            }.get()

            let output = output.makeOutput()
            if self.output.json {
                var cacheJSON: JSONValue = .null
                switch cache {
                case .success(let statistics): cacheJSON = (try? JSONValue(encoding: statistics)) ?? .null
                case .failure(let error): cacheJSON = .object(["error_code": .string(error.code.description), "message": .string(CLIWording.message(of: error))])
                }
                try output.writeJSON(JSONValue.object([
                    "services": (try? JSONValue(encoding: checks)) ?? .null,
                    "reachable": .bool(checks.allSatisfy(\.isReachable)),
                    "cache": cacheJSON,
                    "rate_limits": .array(lockouts.map { .object(["host": .string($0.host), "resets_at": .string($0.until.formatted(.iso8601))]) }),
                    // The origins read by their service's other route since they answered with a block page.
                    "detours": .array(detours.map { .object(["service": .string($0.service.rawValue), "host": .string($0.origin),
                                                             "since": .string($0.observedAt.formatted(.iso8601)),
                                                             "until": .string($0.until.formatted(.iso8601))]) }),
                ].merging(tokens.map { plugin, _, token in
                    // Whether a token is held and until when; never the token.
                    ("\(plugin.name)_token", token.map { .object(["held": .bool($0.held),
                                                               "expires_at": $0.expiresAt.map { .string($0.formatted(.iso8601)) } ?? .null]) } ?? .null)
                }, uniquingKeysWith: { first, _ in first })))
            } else {
                let credentials = tokens.map { (label: $0.plugin.name.rawValue, line: Self.credentialLine($0.token, wording: $0.wording)) }
                try output.writeLine(Self.render(checks, cache: cache, credentials: credentials, lockouts: lockouts, detours: detours,
                                                 style: Style.forDescriptor(STDOUT_FILENO, noColor: self.output.colourOff)),
                                     to: .standardOutput)
            }
            if let failure = checks.lazy.compactMap(\.failure).first {
                throw ArgumentParser.ExitCode(failure.exitCode.rawValue)
            }
        }

        static func render(_ checks: [ConnectivityCheck], cache: Result<CacheStatistics, ReaderError>,
                           credentials: [(label: String, line: String)], lockouts: [(host: String, until: Date)] = [],
                           detours: [DetourState] = [], style: Style, width: Int? = Terminal.outputWidth()) -> String {
            var rows: [[String]] = []
            for check in checks {
                for step in ConnectivityCheck.Step.allCases {
                    guard let result = check.steps.first(where: { $0.step == step }) else {
                        rows.append([check.service.rawValue, step.rawValue, "-", "not tried"])
                        continue
                    }
                    let time = result.milliseconds < 10 ? String(format: "%.1f ms", result.milliseconds)
                        : String(format: "%.0f ms", result.milliseconds)
                    let outcome = result.error.map { "error \($0.code): \(CLIWording.message(of: $0))" } ?? "ok  " + result.detail
                    rows.append([check.service.rawValue, step.rawValue, time, outcome])
                }
            }
            let table = Table(columns: [.init(title: "SERVICE"), .init(title: "STEP"), .init(title: "TIME", alignRight: true),
                                        .init(title: "RESULT", flexible: true, wraps: true)], rows: rows)
            // A result is a message: it wraps in its column, never cut.
            let rendered = table.render(width: width, style: style) { column, text in
                guard column == 3 else { return text }
                return text.hasPrefix("ok") ? style.green(text) : text.hasPrefix("error") ? style.red(text) : style.dim(text)
            }
            let now = Date()
            let cacheLine: String
            switch cache {
            case .success(let statistics):
                let total = statistics.total
                let ages = total.newest.map { newest in
                    ", newest \(RelativeAge.describe(from: newest, to: now)) old"
                        + (total.oldest.map { ", oldest \(RelativeAge.describe(from: $0, to: now)) old" } ?? "")
                } ?? ""
                cacheLine = "\(TerminalText.sanitise(statistics.path)): \(ByteCount.describe(statistics.fileBytes)), "
                    + "\(total.entries) \(total.entries == 1 ? "entry" : "entries")\(ages)"
            case .failure(let error):
                cacheLine = "error \(error.code): \(CLIWording.message(of: error))"
            }
            // A lock-out is why a request may not be sent: said, with the way out.
            let limitLines = lockouts.map {
                "\(TerminalText.sanitise($0.host, maxLength: 253))'s rate limit is used up; it resets \(RelativeAge.describe(moment: $0.until))"
                    + " (reader cache clear forgets it)"
            }
            // Another route taken since a block page: said, with when it ends and the way out.
            let detourLines = detours.map { detour in
                let route = ServiceRegistry.current.plugins.first { $0.name == detour.service }?.detourDescription ?? "read by its other route"
                return (detour.service.rawValue, "\(route), since \(TerminalText.sanitise(detour.origin, maxLength: 253)) answered with its "
                    + "block page; the first way is tried again \(RelativeAge.describe(moment: detour.until)), or at once after reader cache clear")
            }
            // How each service is reached, once a proxy is set: through which proxy, or directly and why.
            let proxyLines = checks.allSatisfy { $0.route == .direct } ? []
                : checks.map { "\($0.service.rawValue): \($0.route.shown)" }
            // Each line is a label in 8 cells (more for a longer name) and a message that wraps under itself, never cut.
            let labelled = proxyLines.map { ("proxy", $0) } + credentials.map { ($0.label, $0.line) } + detourLines + [("cache", cacheLine)]
                + limitLines.map { ("limit", $0) }
            let labelWidth = max(8, (labelled.map { TerminalText.width($0.0) }.max() ?? 0) + 2)
            let lines = labelled.map { label, message in
                Terminal.wrapMessage(message, width: width.map { max(10, $0 - labelWidth) })
                    .split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                    .map { ($0 == 0 ? TerminalText.pad(label, toWidth: labelWidth) : String(repeating: " ", count: labelWidth)) + $1 }
                    .joined(separator: "\n")
            }
            return ([rendered, ""] + lines).joined(separator: "\n")
        }

        /// What `status` says of a service's credential.
        static func credentialLine(_ token: (held: Bool, expiresAt: Date?)?, wording: CredentialWording) -> String {
            switch token {
            case nil: wording.anonymous
            case let (true, expiresAt?)?: "app token held, expires \(RelativeAge.describe(moment: expiresAt))"
            default: wording.notYetHeld
            }
        }
    }
}
