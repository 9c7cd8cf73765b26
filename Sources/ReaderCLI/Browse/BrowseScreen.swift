import Foundation
import ReaderKit
import ReaderTerminal

/// One screen of `reader browse`: a service's post list, a post and its comments, a SWAPI
/// resource. Screens sit on the ``Browser``'s stack; the browser draws the bottom line, the
/// help, the banner of a failure and the prompts, owns the keys every screen shares (back,
/// quit, refresh, help, `s`, `/`), and runs the loads screens ask for, in the foreground, from
/// the cache first, or in the background.
///
/// A screen is a value with the Elm shape of ``Model``: ``handle(_:in:)`` is its only change,
/// and it asks for work by returning ``ScreenEffect``s, so it is tested without a terminal.
protocol BrowseScreen: Sendable {
    /// Where this is, for the bottom line's left, from the longest form to the shortest; the
    /// widest that fits is shown (`r/python · hot · 25 posts`, `r/python · hot`, `r/python`).
    var place: [String] { get }

    /// The metadata of the data on screen: the bottom line says how old it is when it is not
    /// fresh. Nil while nothing is shown.
    var shown: LoadMetadata? { get }

    /// Whether there is something to show: without it, a failed load's banner takes the place
    /// of the screen.
    var hasContent: Bool { get }

    /// Whether `/` filters this screen (it is a list).
    var filters: Bool { get }

    /// This screen's own keys, for the help screen (`Space`: fold or unfold a comment).
    var keys: [KeyHelp] { get }

    /// The service whose data this is (for what the client knows of it: a rate limit's reset).
    var service: ServiceName? { get }

    /// The work to start with when the screen is pushed (its load, from the cache first).
    func start(in layout: ScreenLayout) -> [ScreenEffect]

    /// The next state from `event`, and the work it asks for. Keys the browser owns (`q`,
    /// `Esc`, `?`, `r`, `s`, `/`, `Ctrl-c`) never come here: `r` comes as
    /// ``ScreenEvent/refresh``.
    mutating func handle(_ event: ScreenEvent, in layout: ScreenLayout) -> [ScreenEffect]

    /// Draws the screen into rows `0..<layout.rows` of `grid` (the row under them is the
    /// bottom line's).
    func draw(into grid: inout Grid, in layout: ScreenLayout)
}

extension BrowseScreen {
    var filters: Bool { false }
    var keys: [KeyHelp] { [] }
    var service: ServiceName? { nil }
}

/// The room a screen has and the time it is drawn at.
struct ScreenLayout: Sendable, Equatable {
    /// The terminal's width.
    var columns: Int
    /// The rows the screen has: all but the bottom line.
    var rows: Int
    /// The time now: ages on screen are measured to it.
    var now: Date
}

/// What reaches a screen.
enum ScreenEvent: Sendable {
    /// A key the browser does not own.
    case key(Key)
    /// The answer to one of the screen's ``ScreenEffect/load(id:_:_:)`` or ``ScreenEffect/run(id:_:)``.
    case answer(id: String, ScreenAnswer)
    /// `r`, or the network coming back: load what is shown again, as a conditional request.
    case refresh
    /// The text typed after `/`, at each key; empty when the filter is cleared.
    case filter(String)
    /// The terminal's size changed (the layout carries the new one).
    case resized
    /// The screen is on top again, a screen over it having been closed: what it started in the
    /// background was cancelled when it was covered.
    case appeared
    /// Time passed (the layout carries the time).
    case tick
}

/// Work a screen asks of the browser.
enum ScreenEffect: Sendable {
    /// A load through the client, with the options `kind` gives; its answer comes back as
    /// ``ScreenEvent/answer(id:_:)``. A load under an id still running replaces it.
    case load(id: String, LoadKind, @Sendable (LoadOptions) async -> ScreenAnswer)
    /// Other work (a visit recorded in the cache), answered the same way.
    case run(id: String, @Sendable () async -> ScreenAnswer)
    /// Cancels the screen's work under `id`; its answer is dropped.
    case cancel(id: String)
    /// Drops the screen's background load under `id` if it has not started (what scrolled out
    /// of view before its turn): it answers at once with ``NotStarted``. One running goes on.
    case dropQueued(id: String)
    /// Opens a screen over this one.
    case push(any BrowseScreen)
    /// Opens a link: `$BROWSER URL` when it is set, else the URL whole on the bottom line.
    case open(url: String)
    /// A short note on the bottom line until the next key (`no link in this post`).
    case say(String)
}

/// How a load may use the cache and the network.
enum LoadKind: Sendable, Equatable {
    /// From the cache at once, whatever its age; then, when the copy is stale or missing, from
    /// the network (a conditional request), whose answer comes as a second one. Under
    /// `--offline`, the cache only.
    case cacheFirst
    /// As a command loads (`--refresh` asks the network even for a fresh copy): a fresh
    /// copy, else the network, else a stale copy.
    case current
    /// From the network even when the copy is fresh, a conditional request (`r`).
    case refresh
    /// Prefetching: the ErrorHandler's background mode, never the last tenth of an announced
    /// rate limit, at most ``Browser/backgroundLimit`` at once; failures are counted for the
    /// help screen, never shown; cancelled when the screen is covered or closed.
    case background
}

/// What a screen's work answers with: what only the screen reads, and how its load went, which
/// the browser reads (offline, a banner, background failures counted).
struct ScreenAnswer: Sendable {
    var payload: any Sendable
    var report: LoadReport?

    init(_ payload: any Sendable, report: LoadReport? = nil) {
        self.payload = payload
        self.report = report
    }

    /// The answer of `load`: its value and metadata on success, else its failure as the CLI
    /// words it, with the report of either.
    static func of<Value: Sendable>(_ load: () async throws(LoadFailure) -> Loaded<Value>) async -> ScreenAnswer {
        do throws(LoadFailure) {
            let loaded = try await load()
            return ScreenAnswer(LoadResult<Value>.loaded(loaded.value, loaded.metadata), report: .loaded(loaded.metadata))
        } catch {
            let failure = BrowseFailure(error)
            return ScreenAnswer(LoadResult<Value>.failed(failure), report: .failed(failure))
        }
    }
}

/// The payload of the answer of a background load dropped before it started (``ScreenEffect/dropQueued(id:)``).
struct NotStarted: Sendable {}

/// The payload of ``ScreenAnswer/of(_:)``.
enum LoadResult<Value: Sendable>: Sendable {
    case loaded(Value, LoadMetadata)
    case failed(BrowseFailure)
}

/// How a load went, for the browser.
enum LoadReport: Sendable {
    case loaded(LoadMetadata)
    case failed(BrowseFailure)
}

/// A failed load as the screen shows it: the CLI's words, its code and hint.
struct BrowseFailure: Sendable, Equatable {
    var message: String
    var code: String
    var hint: String?
    /// Whether the service could not be reached (T1001, T1003, T1004, T1005, T1009): the
    /// browser is then offline and probes until it answers.
    var unreachable: Bool
    /// Whether the cache had nothing for an `--offline` or cache-first load (C1001).
    var notCached: Bool
    /// When a rate limit resets, for a rate-limited load.
    var rateLimitedUntil: Date?

    init(message: String, code: String, hint: String? = nil, unreachable: Bool = false, notCached: Bool = false,
         rateLimitedUntil: Date? = nil) {
        self.message = message
        self.code = code
        self.hint = hint
        self.unreachable = unreachable
        self.notCached = notCached
        self.rateLimitedUntil = rateLimitedUntil
    }

    init(_ failure: LoadFailure) {
        let error = failure.error
        var until: Date?
        if case .rateLimited(let limit) = error { until = limit.resetAt }
        var notCached = false
        if case .cache(let cache) = error, cache.reason == .notCached { notCached = true }
        // In the commands' words, as their `hint:` line says it.
        let hint = CLIWording.hint(failure.advice)
        self.init(message: CLIWording.message(of: error), code: error.code.description, hint: hint.isEmpty ? nil : hint,
                  unreachable: error.failureClass == .unreachable, notCached: notCached, rateLimitedUntil: until)
    }
}

/// One line of the help screen: keys and what they do.
struct KeyHelp: Sendable, Equatable {
    var keys: String
    var action: String

    init(_ keys: String, _ action: String) {
        self.keys = keys
        self.action = action
    }
}
