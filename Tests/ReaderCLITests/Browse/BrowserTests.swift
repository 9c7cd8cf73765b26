import Foundation
import Testing
@testable import ReaderCLI
@testable import ReaderKit
import ReaderTerminal

/// A screen that shows what it is given and keeps what reaches it, for the ``Browser``'s tests.
struct RecordingScreen: BrowseScreen {
    var name = "r/python"
    var service: ServiceName?
    var shown: LoadMetadata?
    var hasContent = true
    var filters = true
    var keys: [KeyHelp] = [KeyHelp("S", "sort")]
    var startWith: [ScreenEffect] = []
    /// What `.refresh` asks for.
    var refreshWith: [ScreenEffect] = []
    /// What a key asks for.
    var onKey: [ScreenEffect] = []
    private(set) var events: [String] = []
    /// Whether every row is filled (with `#`), for what is drawn over the screen.
    var fills = false

    var place: [String] { ["\(name) · hot · 3 posts", name] }

    func start(in layout: ScreenLayout) -> [ScreenEffect] { startWith }

    mutating func handle(_ event: ScreenEvent, in layout: ScreenLayout) -> [ScreenEffect] {
        switch event {
        case .key(let key): events.append("key \(key)"); return onKey
        case .answer(let id, let answer):
            events.append("answer \(id)")
            if case .loaded(let metadata, _)? = answer.report { shown = metadata }
        case .refresh: events.append("refresh"); return refreshWith
        case .filter(let text): events.append("filter \(text)")
        case .resized: events.append("resized \(layout.columns)x\(layout.rows)")
        case .appeared: events.append("appeared")
        case .tick: events.append("tick")
        }
        return []
    }

    func draw(into grid: inout Grid, in layout: ScreenLayout) {
        if fills { for row in 0..<layout.rows { grid.draw(String(repeating: "#", count: layout.columns), x: 0, y: row) } }
        grid.draw("content of \(name)", x: 0, y: 0)
    }
}

/// Options each load was run with, kept by the work itself.
final class OptionsLog: @unchecked Sendable {
    private let lock = NSLock()
    private var options: [LoadOptions] = []
    func append(_ value: LoadOptions) { lock.withLock { options.append(value) } }
    var all: [LoadOptions] { lock.withLock { options } }
}

@Suite struct BrowserTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)
    static let size = TerminalSize(columns: 80, rows: 24)

    static func metadata(source: LoadMetadata.Source = .network, stale: Bool = false, age: Int = 0, errorCode: ErrorCode? = nil) -> LoadMetadata {
        LoadMetadata(source: source, stale: stale, fetchedAt: now.addingTimeInterval(TimeInterval(-age)), ageSeconds: age,
                     errorCode: errorCode, url: "https://www.reddit.com/r/python/hot.json")
    }

    static func browser(_ screen: RecordingScreen = RecordingScreen(), offline: Bool = false, refresh: Bool = false,
                        resolve: @escaping @Sendable (String) throws(ReaderError) -> any BrowseScreen = { _ throws(ReaderError) in RecordingScreen(name: "r/rust") },
                        browserCommand: String? = nil, size: TerminalSize = size,
                        rateLimitedUntil: Date? = nil) -> Browser {
        Browser(first: screen, environment: Browser.Environment(
            loadOptions: { LoadOptions(cacheMode: offline ? .offline : refresh ? .refresh : .normal) },
            resolve: resolve, places: ["subreddit, r/a+b", "swapi"], wording: CLIWording(registry: .current), browserCommand: browserCommand, openURL: { _ in nil },
            rateLimitedUntil: { _ in rateLimitedUntil }), size: size, now: now)
    }

    /// A load whose work logs its options and answers with `report`.
    static func load(_ id: String, _ kind: LoadKind, log: OptionsLog = OptionsLog(), report: LoadReport? = nil) -> ScreenEffect {
        .load(id: id, kind) { options in
            log.append(options)
            return ScreenAnswer("payload", report: report)
        }
    }

    /// The ids of the tasks among `effects`, and the ids cancelled.
    static func tasks(_ effects: [Effect<Browser.Message>]) -> [String] {
        effects.compactMap { if case .task(let id, _) = $0 { id ?? "-" } else { nil } }
    }

    static func cancelled(_ effects: [Effect<Browser.Message>]) -> [String] {
        effects.compactMap { if case .cancel(let id) = $0 { id } else { nil } }
    }

    /// Runs the task effects and feeds their answers back, as the runner would.
    static func run(_ effects: [Effect<Browser.Message>], on browser: inout Browser) async -> [Effect<Browser.Message>] {
        var next: [Effect<Browser.Message>] = []
        for effect in effects {
            if case .task(_, let operation) = effect { next += browser.update(.message(await operation())) }
        }
        return next
    }

    static func answer(_ id: String, _ report: LoadReport?, screen: Int = 0, probe: Bool = false) -> ProgramEvent<Browser.Message> {
        .message(.answer(screen: screen, id: id, .foreground(probe: probe), ScreenAnswer("payload", report: report)))
    }

    /// A load that could not reach the service, for `reason` (T1004 by default).
    static func unreachable(_ reason: TransportFailure.Reason = .cannotConnectToHost) -> BrowseFailure {
        BrowseFailure(.transport(TransportFailure(reason, host: "127.0.0.1", port: 9, detail: "connection refused")))
    }

    /// The host not found (T1003).
    static let hostNotFound = ReaderError.transport(TransportFailure(.cannotFindHost, host: "www.reddit.com", detail: "no such host"))

    /// A stale copy served in place of `error`: its metadata says the code, the report the error itself.
    static func served(insteadOf error: ReaderError, age: Int) -> LoadReport {
        .loaded(metadata(source: .cache, stale: true, age: age, errorCode: error.code), servedInsteadOf: error)
    }

    @Test func theBottomLineSaysWhereAndNothingMoreWhenTheDataIsFresh() {
        var browser = Self.browser()
        _ = browser.update(Self.answer("list", .loaded(Self.metadata())))
        let view = browser.view(size: Self.size)
        #expect(view.text(ofRow: 0) == "content of r/python")
        #expect(view.text(ofRow: 23) == "r/python · hot · 3 posts")
    }

    @Test func aStaleCopySaysItsAgeAndOfflineWithTheCodeAndTheAgeGrowsWithTicks() {
        var browser = Self.browser()
        _ = browser.update(Self.answer("list", .loaded(Self.metadata(source: .cache, stale: true, age: 3 * 3600))))
        #expect(browser.view(size: Self.size).text(ofRow: 23)
                == "r/python · hot · 3 posts                                       copy from 3 h ago")
        _ = browser.update(Self.answer("list", Self.served(insteadOf: Self.hostNotFound, age: 3 * 3600)))
        #expect(browser.offline == "T1003")
        #expect(browser.view(size: Self.size).text(ofRow: 23)
                == "r/python · hot · 3 posts                     copy from 3 h ago · offline · T1003")
        _ = browser.update(.tick(Self.now.addingTimeInterval(3600)))
        #expect(browser.view(size: Self.size).text(ofRow: 23)
                == "r/python · hot · 3 posts                     copy from 4 h ago · offline · T1003")
        // At 40 columns the note stays whole and the place gives way.
        #expect(browser.view(size: TerminalSize(columns: 40, rows: 10)).text(ofRow: 9)
                == "r/python       4 h ago · offline · T1003")
    }

    /// Reddit offline says nothing of SWAPI's data, served fresh, on SWAPI's screens.
    @Test func theBottomLineSpeaksOnlyOfTheServiceOfTheDataOnScreen() {
        var browser = Self.browser(RecordingScreen(service: RedditService.name),
                                   resolve: { _ throws(ReaderError) in RecordingScreen(name: "swapi", service: SWAPIService.name) })
        _ = browser.update(Self.answer("list", Self.served(insteadOf: Self.hostNotFound, age: 44)))
        #expect(browser.view(size: Self.size).text(ofRow: 23).hasSuffix("copy from 44 s ago · offline · T1003"))
        for key in ["s", "s", "w", "a", "p", "i"] { _ = browser.update(.key(.character(Character(key)))) }
        _ = browser.update(.key(.enter))
        #expect(browser.stack.count == 2)
        _ = browser.update(Self.answer("list", .loaded(Self.metadata(source: .cache)), screen: 1))
        #expect(browser.view(size: Self.size).text(ofRow: 23) == "swapi · hot · 3 posts")
        // SWAPI answering from the network does not make Reddit reachable.
        _ = browser.update(Self.answer("list", .loaded(Self.metadata()), screen: 1))
        #expect(browser.offline == "T1003")
        _ = browser.update(.key(.character("q")))
        #expect(browser.view(size: Self.size).text(ofRow: 23).hasSuffix("copy from 44 s ago · offline · T1003"))
    }

    @Test func aForegroundFailureWithNothingToShowIsOneBannerWithItsCodeAndHint() {
        var browser = Self.browser(RecordingScreen(hasContent: false))
        _ = browser.update(Self.answer("list", .failed(BrowseFailure(.invalidArgument("r/nope: no such subreddit"),
                                                                     hints: [.plain("check the name: 'reader posts NAME'")]))))
        #expect(browser.view(size: TerminalSize(columns: 40, rows: 10)).text == """
            r/nope: no such subreddit
            R1001
            check the name: 'reader posts NAME'

            r to try again · q to quit




            r/python · hot · 3 posts
            """)
    }

    @Test func anUnreachableServiceMakesTheBrowserOfflineAndProbesTheScreenOnTopUntilItAnswers() async {
        let log = OptionsLog()
        var screen = RecordingScreen(hasContent: false)
        screen.refreshWith = [Self.load("list", .refresh, log: log, report: .loaded(Self.metadata()))]
        var browser = Self.browser(screen)
        let effects = browser.update(Self.answer("list", .failed(Self.unreachable())))
        #expect(browser.offline == "T1004")
        #expect(browser.probing == 0)
        #expect(Self.tasks(effects) == ["0:list"])
        #expect(browser.view(size: Self.size).text(ofRow: 23).hasSuffix("offline · T1004"))
        // The probe waits for the network, for longer than a load, and asks past a fresh copy.
        _ = await Self.run(effects, on: &browser)
        #expect(log.all.count == 1)
        #expect(log.all.first?.waitForConnectivity == true)
        #expect(log.all.first?.cacheMode == .refresh)
        // It answered: the note goes with no key pressed.
        #expect(browser.offline == nil)
        #expect(browser.probing == nil)
        #expect(browser.view(size: Self.size).text(ofRow: 23) == "r/python · hot · 3 posts")
    }

    @Test func aProbeThatEndsAtOnceIsTriedAgainAfterAPauseAndRWhileOfflineIsAProbe() async {
        var screen = RecordingScreen(hasContent: false)
        screen.refreshWith = [Self.load("list", .refresh, report: .failed(Self.unreachable(.unknown)))]
        var browser = Self.browser(screen)
        let probe = browser.update(Self.answer("list", .failed(Self.unreachable())))
        #expect(Self.tasks(probe) == ["0:list"])
        // The probe failed at once: the next waits five seconds, however often it fails so.
        let after = await Self.run(probe, on: &browser)
        guard after.count == 1, case .after(let pause, .probeAgain) = after[0] else { Issue.record("no pause: \(after)"); return }
        #expect(pause == .seconds(5))
        #expect(browser.probing == nil)
        #expect(browser.update(Self.answer("more", .failed(Self.unreachable()))).isEmpty)
        #expect(Self.tasks(browser.update(.message(.probeAgain))) == ["0:list"])
        #expect(browser.probing == 0)
        // `r` while a probe waits for the network leaves it be (another would only cancel it);
        // while the next probe pauses, `r` is that probe, at once, never a plain load.
        let log = OptionsLog()
        var offline = Self.browser(RecordingScreen(refreshWith: [Self.load("list", .refresh, log: log, report: .failed(Self.unreachable(.unknown)))]))
        let probing = offline.update(Self.answer("list", .failed(Self.unreachable())))
        #expect(offline.update(.key(.character("r"))).isEmpty)
        #expect(offline.view(size: Self.size).text(ofRow: 23).hasSuffix("offline; trying again every few seconds"))
        _ = await Self.run(probing, on: &offline)
        #expect(offline.probing == nil)
        let pressed = offline.update(.key(.character("r")))
        #expect(Self.tasks(pressed) == ["0:list"])
        _ = await Self.run(pressed, on: &offline)
        #expect(log.all.map(\.waitForConnectivity) == [true, true])
    }

    @Test func underOfflineByChoiceNothingIsProbed() {
        var screen = RecordingScreen(hasContent: false)
        screen.refreshWith = [Self.load("list", .refresh)]
        var browser = Self.browser(screen, offline: true)
        let effects = browser.update(Self.answer("list", .failed(Self.unreachable())))
        #expect(effects.isEmpty)
        #expect(browser.probing == nil)
    }

    @Test func cacheFirstShowsTheCopyThenAsksTheNetworkOnlyWhenItIsStaleOrMissing() async {
        let stale = OptionsLog()
        var browser = Self.browser(RecordingScreen(startWith: [Self.load("list", .cacheFirst, log: stale,
                                                                         report: .loaded(Self.metadata(source: .cache, stale: true, age: 60)))]))
        let first = browser.start()
        #expect(Self.tasks(first) == ["0:list"])
        let second = await Self.run(first, on: &browser)
        #expect(stale.all.map(\.cacheMode) == [.offline])
        #expect(Self.tasks(second) == ["0:list"])
        _ = await Self.run(second, on: &browser)
        #expect(stale.all.map(\.cacheMode) == [.offline, .normal])

        let fresh = OptionsLog()
        var freshBrowser = Self.browser(RecordingScreen(startWith: [Self.load("list", .cacheFirst, log: fresh,
                                                                              report: .loaded(Self.metadata(source: .cache)))]))
        #expect(await Self.run(freshBrowser.start(), on: &freshBrowser).isEmpty)
        #expect(fresh.all.map(\.cacheMode) == [.offline])

        let missing = OptionsLog()
        var missingBrowser = Self.browser(RecordingScreen(startWith: [Self.load("list", .cacheFirst, log: missing, report: .failed(
            BrowseFailure(.cache(CacheFailure(.notCached, path: "cache.sqlite", detail: "")))))]))
        let then = await Self.run(missingBrowser.start(), on: &missingBrowser)
        #expect(Self.tasks(then) == ["0:list"])
        // Missing is not a failure to show: the screen never heard of it.
        #expect(missingBrowser.stack[0].failure == nil)
    }

    @Test func underRefreshAFreshCopyIsShownThenTheNetworkIsAskedAnyway() async {
        let log = OptionsLog()
        var browser = Self.browser(RecordingScreen(startWith: [Self.load("list", .cacheFirst, log: log,
                                                                         report: .loaded(Self.metadata(source: .cache)))]), refresh: true)
        let second = await Self.run(browser.start(), on: &browser)
        #expect(Self.tasks(second) == ["0:list"])
        _ = await Self.run(second, on: &browser)
        #expect(log.all.map(\.cacheMode) == [.offline, .refresh])
    }

    @Test func backgroundWorkRunsFourAtOnceIsCountedNeverShownAndStopsWhenTheScreenIsCovered() async {
        let failing = LoadReport.failed(Self.unreachable(.timedOut))
        var screen = RecordingScreen()
        screen.onKey = (1...6).map { Self.load("prefetch\($0)", .background, report: failing) } + [.push(RecordingScreen(name: "post"))]
        var browser = Self.browser(screen)
        var effects = browser.update(.key(.character("x")))
        // Four start; the covering screen is pushed after them, which cancels them and the two queued.
        #expect(Self.tasks(effects) == ["0:prefetch1", "0:prefetch2", "0:prefetch3", "0:prefetch4"])
        #expect(Self.cancelled(effects) == ["0:prefetch1", "0:prefetch2", "0:prefetch3", "0:prefetch4"])
        #expect(browser.stack.count == 2)

        screen.onKey = (1...5).map { Self.load("prefetch\($0)", .background, report: failing) }
        browser = Self.browser(screen)
        effects = browser.update(.key(.character("x")))
        #expect(Self.tasks(effects).count == 4)
        let fifth = await Self.run(Array(effects.prefix(1)), on: &browser)
        #expect(Self.tasks(fifth) == ["0:prefetch5"])
        // Failed in the background: counted for the help screen, no banner, not offline.
        #expect(browser.backgroundFailures["T1001"]?.count == 1)
        #expect(browser.offline == nil)
        #expect(browser.view(size: Self.size).text(ofRow: 0) == "content of r/python")
    }

    @Test func backgroundLoadsRunInTheBackgroundModeKeepingTheLastTenthOfARateLimit() async {
        let log = OptionsLog()
        var screen = RecordingScreen()
        screen.onKey = [Self.load("prefetch", .background, log: log)]
        var browser = Self.browser(screen)
        _ = await Self.run(browser.update(.key(.character("x"))), on: &browser)
        #expect(log.all.map(\.mode) == [.background])
        #expect(log.all.map(\.rateLimitReserve) == [0.1])
    }

    @Test func helpShowsEveryKeyAndTheBackgroundFailuresAndAnyKeyClosesIt() {
        var browser = Self.browser()
        _ = browser.update(.message(.answer(screen: 0, id: "p", .background, ScreenAnswer("", report: .failed(Self.unreachable(.timedOut))))))
        _ = browser.update(.key(.character("?")))
        #expect(browser.showingHelp)
        let text = browser.view(size: Self.size).text
        for expected in ["Move", "j ↓  k ↑", "Open and go back", "This screen", "S ", "sort", "Anywhere",
                         "s  ", "go to (subreddit, r/a+b, swapi)", "Background", "1 failed, not shown:", "T1001 ×1"] {
            #expect(text.contains(expected), "help lacks \(expected)")
        }
        // Any key closes it, bound or not, and does nothing else.
        #expect(browser.update(.key(.function(5))).isEmpty)
        #expect(!browser.showingHelp)
        #expect(browser.stack[0].screen is RecordingScreen)
    }

    @Test func qGoesBackThenQuitsAndCtrlCQuitsFromAnywhere() {
        var screen = RecordingScreen()
        screen.onKey = [.push(RecordingScreen(name: "post"))]
        var browser = Self.browser(screen)
        _ = browser.update(.key(.enter))
        #expect(browser.stack.count == 2)
        #expect(browser.view(size: Self.size).text(ofRow: 0) == "content of post")
        _ = browser.update(.key(.escape))
        #expect(browser.stack.count == 1)
        #expect((browser.stack[0].screen as? RecordingScreen)?.events == ["key enter", "appeared"])
        // Back from the first screen does nothing; q quits it.
        #expect(browser.update(.key(.left)).isEmpty)
        guard case .quit(.finished)? = browser.update(.key(.character("q"))).first else { Issue.record("q did not quit"); return }
        _ = browser.update(.key(.enter))
        _ = browser.update(.key(.character("?")))
        guard case .quit(.interrupted)? = browser.update(.key(.control("c"))).first else { Issue.record("Ctrl-c did not quit"); return }
    }

    @Test func sAsksWhereToGoAndGoesThereOrSaysWhyNot() {
        var browser = Self.browser(resolve: { target throws(ReaderError) in
            guard target == "rust" else { throw .invalidArgument("r/\(target) is not a subreddit name") }
            return RecordingScreen(name: "r/rust")
        })
        _ = browser.update(.key(.character("s")))
        for character in "rusty" { _ = browser.update(.key(.character(character))) }
        #expect(browser.view(size: Self.size).text(ofRow: 23) == "go to (subreddit, r/a+b, swapi): rusty")
        _ = browser.update(.key(.backspace))
        _ = browser.update(.key(.enter))
        #expect(browser.stack.count == 2)
        #expect(browser.view(size: Self.size).text(ofRow: 0) == "content of r/rust")

        _ = browser.update(.key(.character("s")))
        for character in "no/pe" { _ = browser.update(.key(.character(character))) }
        _ = browser.update(.key(.enter))
        #expect(browser.stack.count == 2)
        #expect(browser.view(size: Self.size).text(ofRow: 23).hasSuffix("r/no/pe is not a subreddit name · R1001"))
        // Esc cancels a prompt and goes nowhere.
        _ = browser.update(.key(.character("s")))
        _ = browser.update(.key(.character("x")))
        _ = browser.update(.key(.escape))
        #expect(browser.prompt == nil)
        #expect(browser.stack.count == 2)
    }

    @Test func slashFiltersAsYouTypeAndEscClearsIt() {
        var browser = Self.browser()
        _ = browser.update(.key(.character("/")))
        _ = browser.update(.key(.character("p")))
        _ = browser.update(.key(.character("y")))
        _ = browser.update(.key(.enter))
        #expect(browser.view(size: Self.size).text(ofRow: 23) == "r/python · hot · 3 posts · /py")
        _ = browser.update(.key(.escape))
        #expect((browser.stack[0].screen as? RecordingScreen)?.events == ["filter p", "filter py", "filter "])
        #expect(browser.view(size: Self.size).text(ofRow: 23) == "r/python · hot · 3 posts")
        // A screen that is no list takes no filter, says so, and its help says so.
        var other = Self.browser(RecordingScreen(filters: false))
        _ = other.update(.key(.character("/")))
        #expect(other.prompt == nil)
        #expect(other.view(size: Self.size).text(ofRow: 23).hasSuffix("/ filters lists; this screen is none"))
        #expect(other.helpLines(width: 80).map(\.0).contains { $0.hasPrefix("  /") && $0.hasSuffix("filter a list (not this screen)") })
        #expect(!Self.browser().helpLines(width: 80).map(\.0).contains { $0.hasSuffix("(not this screen)") })
    }

    @Test func oOpensHttpLinksWithTheBrowserOrShowsThemWhole() {
        var screen = RecordingScreen()
        screen.onKey = [.open(url: "https://example.com/a/very/long/path")]
        var without = Self.browser(screen)
        #expect(without.update(.key(.character("o"))).isEmpty)
        #expect(without.view(size: Self.size).text(ofRow: 23).hasSuffix("https://example.com/a/very/long/path"))
        var with = Self.browser(screen, browserCommand: "firefox")
        #expect(Self.tasks(with.update(.key(.character("o")))) == ["-"])
        // Held: one start a link at a time; the next once it has been started.
        for _ in 0..<50 { #expect(with.update(.key(.character("o"))).isEmpty) }
        #expect(with.view(size: Self.size).text(ofRow: 23).hasSuffix("opening already"))
        _ = with.update(.message(.opened(url: "https://example.com/a/very/long/path", failure: nil)))
        // A start returns at once when the browser goes to the background: the key held on
        // starts none for a few seconds (from the second attack: 60 browsers for 60 repeats).
        for _ in 0..<50 { #expect(with.update(.key(.character("o"))).isEmpty) }
        _ = with.update(.tick(Self.now.addingTimeInterval(4)))
        #expect(Self.tasks(with.update(.key(.character("o")))) == ["-"])
        screen.onKey = [.open(url: "file:///etc/passwd")]
        var local = Self.browser(screen, browserCommand: "firefox")
        #expect(local.update(.key(.character("o"))).isEmpty)
        #expect(local.view(size: Self.size).text(ofRow: 23).hasSuffix("not a web link: file:///etc/passwd"))
    }

    @Test func belowFortyByTenTheScreenSaysItIsTooSmallWithinItsWidth() {
        let browser = Self.browser()
        #expect(browser.view(size: TerminalSize(columns: 39, rows: 10)).text(ofRow: 0) == "terminal too small: 40×10 at least")
        #expect(browser.view(size: TerminalSize(columns: 20, rows: 5)).text == "terminal too small:\n40×10 at least\n\n\n")
    }

    @Test func whatTheClientNoticedIsAskedForEachTickSaidOnceAndListedInTheHelp() {
        var browser = Self.browser()
        let effects = browser.update(.tick(Self.now))
        #expect(Self.tasks(effects) == ["notices"])
        // One question at a time.
        #expect(Self.tasks(browser.update(.tick(Self.now))).isEmpty)
        let unwritable = Notice(kind: .cache, code: ErrorCode(.cache, 1003), message: "the cache cannot be written (/tmp/c.sqlite); carrying on without storing")
        _ = browser.update(.message(.notices([unwritable, Notice(kind: .staleData, code: ErrorCode(.transport, 1004), message: "served a copy")])))
        // Until the next key it takes the bottom line, whole.
        #expect(browser.view(size: Self.size).text(ofRow: 23) == "the cache cannot be written (/tmp/c.sqlite); carrying on without storing · C1003")
        #expect(browser.notices.keys.sorted() == ["C1003"])
        _ = browser.update(.key(.character("x")))
        #expect(Self.tasks(browser.update(.tick(Self.now))) == ["notices"])
        _ = browser.update(.message(.notices([unwritable])))
        // Said once; counted each time.
        #expect(browser.view(size: Self.size).text(ofRow: 23) == "r/python · hot · 3 posts")
        _ = browser.update(.key(.character("?")))
        #expect(browser.view(size: Self.size).text.contains("  C1003 ×2: the cache cannot be written (/tmp/c.sqlite); carrying on without\n  storing"))
    }

    @Test func rWhileTheScreenIsLoadingSendsNothingMore() {
        var browser = Self.browser(RecordingScreen(refreshWith: [Self.load("list", .refresh)]))
        #expect(Self.tasks(browser.update(.key(.character("r")))) == ["0:list"])
        // Held down, the key repeats: one request, not one a repeat.
        for _ in 0..<5 { #expect(browser.update(.key(.character("r"))).isEmpty) }
        #expect(browser.view(size: Self.size).text(ofRow: 23).hasSuffix("loading already"))
        _ = browser.update(Self.answer("list", .loaded(Self.metadata())))
        #expect(Self.tasks(browser.update(.key(.character("r")))) == ["0:list"])
    }

    @Test func aNoteWiderThanTheTerminalIsShownWholeOnTheRowsAboveTheBottomLine() {
        let url = "https://example.com/" + String(repeating: "abcdefghij", count: 6) + "/end"
        var screen = RecordingScreen()
        screen.onKey = [.open(url: url)]
        var browser = Self.browser(screen)
        _ = browser.update(.key(.character("o")))
        let view = browser.view(size: TerminalSize(columns: 40, rows: 10))
        #expect(view.text(ofRow: 7) == "https://example.com/abcdefghijabcdefghij")
        #expect(view.text(ofRow: 8) == "abcdefghijabcdefghijabcdefghijabcdefghij")
        #expect(view.text(ofRow: 9) == "/end")
        #expect(view.text(ofRow: 0) == "content of r/python")
    }

    @Test func aBrowserThatCannotRunSaysSo() {
        #expect(LinkOpener.open("https://example.com/", with: "no-such-browser-for-reader-tests")?
            .hasPrefix("BROWSER cannot be run: no-such-browser-") == true)
        #expect(LinkOpener.open("https://example.com/", with: "true") == nil)
    }

    @Test func aPassingNoteGoesByItselfANoteToReadWaitsForAKey() {
        var browser = Self.browser(RecordingScreen(refreshWith: [Self.load("list", .refresh)]))
        _ = browser.update(.key(.character("r")))
        _ = browser.update(.key(.character("r")))
        #expect(browser.view(size: Self.size).text(ofRow: 23).hasSuffix("loading already"))
        _ = browser.update(.tick(Self.now.addingTimeInterval(3)))
        #expect(browser.view(size: Self.size).text(ofRow: 23).hasSuffix("loading already"))
        _ = browser.update(.tick(Self.now.addingTimeInterval(4)))
        #expect(browser.view(size: Self.size).text(ofRow: 23) == "r/python · hot · 3 posts")
        // A link to read stays.
        var screen = RecordingScreen()
        screen.onKey = [.open(url: "https://example.com/x")]
        var linked = Self.browser(screen)
        _ = linked.update(.key(.character("o")))
        _ = linked.update(.tick(Self.now.addingTimeInterval(60)))
        #expect(linked.view(size: Self.size).text(ofRow: 23).hasSuffix("https://example.com/x"))
    }

    @Test func aNoteOverTheScreenLeavesNothingOfWhatWasUnderIt() {
        var screen = RecordingScreen(fills: true)
        screen.onKey = [.say(String(repeating: "word ", count: 12) + "end")]
        var browser = Self.browser(screen, size: TerminalSize(columns: 40, rows: 10))
        _ = browser.update(.key(.character("o")))
        let view = browser.view(size: TerminalSize(columns: 40, rows: 10))
        #expect(view.text(ofRow: 7) == String(repeating: "#", count: 40))
        // 39 cells of note, and not the screen's last cell beside them.
        #expect(view.text(ofRow: 8) == "word word word word word word word word")
        #expect(view.text(ofRow: 9) == "word word word word end")
    }

    @Test func aLinkLongerThanHalfTheScreenShowsItsStartAndSaysItIsCut() {
        var screen = RecordingScreen()
        screen.onKey = [.open(url: "https://example.com/" + String(repeating: "a", count: 300) + "/END")]
        var browser = Self.browser(screen, size: TerminalSize(columns: 40, rows: 10))
        _ = browser.update(.key(.character("o")))
        let view = browser.view(size: TerminalSize(columns: 40, rows: 10))
        // Half the screen, from the link's start.
        #expect(view.text(ofRow: 4).isEmpty)
        #expect(view.text(ofRow: 5) == "https://example.com/aaaaaaaaaaaaaaaaaaaa")
        #expect(view.text(ofRow: 9) == String(repeating: "a", count: 39) + "…")
    }

    @Test func aPromptShowsTheEndOfWhatWasTyped() {
        var browser = Self.browser(size: TerminalSize(columns: 40, rows: 10))
        _ = browser.update(.key(.character("s")))
        for character in String(repeating: "漢", count: 30) + "xyz" { _ = browser.update(.key(.character(character))) }
        // 6 cells after the label, and the cursor's last.
        #expect(browser.view(size: TerminalSize(columns: 40, rows: 10)).text(ofRow: 9)
                == "go to (subreddit, r/a+b, swapi): 漢xyz")
    }

    @Test func aCopyShownForAUsedUpRateLimitSaysUntilWhen() async {
        let reset = Self.now.addingTimeInterval(25 * 60)
        var browser = Self.browser(RecordingScreen(service: RedditService.name), rateLimitedUntil: reset)
        let effects = browser.update(Self.answer("list", Self.served(insteadOf: .rateLimited(RateLimitFailure(service: RedditService.name, origin: "https://www.reddit.com", resetAt: reset)), age: 60)))
        #expect(Self.tasks(effects) == ["rate limit"])
        let scheduled = await Self.run(effects, on: &browser)
        guard scheduled.count == 1, case .after(let wait, .rateLimitEnded) = scheduled[0] else { Issue.record("\(scheduled)"); return }
        #expect(wait == .seconds(25 * 60 + 1))
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm"
        formatter.timeZone = .current
        #expect(browser.view(size: Self.size).text(ofRow: 23)
                == "r/python · hot · 3 posts  copy from 1 min ago · rate limited until \(formatter.string(from: reset)) · R1003")
        // At 40 columns the code stays whole.
        #expect(browser.view(size: TerminalSize(columns: 40, rows: 10)).text(ofRow: 9).hasSuffix(" R1003"))
        // When the limit resets, the screen is asked for again with no key pressed.
        _ = browser.update(.tick(reset.addingTimeInterval(1)))
        #expect(Self.tasks(browser.update(.message(.rateLimitEnded))).isEmpty, "the screen here asks for nothing on refresh")
        #expect((browser.stack[0].screen as? RecordingScreen)?.events.last == "refresh")
        // Once the network answers, the limit is history.
        _ = browser.update(Self.answer("list", .loaded(Self.metadata())))
        #expect(browser.rateLimitedUntil == nil)
    }
}
