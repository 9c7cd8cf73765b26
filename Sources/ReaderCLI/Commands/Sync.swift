import ArgumentParser
import Foundation
import ReaderKit
import ReaderTerminal

extension Reader {
    struct Sync: AsyncParsableCommand, HelpExamples {
        static let configuration: CommandConfiguration = {
            let syncs = syncable.map(\.sync)
            return CommandConfiguration(
                commandName: "sync",
                abstract: "Fill the cache for offline reading: \(Help.joined(syncs.map(\.summary), separator: ", and ")).",
                discussion: Help.joined(syncs.map(\.explanation), separator: " ") + "\n\n" + """
                    Progress names the service and the phase, each phase with its own total. Fresh \
                    copies are not fetched again, stale ones are revalidated, and a stored error answer \
                    (a 404 kept for minutes) is asked again. Failures of single \
                    requests are summed up at the end by code, with a few of the requests each and \
                    what to do, and with what they left missing: a collection whose first page failed \
                    is not read at all. A sync that could not store what it fetched (a write failed, or \
                    the cache file was deleted or replaced meanwhile) ends with C1003 and exit 73. Exit 0 \
                    means the sync is complete; otherwise the exit code is that of what was not stored, \
                    else of the first collection not read, else of the most frequent failure.
                    """ + "\n\nWithout arguments it syncs what the config file names: \(Help.joined(syncs.map(\.configuredHelp), separator: ", and ")).")
        }()

        static var examples: [String] {
            let examples = syncable.map(\.sync.example)
            return ["reader sync"] + examples.map { "reader sync " + $0 } + [
                "reader sync " + examples.map { $0.split(separator: " ").prefix(2).joined(separator: " ") }.joined(separator: " "),
                "reader sync \(examples.first ?? "") --json",
            ]
        }

        @Argument(help: ArgumentHelp("What to sync: \(syncable.map(\.sync.description).joined(separator: ", and/or ")) (default: what the config file names).",
                                     valueName: "what"),
                  completion: .list(syncable.map(\.plugin.name.rawValue)))
        var targets: [String] = []

        @OptionGroup var options: FetchOptions<NoOfflineFlag>

        /// The plan: each service to sync, in the registry's order, with its arguments (a
        /// subreddit's names).
        struct Plan: Equatable {
            var targets: [(name: ServiceName, arguments: [String])] = []

            static func == (lhs: Plan, rhs: Plan) -> Bool {
                lhs.targets.map(\.name) == rhs.targets.map(\.name) && lhs.targets.map(\.arguments) == rhs.targets.map(\.arguments)
            }
        }

        /// The services that can be synced, in order.
        static var syncable: [(plugin: any ServicePlugin, sync: SyncCapability)] {
            ServiceRegistry.current.plugins.compactMap { plugin in plugin.sync.map { (plugin, $0) } }
        }

        /// "swapi, reddit SUBREDDIT…, or both".
        static var choices: String {
            let usages = syncable.map(\.sync.usage)
            return usages.joined(separator: ", ") + (usages.count == 2 ? ", or both" : usages.count > 2 ? ", or several" : "")
        }

        /// The plan of the targets named on the command line: a service's name, then its arguments.
        static func plan(_ targets: [String]) throws(ReaderError) -> Plan {
            var arguments: [ServiceName: [String]] = [:]
            var current: (name: ServiceName, sync: SyncCapability)?
            for target in targets {
                if let name = ServiceName(rawValue: target.lowercased()), let found = syncable.first(where: { $0.plugin.name == name }) {
                    if let current, current.name != name, current.sync.argumentsNeeded != nil, arguments[current.name]?.isEmpty != false {
                        throw .invalidArgument(Wording(current.sync.argumentsNeeded ?? ""))
                    }
                    current = (name, found.sync)
                    if arguments[name] == nil { arguments[name] = [] }
                    continue
                }
                guard let current, current.sync.argumentsNeeded != nil else {
                    let meant = Help.nearest(to: target, among: syncable.map(\.plugin.name.rawValue)).map { " (did you mean \($0)?)" } ?? ""
                    let say = syncable.map(\.sync.description)
                    throw .invalidArgument("\"\(TerminalText.sanitise(target, maxLength: 40))\" is not something to sync\(meant): say \(say.joined(separator: ", or "))")
                }
                let checked = try current.sync.argument(target)
                // The same name twice is read once.
                guard arguments[current.name]?.contains(where: { $0.lowercased() == checked.lowercased() }) != true else { continue }
                if let (most, refusal) = current.sync.maximumArguments, (arguments[current.name]?.count ?? 0) >= most {
                    throw .invalidArgument(Wording(refusal))
                }
                arguments[current.name, default: []].append(checked)
            }
            if let current, current.sync.argumentsNeeded != nil, arguments[current.name]?.isEmpty != false {
                throw .invalidArgument(Wording(current.sync.argumentsNeeded ?? ""))
            }
            let plan = Plan(targets: syncable.compactMap { entry in arguments[entry.plugin.name].map { (entry.plugin.name, $0) } })
            guard !plan.targets.isEmpty else { throw .invalidArgument("say what to sync: \(choices)") }
            return plan
        }

        /// The plan from the config file, for a sync without arguments.
        /// - Throws: ``ReaderError/invalidArgument(_:)`` (R1001, exit 64) saying what to give, or
        ///   what to put in the config file, when it names nothing to sync.
        static func plan(from settings: ReaderSettings) throws(ReaderError) -> Plan {
            let plan = Plan(targets: syncable.compactMap { entry in
                entry.sync.configured(settings.of(entry.plugin.name)).map { (entry.plugin.name, $0) }
            })
            guard !plan.targets.isEmpty else {
                let file = settings.configFilePath.map { TerminalText.sanitise($0, maxLength: 200) } ?? "$XDG_CONFIG_HOME/reader/config.toml"
                let examples = syncable.map(\.sync.configExample).joined(separator: ", ")
                throw .invalidArgument("say what to sync: \(choices); or name them in \(file) (\(settings.configFileFound ? "it names none" : "there is none")): \(examples)")
            }
            return plan
        }

        func validate() throws {
            // Without arguments the targets come from the config file, read (and reported on) in run().
            guard !targets.isEmpty else { return }
            do { _ = try Self.plan(targets) } catch { throw ValidationError(CLIWording.message(of: error)) }
        }

        func run() async throws {
            let plan = targets.isEmpty ? try Self.plan(from: options.settings()) : try Self.plan(targets)
            let registry = ServiceRegistry.current
            let wording = CLIWording(registry: registry)
            let progress = ProgressLine("syncing")
            let reports = try await CommandRunner.withClient(options) { (client) throws(LoadFailure) in
                defer { progress.finish() }
                var reports: [(String, SyncReport)] = []
                for (name, arguments) in plan.targets {
                    guard let sync = registry[name]?.sync else { continue }
                    do throws(ReaderError) {
                        reports.append((name.rawValue, try await sync.run(client, arguments, options.loadOptions, progress.handler)))
                    } catch {
                        throw LoadFailure(error: error, decision: .alert)
                    }
                }
                return reports
            }
            let output = options.makeOutput()
            if options.json {
                try output.writeJSON(JSONValue.object(Dictionary(uniqueKeysWithValues: reports.map { name, report in
                    (name, Self.json(report, wording: wording))
                })))
            } else {
                for (name, report) in reports {
                    let width = Terminal.outputWidth()
                    try output.writeLine(Terminal.wrapMessage("sync \(name): \(report.summary)", width: width, hangingIndent: 2), to: .standardOutput)
                    for group in report.failureGroups {
                        try output.writeLine(Terminal.wrapMessage("  " + group.summary(message: CLIWording.message(of: group)), width: width, hangingIndent: 4),
                                             to: .standardOutput)
                        try output.writeLine(Terminal.wrapMessage("    hint: " + wording.text(of: group.hints), width: width, hangingIndent: 10),
                                             to: .standardOutput)
                    }
                }
            }
            // What was fetched but not stored is all lost; a collection not read at all hides more
            // than any count of failed requests shows.
            let notStored = reports.compactMap(\.1.notStored)
            let notRead = reports.flatMap(\.1.notRead)
            let failures = reports.flatMap(\.1.failures).sorted { $0.count > $1.count }
            if let worst = notStored.first ?? notRead.first?.error ?? failures.first?.error {
                let failed = reports.reduce(0) { $0 + $1.1.failed }
                if !options.json {
                    var what: [String] = []
                    // Only some writes failed: what else was fetched is stored, and the count says so.
                    let partly = reports.filter { $0.1.notStored != nil }.map(\.1.failedWrites)
                    if !partly.isEmpty, !partly.contains(nil) {
                        let writes = partly.reduce(0) { $0 + ($1 ?? 0) }
                        what.append("\(writes) \(writes == 1 ? "write" : "writes") to the cache failed")
                    } else if !notStored.isEmpty, reports.allSatisfy({ $0.1.fetched + $0.1.alreadyFresh + $0.1.failed == 0 }) {
                        // ReaderKit stopped it before fetching: a cache that cannot be written.
                        what.append("nothing was fetched: the cache cannot be written")
                    } else if !notStored.isEmpty { what.append("what was fetched is not stored in the cache") }
                    if !notRead.isEmpty { what.append("\(notRead.map(\.name).joined(separator: ", ")) not read") }
                    if failed > 0 || what.isEmpty { what.append("\(failed) \(failed == 1 ? "request" : "requests") failed") }
                    // Nothing stored: the cache is what to see to, then the whole sync is to run again.
                    let hint = notStored.first.map { wording.text(of: $0.hints()) + "; then run the sync again" }
                        ?? SyncReport.hint(after: reports.map(\.1)) ?? ""
                    try output.writeLine("\(output.errorStyle.red("error \(worst.code)")): the sync is incomplete: \(what.joined(separator: ", "))\n  hint: \(hint)",
                                     to: .standardError)
                }
                throw ArgumentParser.ExitCode(worst.exitCode.rawValue)
            }
        }

        static func json(_ report: SyncReport, wording: CLIWording) -> JSONValue {
            .object([
                "complete": .bool(report.isComplete),
                "fetched": .integer(Int64(report.fetched)),
                "already_fresh": .integer(Int64(report.alreadyFresh)),
                "failed": .integer(Int64(report.failed)),
                "not_read": .array(report.notRead.map { item in
                    .object(["name": .string(item.name), "code": .string(item.error.code.description),
                             "message": .string(CLIWording.message(of: item.error)), "exit_code": .integer(Int64(item.error.exitCode.rawValue))])
                }),
                "pages_failed": .object(report.pagesFailed.mapValues { .integer(Int64($0)) }),
                "not_stored": report.notStored.map { error in
                    .object(["code": .string(error.code.description), "message": .string(report.notStoredLine ?? CLIWording.message(of: error)),
                             "failed_writes": report.failedWrites.map { .integer(Int64($0)) } ?? .null,
                             "exit_code": .integer(Int64(error.exitCode.rawValue))])
                } ?? .null,
                "failures": .array(report.failureGroups.map { group in
                    .object(["code": .string(group.code.description), "reason": group.error.reason.map(JSONValue.string) ?? .null,
                             "count": .integer(Int64(group.count)),
                             "message": .string(CLIWording.message(of: group)), "examples": .array(group.subjects.map(JSONValue.string)),
                             "hint": .string(wording.text(of: group.hints)),
                             "exit_code": .integer(Int64(group.error.exitCode.rawValue))])
                }),
            ])
        }
    }
}
