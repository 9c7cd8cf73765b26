import ArgumentParser
import Foundation
import ReaderKit

extension Reader {
    struct Sync: AsyncParsableCommand, HelpExamples {
        static let configuration = CommandConfiguration(
            commandName: "sync",
            abstract: "Fill the cache for offline reading: all of SWAPI, and subreddits with their comments.",
            discussion: """
                'swapi' reads every page and every resource of the six collections; afterwards every \
                SWAPI command works with --offline. 'reddit SUBREDDIT…' reads each subreddit's posts \
                as 'reader posts SUBREDDIT' does, and each post's comments as 'reader comments ID' does.

                Progress names the service and the phase, each phase with its own total. Fresh \
                copies are not fetched again, stale ones are revalidated. Failures of single \
                requests are summed up at the end by code, with a few of the requests each and \
                what to do, and with what they left missing: a collection whose first page failed \
                is not read at all. A sync that could not store what it fetched (a write failed, or \
                the cache file was deleted or replaced meanwhile) ends with C1003 and exit 73. Exit 0 \
                means the sync is complete; otherwise the exit code is that of what was not stored, \
                else of the first collection not read, else of the most frequent failure.

                Without arguments it syncs what the config file names: SWAPI when [sync] swapi = true, \
                and the subreddits of [reddit] subreddits.
                """)

        static let examples = [
            "reader sync",
            "reader sync swapi",
            "reader sync reddit swift rust",
            "reader sync swapi reddit python",
            "reader sync swapi --json",
        ]

        @Argument(help: ArgumentHelp("What to sync: swapi, and/or reddit followed by subreddit names (default: what the config file names).", valueName: "what"))
        var targets: [String] = []

        @OptionGroup var options: FetchOptions<NoOfflineFlag>

        /// The plan: whether SWAPI is synced, and which subreddits.
        struct Plan: Equatable {
            var swapi = false
            var subreddits: [String] = []
        }

        static func plan(_ targets: [String]) throws(ReaderError) -> Plan {
            var plan = Plan()
            var readingSubreddits = false
            var sawReddit = false
            for target in targets {
                switch target.lowercased() {
                case "swapi": plan.swapi = true; readingSubreddits = false
                case "reddit": readingSubreddits = true; sawReddit = true
                default:
                    guard readingSubreddits else {
                        let meant = Help.nearest(to: target, among: ["swapi", "reddit"]).map { " (did you mean \($0)?)" } ?? ""
                        throw .invalidArgument("\"\(TerminalText.sanitise(target, maxLength: 40))\" is not something to sync\(meant): say swapi, or reddit followed by subreddit names")
                    }
                    plan.subreddits.append(try Reddit.validatedSubreddit(target))
                }
            }
            if sawReddit, plan.subreddits.isEmpty { throw .invalidArgument("reddit needs at least one subreddit name, such as 'reddit swift'") }
            guard plan.swapi || !plan.subreddits.isEmpty else {
                throw .invalidArgument("say what to sync: swapi, reddit SUBREDDIT…, or both")
            }
            return plan
        }

        /// The plan from the config file, for a sync without arguments.
        /// - Throws: ``ReaderError/invalidArgument(_:)`` (R1001, exit 64) saying what to give, or
        ///   what to put in the config file, when it names nothing to sync.
        static func plan(from settings: ReaderSettings) throws(ReaderError) -> Plan {
            let plan = Plan(swapi: settings.syncSWAPI.value, subreddits: settings.subreddits.value)
            guard plan.swapi || !plan.subreddits.isEmpty else {
                let file = settings.configFilePath.map { TerminalText.sanitise($0, maxLength: 200) } ?? "$XDG_CONFIG_HOME/reader/config.toml"
                throw .invalidArgument("say what to sync: swapi, reddit SUBREDDIT…, or both; or name them in \(file) (\(settings.configFileFound ? "it names none" : "there is none")): [sync] swapi = true, [reddit] subreddits = [\"swift\"]")
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
            let progress = ProgressLine("syncing")
            let reports = try await CommandRunner.withClient(options) { (client) throws(LoadFailure) in
                defer { progress.finish() }
                var reports: [(String, SyncReport)] = []
                if plan.swapi {
                    reports.append(("swapi", await client.syncSWAPI(options: options.loadOptions, progress: progress.handler)))
                }
                if !plan.subreddits.isEmpty {
                    do throws(ReaderError) {
                        reports.append(("reddit", try await client.syncReddit(subreddits: plan.subreddits, options: options.loadOptions,
                                                                           progress: progress.handler)))
                    } catch {
                        throw LoadFailure(error: error, decision: .alert)
                    }
                }
                return reports
            }
            let output = options.makeOutput()
            if options.json {
                try output.writeJSON(JSONValue.object(Dictionary(uniqueKeysWithValues: reports.map { name, report in
                    (name, Self.json(report))
                })))
            } else {
                for (name, report) in reports {
                    try output.writeLine("sync \(name): \(report.summary)", to: .standardOutput)
                    for group in report.failureGroups {
                        try output.writeLine("  " + group.summary(message: CLIWording.message(of: group)), to: .standardOutput)
                        try output.writeLine("    hint: " + CLIWording.hint(group.advice), to: .standardOutput)
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
                    if !notStored.isEmpty { what.append("what was fetched is not stored in the cache") }
                    if !notRead.isEmpty { what.append("\(notRead.map(\.name).joined(separator: ", ")) not read") }
                    if failed > 0 || what.isEmpty { what.append("\(failed) \(failed == 1 ? "request" : "requests") failed") }
                    // Nothing stored: the cache is what to see to, then the whole sync is to run again.
                    let hint = notStored.first.map { CLIWording.hint($0.advice) + "; then run the sync again" }
                        ?? SyncReport.suggestion(after: reports.map(\.1)) ?? ""
                    try output.writeLine("\(output.errorStyle.red("error \(worst.code)")): the sync is incomplete: \(what.joined(separator: ", "))\n  hint: \(hint)",
                                     to: .standardError)
                }
                throw ArgumentParser.ExitCode(worst.exitCode.rawValue)
            }
        }

        static func json(_ report: SyncReport) -> JSONValue {
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
                             "exit_code": .integer(Int64(error.exitCode.rawValue))])
                } ?? .null,
                "failures": .array(report.failureGroups.map { group in
                    .object(["code": .string(group.code.description), "count": .integer(Int64(group.count)),
                             "message": .string(CLIWording.message(of: group)), "examples": .array(group.subjects.map(JSONValue.string)),
                             "suggestion": .string(CLIWording.hint(group.advice)),
                             "exit_code": .integer(Int64(group.error.exitCode.rawValue))])
                }),
            ])
        }
    }
}
