import Foundation
import ReaderKit
import ReaderTerminal

/// `reader browse` as one ``Model``: a stack of ``BrowseScreen``s and what every screen shares.
///
/// - The bottom line is the ErrorHandler speaking: where you are on the left, what the data on
///   screen is on the right (nothing when fresh; its age, `offline` and the code otherwise).
/// - A foreground failure with nothing to show is one banner in place of the screen.
/// - Background work (prefetching) is silent: at most ``BrowseScheduler/backgroundLimit`` loads at once, each
///   failure counted for the help screen, all of a screen's cancelled when it is covered.
/// - When the service cannot be reached, the screen on top is probed (a load that waits for
///   connectivity, as `--wait` does); when it answers, the screen is drawn again and the
///   offline note goes, with no key pressed.
struct Browser: Model {
    /// The smallest screen drawn; below it, a line saying so.
    static let smallest = TerminalSize(columns: 40, rows: 10)
    /// How often time passes on screen: the ages on it are never more than this old, and what the
    /// client noticed is asked for this often.
    static let tickInterval: Duration = .seconds(1)
    /// How long a passing note stays on the bottom line, in seconds.
    static let passingNoteLength: TimeInterval = 4
    /// The longest text typed at a prompt.
    static let longestPromptText = 200
    /// The scheduler of the screens' work.
    typealias Scheduler = BrowseScheduler<@Sendable (LoadOptions) async -> ScreenAnswer>

    /// A text typed on the bottom line.
    enum Prompt: Equatable, Sendable {
        /// `s`: where to go.
        case target(String)
        /// `/`: the filter of the list, applied as it is typed.
        case filter(String)
    }

    let environment: Environment
    private(set) var stack: [Entry]
    private(set) var size: TerminalSize
    private(set) var now: Date
    var showingHelp = false
    var prompt: Prompt?
    /// The code of the failure that made the browser offline; nil when online.
    private(set) var offline: String?
    /// The service that could not be reached: the screens of another say nothing of it.
    private(set) var offlineService: ServiceName?
    /// When the rate limit resets that a copy on screen was shown for (a 429, or R1003).
    private(set) var rateLimitedUntil: Date?
    /// When each load runs and with which options: the background's limit, the probes.
    private(set) var scheduler = Scheduler()
    /// The screen being probed, while offline.
    var probing: Int? { scheduler.probing }
    /// Background failures by code: how many, and the last one's words.
    private(set) var backgroundFailures: [String: (count: Int, message: String)] = [:]
    /// What the client noticed that the data on screen does not say (the cache cannot be
    /// written, a rate limit waited for), by code: how many times, and the words. Each is said on
    /// the bottom line the first time, and listed in the help.
    private(set) var notices: [String: (count: Int, message: String)] = [:]
    private var askingForNotices = false
    /// A note on the bottom line until the next key.
    var note: String?
    /// When a passing note goes by itself (`loading already`, what the client noticed): it
    /// must not hide for long what the data on screen is. A note to read (a URL) waits for a key.
    private var noteGoesAt: Date?
    /// The background loads waiting for a place, in order ("screen:id").
    var waitingInBackground: [String] { scheduler.waiting }
    private var nextNumber = 1
    /// The links `$BROWSER` is being started for: one start a link at a time (a held `o`
    /// would start a browser a repeat).
    private(set) var opening: Set<String> = []
    /// When each link's browser was last started: a key held after a start that returns at once
    /// (a shell putting the browser in the background) starts no other for a few seconds.
    private(set) var opened: [String: Date] = [:]
    /// How long after a start the same link is not started again.
    static let reopenAfter: TimeInterval = 3

    init(first: any BrowseScreen, environment: Environment, size: TerminalSize, now: Date) {
        self.environment = environment
        self.size = size
        self.now = now
        stack = [Entry(number: 0, screen: first)]
    }

    var layout: ScreenLayout {
        ScreenLayout(columns: size.columns, rows: max(1, size.rows - 1), now: now)
    }

    /// Whether no load may touch the network (`--offline`).
    var offlineByChoice: Bool { environment.loadOptions().cacheMode == .offline }
    /// Whether the user asked for the network even for a fresh copy (`--refresh`).
    var refreshByChoice: Bool { environment.loadOptions().cacheMode == .refresh }

    mutating func start() -> [Effect<Message>] {
        perform(stack[0].screen.start(in: layout), for: 0)
    }

    // MARK: - Events

    mutating func update(_ event: ProgramEvent<Message>) -> [Effect<Message>] {
        switch event {
        case .key(let key):
            return press(key)
        case .resize(let size):
            self.size = size
            return toTop(.resized)
        case .tick(let now):
            self.now = now
            if let goes = noteGoesAt, now >= goes {
                note = nil
                noteGoesAt = nil
            }
            var effects = toTop(.tick)
            if !askingForNotices {
                askingForNotices = true
                let notices = environment.notices
                effects.append(.task(id: "notices") { .notices(await notices()) })
            }
            return effects
        case .message(.opened(let url, let failure)):
            opening.remove(url)
            if failure == nil { opened[url] = now }
            if let failure { show(failure) }
            return []
        case .message(.notices(let posted)):
            askingForNotices = false
            // Stale data and waiting are the bottom line's own to say.
            for notice in posted where notice.kind != .staleData && notice.kind != .waiting {
                let code = notice.code.description
                let counted = notices[code]?.count ?? 0
                notices[code] = (counted + 1, CLIWording.message(of: notice))
                if counted == 0 { say("\(CLIWording.message(of: notice)) · \(code)") }
            }
            return []
        case .message(.rateLimited(let until)):
            rateLimitedUntil = until
            return until.map(afterTheReset) ?? []
        case .message(.rateLimitEnded):
            guard let until = rateLimitedUntil ?? stack[stack.count - 1].failure?.rateLimitedUntil, until <= now else { return [] }
            rateLimitedUntil = nil
            return refreshTop(probe: false)
        case .message(.probeAgain):
            guard scheduler.probeAgain(), isOffline(stack[stack.count - 1]) else { return [] }
            return refreshTop(probe: true)
        case .message(.answer(let screen, let id, let pass, let answer)):
            return receive(answer, id: id, pass: pass, screen: screen)
        }
    }

    /// The filter of the screen on top, as typed after `/`.
    mutating func setFilter(_ text: String) -> [Effect<Message>] {
        stack[stack.count - 1].filter = text
        return toTop(.filter(text))
    }

    /// `event` to the screen on top, and the work it asks for.
    mutating func toTop(_ event: ScreenEvent) -> [Effect<Message>] {
        let index = stack.count - 1
        let effects = stack[index].screen.handle(event, in: layout)
        return perform(effects, for: stack[index].number)
    }

    mutating func refreshTop(probe: Bool) -> [Effect<Message>] {
        let index = stack.count - 1
        let number = stack[index].number
        let effects = stack[index].screen.handle(.refresh, in: layout)
        let result = perform(effects, for: number, probe: probe)
        if probe { scheduler.probeStarted(on: number) }
        return result
    }

    // MARK: - The stack

    mutating func push(_ screen: any BrowseScreen) -> [Effect<Message>] {
        var effects = stopBackground(ofScreen: stack[stack.count - 1].number)
        let number = nextNumber
        nextNumber += 1
        stack.append(Entry(number: number, screen: screen))
        effects += perform(screen.start(in: layout), for: number)
        return effects
    }

    mutating func pop() -> [Effect<Message>] {
        let entry = stack.removeLast()
        var effects = stopBackground(ofScreen: entry.number)
        effects += entry.running.map { .cancel(id: Self.taskID(entry.number, $0)) }
        if probing == entry.number { scheduler.endProbe() }
        effects += toTop(.appeared)
        if isOffline(stack[stack.count - 1]), scheduler.mayProbe(offlineByChoice: offlineByChoice) { effects += refreshTop(probe: true) }
        return effects
    }

    /// Cancels the background work of screen `number` (it was covered or closed), running or queued.
    private mutating func stopBackground(ofScreen number: Int) -> [Effect<Message>] {
        let stopped = scheduler.stopBackground(of: number)
        let prefix = "\(number):"
        if let index = stack.firstIndex(where: { $0.number == number }) {
            for id in stopped { stack[index].running.remove(String(id.dropFirst(prefix.count))) }
        }
        return stopped.map { .cancel(id: $0) } + startQueued()
    }

    // MARK: - Work

    static func taskID(_ screen: Int, _ id: String) -> String { Scheduler.taskID(screen, id) }

    /// The runner's effects for a screen's.
    private mutating func perform(_ effects: [ScreenEffect], for screen: Int, probe: Bool = false) -> [Effect<Message>] {
        var result: [Effect<Message>] = []
        for effect in effects {
            switch effect {
            case .load(let id, let kind, let work):
                result += load(id: id, kind: kind, work: work, screen: screen, probe: probe)
            case .run(let id, let work):
                scheduler.forgetProbe(Self.taskID(screen, id))
                mark(id, runningOn: screen)
                result.append(.task(id: Self.taskID(screen, id)) { .answer(screen: screen, id: id, .other, await work()) })
            case .cancel(let id):
                scheduler.cancel(id, of: screen)
                if let index = stack.firstIndex(where: { $0.number == screen }) {
                    stack[index].loading.remove(id)
                    stack[index].running.remove(id)
                }
                result.append(.cancel(id: Self.taskID(screen, id)))
                result += startQueued()
            case .dropQueued(let id):
                guard scheduler.dropQueued(id, of: screen), let index = stack.firstIndex(where: { $0.number == screen }) else { continue }
                let layout = index == stack.count - 1 ? self.layout : ScreenLayout(columns: size.columns, rows: layout.rows, now: now)
                result += perform(stack[index].screen.handle(.answer(id: id, ScreenAnswer(NotStarted())), in: layout), for: screen)
            case .push(let next):
                result += push(next)
            case .open(let url):
                result += open(url)
            case .say(let text):
                show(text)
            }
        }
        return result
    }

    private mutating func load(id: String, kind: LoadKind, work: @escaping @Sendable (LoadOptions) async -> ScreenAnswer,
                               screen: Int, probe: Bool) -> [Effect<Message>] {
        let decision = scheduler.load(id, of: screen, kind: kind, work: work, probe: probe, options: environment.loadOptions(),
                                      now: ContinuousClock.now)
        switch decision {
        case .skip:
            return []
        case .queued:
            return startQueued()
        case .run(let options, let pass):
            mark(id, runningOn: screen, foreground: true)
            let answered: Pass = switch pass {
            case .cachedFirst: .cached(work)
            case .foreground(let probe): .foreground(probe: probe)
            }
            return [.task(id: Self.taskID(screen, id)) { [options] in .answer(screen: screen, id: id, answered, await work(options)) }]
        }
    }

    private mutating func mark(_ id: String, runningOn screen: Int, foreground: Bool = false) {
        guard let index = stack.firstIndex(where: { $0.number == screen }) else { return }
        stack[index].running.insert(id)
        if foreground { stack[index].loading.insert(id) }
    }

    /// Starts queued background loads while there is room.
    private mutating func startQueued() -> [Effect<Message>] {
        scheduler.startQueued(options: environment.loadOptions()).map { next, options in
            mark(next.id, runningOn: next.screen)
            let (screen, id, work) = (next.screen, next.id, next.work)
            return .task(id: Self.taskID(screen, id)) { .answer(screen: screen, id: id, .background, await work(options)) }
        }
    }

    private mutating func open(_ url: String) -> [Effect<Message>] {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            show("not a web link: \(url)")
            return []
        }
        guard environment.browserCommand != nil else {
            show(url)
            return []
        }
        let startedLately = opened[url].map { now.timeIntervalSince($0) < Self.reopenAfter } ?? false
        guard !startedLately, opening.insert(url).inserted else {
            say("opening already")
            return []
        }
        let openURL = environment.openURL
        return [.task(id: nil) { .opened(url: url, failure: await openURL(url)) }]
    }

    private mutating func receive(_ answer: ScreenAnswer, id: String, pass: Pass, screen: Int) -> [Effect<Message>] {
        guard let index = stack.firstIndex(where: { $0.number == screen }) else { return [] }
        stack[index].running.remove(id)
        stack[index].loading.remove(id)
        var effects: [Effect<Message>] = []
        switch pass {
        case .background:
            scheduler.backgroundAnswered(id, of: screen)
            if case .failed(let failure)? = answer.report {
                let counted = backgroundFailures[failure.code]?.count ?? 0
                backgroundFailures[failure.code] = (counted + 1, environment.wording.message(of: failure.error))
            }
            effects += startQueued()
        case .cached(let work):
            // A copy, however old, is shown at once; the network is asked only when it is stale
            // or missing (or always, under `--refresh`), and missing is not a failure to show.
            if case .loaded(let metadata, let servedInsteadOf)? = answer.report {
                stack[index].servedInsteadOf = servedInsteadOf
                if metadata.stale || refreshByChoice { effects += load(id: id, kind: .current, work: work, screen: screen, probe: false) }
            } else {
                return load(id: id, kind: .current, work: work, screen: screen, probe: false)
            }
        case .foreground(let probe):
            let probeEnded = scheduler.foregroundAnswered(id, of: screen, probe: probe)
            effects += note(answer.report, of: index, afterProbe: probeEnded)
        case .other:
            break
        }
        guard let index = stack.firstIndex(where: { $0.number == screen }) else { return effects }
        let layout = index == stack.count - 1 ? self.layout : ScreenLayout(columns: size.columns, rows: layout.rows, now: now)
        effects += perform(stack[index].screen.handle(.answer(id: id, answer), in: layout), for: screen)
        return effects
    }

    /// What a foreground load's report says to the browser: offline, back online, a failure.
    private mutating func note(_ report: LoadReport?, of index: Int, afterProbe: Bool) -> [Effect<Message>] {
        switch report {
        case .failed(let failure)?:
            stack[index].failure = failure
            if failure.unreachable { return goOffline(failure.code, of: stack[index].screen.service, afterProbe: afterProbe) }
            if let until = failure.rateLimitedUntil { return afterTheReset(until) }
            if !failure.notCached, isOffline(stack[index]) { offline = nil }
        case .loaded(let metadata, let servedInsteadOf)?:
            stack[index].failure = nil
            stack[index].servedInsteadOf = servedInsteadOf
            if let error = servedInsteadOf, error.failureClass == .unreachable {
                return goOffline(error.code.description, of: stack[index].screen.service, afterProbe: afterProbe)
            }
            // A copy shown because the rate limit is used up: until when, the client knows.
            if let error = servedInsteadOf, error.meansRateLimited, let service = stack[index].screen.service {
                let until = environment.rateLimitedUntil
                return [.task(id: "rate limit") { .rateLimited(until: await until(service)) }]
            }
            if metadata.source != .cache { rateLimitedUntil = nil }
            // Another service answering says nothing of the one that could not be reached.
            if metadata.source != .cache, isOffline(stack[index]) {
                let wasOffline = offline != nil
                offline = nil
                // Back: the screen on top shows what the network says now.
                if wasOffline, stack[index].number != stack[stack.count - 1].number { return refreshTop(probe: false) }
            }
        case nil:
            break
        }
        return []
    }

    /// Shows `text` on the bottom line until a key: a note to read.
    mutating func show(_ text: String) {
        note = text
        noteGoesAt = nil
    }

    /// Shows `text` on the bottom line for ``passingNoteLength``, or until a key.
    mutating func say(_ text: String) {
        note = text
        noteGoesAt = now.addingTimeInterval(Self.passingNoteLength)
    }

    /// The screen asked for again once a rate limit has reset, with no key pressed.
    private func afterTheReset(_ until: Date) -> [Effect<Message>] {
        Scheduler.waitForReset(at: until, now: now).map { [.after($0, .rateLimitEnded)] } ?? []
    }

    /// Whether the service of `entry`'s data is the one that could not be reached (a screen of
    /// no named service shares the note).
    func isOffline(_ entry: Entry) -> Bool {
        guard offline != nil else { return false }
        guard let offlineService, let service = entry.screen.service else { return true }
        return service == offlineService
    }

    /// - Parameters:
    ///   - service: the service that could not be reached.
    ///   - afterProbe: whether a probe just ended so: the next one waits a little.
    private mutating func goOffline(_ code: String, of service: ServiceName?, afterProbe: Bool) -> [Effect<Message>] {
        offline = code
        offlineService = service
        switch scheduler.wentOffline(afterProbe: afterProbe, offlineByChoice: offlineByChoice) {
        case .nothing: return []
        case .probeNow: return refreshTop(probe: true)
        case .probeAfterPause: return [.after(Scheduler.probePause, .probeAgain)]
        }
    }

}
