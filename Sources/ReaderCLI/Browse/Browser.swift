import Foundation
import ReaderKit
import ReaderTerminal

/// `reader browse` as one ``Model``: a stack of ``BrowseScreen``s and what every screen shares.
///
/// - The bottom line is the ErrorHandler speaking: where you are on the left, what the data on
///   screen is on the right (nothing when fresh; its age, `offline` and the code otherwise).
/// - A foreground failure with nothing to show is one banner in place of the screen.
/// - Background work (prefetching) is silent: at most ``backgroundLimit`` loads at once, each
///   failure counted for the help screen, all of a screen's cancelled when it is covered.
/// - When the service cannot be reached, the screen on top is probed (a load that waits for
///   connectivity, as `--wait` does); when it answers, the screen is drawn again and the
///   offline note goes, with no key pressed.
struct Browser: Model {
    /// The most background loads running at once.
    static let backgroundLimit = 4
    /// The smallest screen drawn; below it, a line saying so.
    static let smallest = TerminalSize(columns: 40, rows: 10)
    /// How long one probe waits for the service before another starts.
    static let probeLength: Duration = .seconds(300)
    /// The pause before probing again when a probe ended at once (a failure the wait for
    /// connectivity does not cover): never a busy loop.
    static let probePause: Duration = .seconds(5)
    /// How often time passes on screen: the ages on it are never more than this old, and what the
    /// client noticed is asked for this often.
    static let tickInterval: Duration = .seconds(1)
    /// How long a passing note stays on the bottom line, in seconds.
    static let passingNoteLength: TimeInterval = 4
    /// The longest text typed at a prompt.
    static let longestPromptText = 200

    enum Message: Sendable {
        /// The answer of a screen's work.
        case answer(screen: Int, id: String, Pass, ScreenAnswer)
        /// `$BROWSER` was started for `url`, or could not be (its reason).
        case opened(url: String, failure: String?)
        /// Time to probe again, after ``probePause``.
        case probeAgain
        /// What the client noticed since the last time it was asked (the cache cannot be written).
        case notices([Notice])
        /// When the rate limit a copy was shown for resets (nil: it is not used up now).
        case rateLimited(until: Date?)
        /// A rate limit's reset came: what is on screen is asked for again.
        case rateLimitEnded
    }

    /// Which run of a screen's work an answer comes from.
    enum Pass: Sendable {
        /// The cache-only pass of a ``LoadKind/cacheFirst`` load; the network pass follows.
        case cached(@Sendable (LoadOptions) async -> ScreenAnswer)
        /// A load in the foreground (a probe's too).
        case foreground(probe: Bool)
        case background
        /// A ``ScreenEffect/run(id:_:)``.
        case other
    }

    /// A text typed on the bottom line.
    enum Prompt: Equatable, Sendable {
        /// `s`: where to go.
        case target(String)
        /// `/`: the filter of the list, applied as it is typed.
        case filter(String)
    }

    /// What the browser runs with.
    struct Environment: Sendable {
        /// The options of every load (a fresh deadline each time): `--offline`, `--refresh`,
        /// `--max-stale`, `--timeout` as the command line and settings give them.
        var loadOptions: @Sendable () -> LoadOptions
        /// The screen for a target typed after `s` (`python`, `r/a+b`, `swapi/people`).
        var resolve: @Sendable (String) throws(ReaderError) -> any BrowseScreen
        /// `$BROWSER`, when it is set and not empty.
        var browserCommand: String?
        /// Starts `$BROWSER URL`, detached; the reason when it cannot.
        var openURL: @Sendable (String) async -> String?
        /// What the client noticed since it was last asked (``NoticeBoard/drain()``).
        var notices: @Sendable () async -> [Notice] = { [] }
        /// When the service's rate limit resets, when it is used up now (``ReaderClient/rateLimitLockouts()``).
        var rateLimitedUntil: @Sendable (ServiceName) async -> Date? = { _ in nil }
    }

    /// A screen on the stack, with what the browser keeps of it.
    struct Entry: Sendable {
        var number: Int
        var screen: any BrowseScreen
        /// The last foreground failure: the banner when the screen has nothing to show.
        var failure: BrowseFailure?
        /// The filter typed after `/`, kept while the screen is shown.
        var filter = ""
        /// Its work running, by the screen's ids.
        var running: Set<String> = []
        /// Its loads in the foreground still to answer (a cache-first load's both passes).
        var loading: Set<String> = []
    }

    /// Background work waiting for a free place.
    private struct Queued: Sendable {
        var screen: Int
        var id: String
        var work: @Sendable (LoadOptions) async -> ScreenAnswer
    }

    let environment: Environment
    private(set) var stack: [Entry]
    private(set) var size: TerminalSize
    private(set) var now: Date
    private(set) var showingHelp = false
    private(set) var prompt: Prompt?
    /// The code of the failure that made the browser offline; nil when online.
    private(set) var offline: String?
    /// The service that could not be reached: the screens of another say nothing of it.
    private(set) var offlineService: ServiceName?
    /// When the rate limit resets that a copy on screen was shown for (a 429, or R1003).
    private(set) var rateLimitedUntil: Date?
    /// The screen being probed, while offline.
    private(set) var probing: Int?
    /// The probe's loads running ("screen:id"): a load of the same screen and id replaces one,
    /// and when none is left the probe is over.
    private var probeTasks: Set<String> = []
    /// Whether a probe waits for ``probePause``.
    private var probePending = false
    /// Background failures by code: how many, and the last one's words.
    private(set) var backgroundFailures: [String: (count: Int, message: String)] = [:]
    /// What the client noticed that the data on screen does not say (the cache cannot be
    /// written, a rate limit waited for), by code: how many times, and the words. Each is said on
    /// the bottom line the first time, and listed in the help.
    private(set) var notices: [String: (count: Int, message: String)] = [:]
    private var askingForNotices = false
    /// A note on the bottom line until the next key.
    private(set) var note: String?
    /// When a passing note goes by itself (`loading already`, what the client noticed): it
    /// must not hide for long what the data on screen is. A note to read (a URL) waits for a key.
    private var noteGoesAt: Date?
    private var queued: [Queued] = []
    /// The background loads waiting for a place, in order ("screen:id").
    var waitingInBackground: [String] { queued.map { Self.taskID($0.screen, $0.id) } }
    /// Background loads running: "screen:id".
    private var backgroundRunning: Set<String> = []
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
    private var offlineByChoice: Bool { environment.loadOptions().cacheMode == .offline }

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
            probePending = false
            guard isOffline(stack[stack.count - 1]), probing == nil else { return [] }
            return refreshTop(probe: true)
        case .message(.answer(let screen, let id, let pass, let answer)):
            return receive(answer, id: id, pass: pass, screen: screen)
        }
    }

    private mutating func press(_ key: Key) -> [Effect<Message>] {
        if key == .control("c") { return [.quit(.interrupted)] }
        // As a shell's job: stopped, the terminal given back; `fg` brings the screen back whole.
        if key == .control("z") { return [.suspend] }
        note = nil
        if showingHelp {
            showingHelp = false
            return []
        }
        if let prompt { return type(key, at: prompt) }
        switch key {
        case .character("q"):
            return stack.count > 1 ? pop() : [.quit(.finished)]
        case .escape where !stack[stack.count - 1].filter.isEmpty:
            return setFilter("")
        case .escape, .character("h"), .left:
            return stack.count > 1 ? pop() : []
        case .character("?"):
            showingHelp = true
            return []
        case .character("r"):
            // One refresh at a time: a held key would send a request a repeat. Offline, `r` is a
            // probe now, which tries at once and keeps waiting for the network.
            let top = stack[stack.count - 1]
            if !top.loading.isEmpty, probing != top.number {
                say("loading already")
                return []
            }
            // Offline with a probe already waiting for the network: another would only cancel it.
            if probing == top.number {
                say("offline; trying again every few seconds")
                return []
            }
            return refreshTop(probe: isOffline(top) && !offlineByChoice)
        case .character("s"):
            prompt = .target("")
            return []
        case .character("/"):
            // Said, so that the keys typed after it are not taken for a filter unawares.
            guard stack[stack.count - 1].screen.filters else {
                say(Self.noFilterHere)
                return []
            }
            prompt = .filter(stack[stack.count - 1].filter)
            return []
        default:
            return toTop(.key(key))
        }
    }

    /// A key while a prompt is open: text typed, `Enter` goes, `Esc` cancels.
    private mutating func type(_ key: Key, at prompt: Prompt) -> [Effect<Message>] {
        var text: String
        switch prompt {
        case .target(let typed), .filter(let typed): text = typed
        }
        switch key {
        case .escape:
            self.prompt = nil
            if case .filter = prompt { return setFilter("") }
            return []
        case .enter:
            self.prompt = nil
            guard case .target = prompt else { return [] }
            let target = text.trimmingCharacters(in: .whitespaces)
            guard !target.isEmpty else { return [] }
            do throws(ReaderError) {
                let screen = try environment.resolve(target)
                return push(screen)
            } catch {
                show("\(CLIWording.message(of: error)) · \(error.code)")
                return []
            }
        case .backspace:
            guard !text.isEmpty else { return [] }
            text.removeLast()
        case .character(let character) where text.count < Self.longestPromptText:
            text.append(character)
        default:
            return []
        }
        switch prompt {
        case .target:
            self.prompt = .target(text)
            return []
        case .filter:
            self.prompt = .filter(text)
            return setFilter(text)
        }
    }

    private mutating func setFilter(_ text: String) -> [Effect<Message>] {
        stack[stack.count - 1].filter = text
        return toTop(.filter(text))
    }

    /// `event` to the screen on top, and the work it asks for.
    private mutating func toTop(_ event: ScreenEvent) -> [Effect<Message>] {
        let index = stack.count - 1
        let effects = stack[index].screen.handle(event, in: layout)
        return perform(effects, for: stack[index].number)
    }

    private mutating func refreshTop(probe: Bool) -> [Effect<Message>] {
        let index = stack.count - 1
        let number = stack[index].number
        let effects = stack[index].screen.handle(.refresh, in: layout)
        let result = perform(effects, for: number, probe: probe)
        // A screen with nothing to load again probes nothing.
        if probe, !probeTasks.isEmpty { probing = number }
        return result
    }

    // MARK: - The stack

    private mutating func push(_ screen: any BrowseScreen) -> [Effect<Message>] {
        var effects = stopBackground(ofScreen: stack[stack.count - 1].number)
        let number = nextNumber
        nextNumber += 1
        stack.append(Entry(number: number, screen: screen))
        effects += perform(screen.start(in: layout), for: number)
        return effects
    }

    private mutating func pop() -> [Effect<Message>] {
        let entry = stack.removeLast()
        var effects = stopBackground(ofScreen: entry.number)
        effects += entry.running.map { .cancel(id: Self.taskID(entry.number, $0)) }
        if probing == entry.number { endProbe() }
        effects += toTop(.appeared)
        if isOffline(stack[stack.count - 1]), probing == nil, !probePending, !offlineByChoice { effects += refreshTop(probe: true) }
        return effects
    }

    /// Cancels the background work of screen `number` (it was covered or closed), running or queued.
    private mutating func stopBackground(ofScreen number: Int) -> [Effect<Message>] {
        queued.removeAll { $0.screen == number }
        let prefix = "\(number):"
        let stopped = backgroundRunning.filter { $0.hasPrefix(prefix) }
        backgroundRunning.subtract(stopped)
        if let index = stack.firstIndex(where: { $0.number == number }) {
            for id in stopped { stack[index].running.remove(String(id.dropFirst(prefix.count))) }
        }
        return stopped.sorted().map { .cancel(id: $0) } + startQueued()
    }

    // MARK: - Work

    static func taskID(_ screen: Int, _ id: String) -> String { "\(screen):\(id)" }

    /// The runner's effects for a screen's.
    private mutating func perform(_ effects: [ScreenEffect], for screen: Int, probe: Bool = false) -> [Effect<Message>] {
        var result: [Effect<Message>] = []
        for effect in effects {
            switch effect {
            case .load(let id, let kind, let work):
                result += load(id: id, kind: kind, work: work, screen: screen, probe: probe)
            case .run(let id, let work):
                forgetProbe(Self.taskID(screen, id))
                mark(id, runningOn: screen)
                result.append(.task(id: Self.taskID(screen, id)) { .answer(screen: screen, id: id, .other, await work()) })
            case .cancel(let id):
                forgetProbe(Self.taskID(screen, id))
                if let index = stack.firstIndex(where: { $0.number == screen }) { stack[index].loading.remove(id) }
                queued.removeAll { $0.screen == screen && $0.id == id }
                backgroundRunning.remove(Self.taskID(screen, id))
                if let index = stack.firstIndex(where: { $0.number == screen }) { stack[index].running.remove(id) }
                result.append(.cancel(id: Self.taskID(screen, id)))
                result += startQueued()
            case .dropQueued(let id):
                let waiting = queued.count
                queued.removeAll { $0.screen == screen && $0.id == id }
                guard queued.count < waiting, let index = stack.firstIndex(where: { $0.number == screen }) else { continue }
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
        var options = environment.loadOptions()
        let byChoice = options.cacheMode == .offline
        switch kind {
        case .background:
            // Running already: the same request is not sent again.
            guard !probe, !backgroundRunning.contains(Self.taskID(screen, id)) else { return [] }
            queued.removeAll { $0.screen == screen && $0.id == id }
            queued.append(Queued(screen: screen, id: id, work: work))
            return startQueued()
        case .cacheFirst where !byChoice && !probe:
            options.cacheMode = .offline
            forgetProbe(Self.taskID(screen, id))
            mark(id, runningOn: screen, foreground: true)
            return [.task(id: Self.taskID(screen, id)) { [options] in .answer(screen: screen, id: id, .cached(work), await work(options)) }]
        case .refresh where !byChoice:
            options.cacheMode = .refresh
        case .cacheFirst, .current, .refresh:
            break
        }
        if probe, !byChoice {
            options.cacheMode = .refresh
            options.waitForConnectivity = true
            options.deadline = ContinuousClock.now.advanced(by: Self.probeLength)
            probeTasks.insert(Self.taskID(screen, id))
        } else {
            forgetProbe(Self.taskID(screen, id))
        }
        mark(id, runningOn: screen, foreground: true)
        return [.task(id: Self.taskID(screen, id)) { [options] in .answer(screen: screen, id: id, .foreground(probe: probe), await work(options)) }]
    }

    private mutating func mark(_ id: String, runningOn screen: Int, foreground: Bool = false) {
        guard let index = stack.firstIndex(where: { $0.number == screen }) else { return }
        stack[index].running.insert(id)
        if foreground { stack[index].loading.insert(id) }
    }

    /// Starts queued background loads while there is room.
    private mutating func startQueued() -> [Effect<Message>] {
        var result: [Effect<Message>] = []
        while backgroundRunning.count < Self.backgroundLimit, !queued.isEmpty {
            let next = queued.removeFirst()
            var options = environment.loadOptions()
            options.mode = .background
            options.rateLimitReserve = 0.1
            backgroundRunning.insert(Self.taskID(next.screen, next.id))
            mark(next.id, runningOn: next.screen)
            let (screen, id, work) = (next.screen, next.id, next.work)
            result.append(.task(id: Self.taskID(screen, id)) { [options] in .answer(screen: screen, id: id, .background, await work(options)) })
        }
        return result
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
            backgroundRunning.remove(Self.taskID(screen, id))
            if case .failed(let failure)? = answer.report {
                let counted = backgroundFailures[failure.code]?.count ?? 0
                backgroundFailures[failure.code] = (counted + 1, failure.message)
            }
            effects += startQueued()
        case .cached(let work):
            // A copy, however old, is shown at once; the network is asked only when it is stale
            // or missing, and missing is not a failure to show.
            if case .loaded(let metadata)? = answer.report {
                if metadata.stale { effects += load(id: id, kind: .current, work: work, screen: screen, probe: false) }
            } else {
                return load(id: id, kind: .current, work: work, screen: screen, probe: false)
            }
        case .foreground(let probe):
            var probeEnded = false
            if probe, probeTasks.remove(Self.taskID(screen, id)) != nil, probeTasks.isEmpty {
                probing = nil
                probeEnded = true
            }
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
        case .loaded(let metadata)?:
            stack[index].failure = nil
            if let code = metadata.errorCode, BrowseFailure.meansUnreachable(code) {
                return goOffline(code.description, of: stack[index].screen.service, afterProbe: afterProbe)
            }
            // A copy shown because the rate limit is used up: until when, the client knows.
            if let code = metadata.errorCode, BrowseFailure.meansRateLimited(code), let service = stack[index].screen.service {
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
    private mutating func show(_ text: String) {
        note = text
        noteGoesAt = nil
    }

    /// Shows `text` on the bottom line for ``passingNoteLength``, or until a key.
    private mutating func say(_ text: String) {
        note = text
        noteGoesAt = now.addingTimeInterval(Self.passingNoteLength)
    }

    /// The screen asked for again once a rate limit has reset, with no key pressed.
    private func afterTheReset(_ until: Date) -> [Effect<Message>] {
        let wait = until.timeIntervalSince(now)
        guard wait.isFinite, wait < 24 * 3600 else { return [] }
        return [.after(.milliseconds(Int(max(0, wait) * 1000) + 1000), .rateLimitEnded)]
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
        guard probing == nil, !probePending, !offlineByChoice else { return [] }
        if afterProbe {
            probePending = true
            return [.after(Self.probePause, .probeAgain)]
        }
        return refreshTop(probe: true)
    }

    /// A load under `task` replaces the probe's there (or it was cancelled): the probe is over
    /// when none of its loads is left.
    private mutating func forgetProbe(_ task: String) {
        guard probeTasks.remove(task) != nil, probeTasks.isEmpty else { return }
        probing = nil
    }

    private mutating func endProbe() {
        probeTasks = []
        probing = nil
    }

    // MARK: - The view

    func view(size: TerminalSize) -> Grid {
        var grid = Grid(size: size)
        guard size.columns >= Self.smallest.columns, size.rows >= Self.smallest.rows else {
            let lines = TerminalText.wrap("terminal too small: 40×10 at least", toWidth: size.columns, breakingLongWords: true)
            for (row, line) in lines.prefix(size.rows).enumerated() { grid.draw(line, x: 0, y: row) }
            return grid
        }
        let layout = ScreenLayout(columns: size.columns, rows: size.rows - 1, now: now)
        let top = stack[stack.count - 1]
        if showingHelp {
            drawHelp(into: &grid, in: layout)
        } else if !top.screen.hasContent, let failure = top.failure {
            drawBanner(failure, into: &grid, in: layout)
        } else {
            top.screen.draw(into: &grid, in: layout)
        }
        drawBottomLine(into: &grid)
        return grid
    }

    /// A failure in place of the screen: its message, code and hint as the CLI words them.
    private func drawBanner(_ failure: BrowseFailure, into grid: inout Grid, in layout: ScreenLayout) {
        var lines: [(String, CellStyle)] = TerminalText.wrap(TerminalText.sanitise(failure.message), toWidth: layout.columns,
                                                            breakingLongWords: true).map { ($0, CellStyle(bold: true)) }
        lines.append((failure.code, CellStyle(foreground: .red)))
        if let hint = failure.hint {
            lines += TerminalText.wrap(TerminalText.sanitise(hint), toWidth: layout.columns, breakingLongWords: true).map { ($0, .plain) }
        }
        lines.append(("", .plain))
        lines.append((stack.count > 1 ? "r to try again · q to go back" : "r to try again · q to quit", CellStyle(dim: true)))
        for (row, line) in lines.prefix(layout.rows).enumerated() { grid.draw(line.0, x: 0, y: row, style: line.1) }
    }

    /// The keys every screen shares, grouped, for the help screen.
    static let sharedKeys: [(group: String, keys: [KeyHelp])] = [
        ("Move", [KeyHelp("j ↓  k ↑", "down, up"), KeyHelp("g Home  G End", "first, last"),
                  KeyHelp("PgDn ^d  PgUp ^u", "a page down, up")]),
        ("Open and go back", [KeyHelp("Enter l →", "open"), KeyHelp("Esc h ←", "back"),
                              KeyHelp("q", "back; quit from the first screen"), KeyHelp("^c", "quit"),
                              KeyHelp("^z", "suspend; fg comes back")]),
        ("Anywhere", [KeyHelp("r", "refresh from the network"), KeyHelp("s", "go to a subreddit or swapi"),
                      KeyHelp("/", "filter the list (Esc clears)"), KeyHelp("?", "this help; any key closes it")]),
    ]

    /// What `/` says on a screen that is no list, and the help there.
    static let noFilterHere = "/ filters lists; this screen is none"

    /// Every key, grouped, and the background failures counted so far. Where a shared key does
    /// nothing (`/` off a list), the help says so.
    func helpLines(width: Int) -> [(String, CellStyle)] {
        var groups = Self.sharedKeys
        if !stack[stack.count - 1].screen.filters {
            groups = groups.map { group in
                (group.group, group.keys.map { $0.keys == "/" ? KeyHelp("/", "filter a list (not this screen)") : $0 })
            }
        }
        let own = stack[stack.count - 1].screen.keys
        if !own.isEmpty { groups.insert(("This screen", own), at: 2) }
        let keyWidth = groups.flatMap(\.keys).map { TerminalText.width($0.keys) }.max() ?? 0
        var lines: [(String, CellStyle)] = []
        for (group, keys) in groups {
            lines.append((group, CellStyle(bold: true)))
            lines += keys.map { ("  " + TerminalText.pad($0.keys, toWidth: keyWidth) + "  " + $0.action, .plain) }
        }
        lines.append(("Background", CellStyle(bold: true)))
        for code in notices.keys.sorted() {
            guard let (count, message) = notices[code] else { continue }
            let line = "\(code) ×\(count): \(TerminalText.sanitise(message))"
            lines += TerminalText.wrap(line, toWidth: max(1, width - 2), breakingLongWords: true).map { ("  " + $0, .plain) }
        }
        if backgroundFailures.isEmpty {
            lines.append(("  nothing failed", .plain))
        } else {
            let total = backgroundFailures.values.reduce(0) { $0 + $1.count }
            lines.append(("  \(total) failed, not shown:", .plain))
            for code in backgroundFailures.keys.sorted() {
                guard let (count, message) = backgroundFailures[code] else { continue }
                let line = "\(code) ×\(count): \(TerminalText.sanitise(message))"
                lines += TerminalText.wrap(line, toWidth: max(1, width - 2), breakingLongWords: true).map { ("  " + $0, .plain) }
            }
        }
        return lines
    }

    /// The help in one column, or two when one is too long and the terminal wide enough; when
    /// it still does not fit, what failed in the background comes first (the keys are in the
    /// README and `--help`, the failures nowhere else).
    private func drawHelp(into grid: inout Grid, in layout: ScreenLayout) {
        let half = layout.columns / 2
        let twoColumns = layout.columns >= 80 && helpLines(width: layout.columns).count > layout.rows
        var lines = helpLines(width: twoColumns ? half - 1 : layout.columns)
        if lines.count > layout.rows * (twoColumns ? 2 : 1), let background = lines.firstIndex(where: { $0.0 == "Background" }) {
            lines = Array(lines[background...] + lines[..<background])
        }
        let room = layout.rows * (twoColumns ? 2 : 1)
        for (index, (text, style)) in lines.prefix(room).enumerated() {
            let (column, row) = twoColumns && index >= layout.rows ? (1, index - layout.rows) : (0, index)
            // What does not fit says so on the last row, rather than being cut without a word.
            let cut = lines.count > room && index == room - 1
            grid.draw(cut ? "… more on a taller terminal" : text, x: column * half, y: row, style: cut ? CellStyle(dim: true) : style,
                      maxWidth: twoColumns ? half - 1 : nil)
        }
    }

    /// The last row: a prompt while one is open; else where you are on the left and what the data
    /// on screen is on the right. The note on the right comes first (its code is what to act on);
    /// the left gives up its longer forms.
    private func drawBottomLine(into grid: inout Grid) {
        let y = grid.size.rows - 1
        let width = grid.size.columns
        if let prompt {
            let (label, text) = switch prompt {
            case .target(let text): ("go to (subreddit, r/a+b, swapi): ", text)
            case .filter(let text): ("/", text)
            }
            let room = max(1, width - TerminalText.width(label) - 1)
            // The end of the text stays in view as it grows: the characters that fit, counted
            // from the end once (a paste of hundreds must not cost hundreds of measures a key).
            var counted = 0
            let kept = text.reversed().prefix { character in
                counted += TerminalText.width(of: character)
                return counted <= room
            }
            let shown = String(kept.reversed())
            let used = grid.draw(label + shown, x: 0, y: y)
            grid.setStyle(CellStyle(reverse: true), x: min(used, width - 1), y: y, width: 1)
            return
        }
        let top = stack[stack.count - 1]
        // A note wider than the terminal (a whole URL for `o`) takes the rows above it, so that
        // it can be read and copied whole.
        if let note, TerminalText.width(note) > width {
            // Its start, on at most half the screen; cut, it ends in `…` (a link's start is what
            // says where it goes).
            var lines = Array(TerminalText.wrap(note, toWidth: width, breakingLongWords: true))
            let most = max(1, grid.size.rows / 2)
            if lines.count > most {
                lines = Array(lines.prefix(most))
                lines[most - 1] = TerminalText.truncate(lines[most - 1] + "…", toWidth: width)
                if !lines[most - 1].hasSuffix("…") { lines[most - 1] = String(lines[most - 1].dropLast()) + "…" }
            }
            for (offset, line) in lines.enumerated() {
                let row = y - lines.count + 1 + offset
                grid.clear(row: row)
                grid.draw(line, x: 0, y: row)
            }
            return
        }
        var forms = top.screen.place
        if !top.filter.isEmpty, let first = forms.first { forms.insert("\(first) · /\(top.filter)", at: 0) }
        let shortestLeft = forms.last.map { TerminalText.width($0) } ?? 0
        // The right gives up its words before its code: `copy from 3 h ago · offline · T1003`,
        // then `3 h ago · offline · T1003`, then the code; a note to read (a URL) is cut last.
        let notes = note.map { [$0] } ?? freshnessNotes(of: top)
        let fitting = notes.first { TerminalText.width($0) + 1 + min(shortestLeft, 8) <= width }
        let right = fitting ?? TerminalText.truncate(notes.last ?? "", toWidth: note == nil ? width - 9 : width)
        let room = width - TerminalText.width(right) - (right.isEmpty ? 0 : 1)
        let left = forms.first { TerminalText.width($0) <= room } ?? TerminalText.truncate(forms.last ?? "", toWidth: max(0, room))
        grid.draw(left, x: 0, y: y)
        if !right.isEmpty { grid.draw(right, x: width - TerminalText.width(right), y: y, style: CellStyle(dim: note == nil)) }
    }

    /// What the data on `entry` is when it is not fresh, from the longest form to the shortest:
    /// `copy from 3 h ago · offline · T1003`, `3 h ago · offline · T1003`, `offline · T1003`.
    /// Empty when it is fresh.
    func freshnessNotes(of entry: Entry) -> [String] {
        var age: String?
        // Only the data on screen is spoken of: another service's being offline is not its.
        let offline = isOffline(entry) ? self.offline : nil
        if let shown = entry.screen.shown, shown.stale || shown.errorCode != nil || offline != nil {
            age = RelativeAge.describe(from: shown.fetchedAt, to: now) + " ago"
        }
        var why: [String] = []
        if let offline {
            why = ["offline", offline]
        } else if let failure = entry.failure, let until = failure.rateLimitedUntil, until > now {
            why = ["rate limited until \(Self.clockTime(until))", failure.code]
        } else if let code = entry.screen.shown?.errorCode, BrowseFailure.meansRateLimited(code), let until = rateLimitedUntil, until > now {
            why = ["rate limited until \(Self.clockTime(until))", code.description]
        } else if let failure = entry.failure, entry.screen.hasContent {
            why = [age == nil ? "not refreshed" : nil, failure.code].compactMap { $0 }
        } else if let code = entry.screen.shown?.errorCode {
            why = [code.description]
        }
        guard age != nil || !why.isEmpty else { return [] }
        let reason = why.joined(separator: " · ")
        let forms = [age.map { "copy from \($0)" }, age].compactMap { $0 }.map { ([$0] + why).joined(separator: " · ") }
        // The code last of all: what to act on stays whole.
        let code = why.count > 1 ? why.last.map { [$0] } ?? [] : []
        return forms + (why.isEmpty ? [] : [reason]) + code
    }

    /// `14:05`, in the local time zone.
    static func clockTime(_ date: Date) -> String {
        let parts = Calendar.current.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }
}

extension BrowseFailure {
    /// Whether `code` says the rate limit is used up: a 429 (`H429`, `A429`), or a request not
    /// sent for it (`R1003`).
    static func meansRateLimited(_ code: ErrorCode) -> Bool {
        (code.domain == .request && code.number == 1003) || ((code.domain == .http || code.domain == .api) && code.number == 429)
    }

    /// Whether `code` says the service could not be reached (the class ``FailureClass/unreachable``).
    static func meansUnreachable(_ code: ErrorCode) -> Bool {
        guard code.domain == .transport, let reason = TransportFailure.Reason(rawValue: code.number) else { return false }
        return ReaderError.transport(TransportFailure(reason, host: "", detail: "")).failureClass == .unreachable
    }
}
