import Foundation
import ReaderKit

/// When the ``Browser``'s loads run and with which options: at most ``backgroundLimit``
/// background loads at once, keeping the last tenth of an announced rate limit; the probe of
/// the screen on top while the service cannot be reached; the screen asked for again after a
/// rate limit's reset.
///
/// A value with no effects of its own: given what a screen asks for and what answered, it
/// decides, and the browser runs what it decides. `Work` is what a load runs (the browser's is
/// a screen's closure; the tests' a name). Loads are named by their task id, "screen:id"
/// (``taskID(_:_:)``).
struct BrowseScheduler<Work: Sendable>: Sendable {
    /// The most background loads running at once.
    static var backgroundLimit: Int { 4 }
    /// The share of an announced rate limit that background loads leave to the foreground.
    static var backgroundReserve: Double { 0.1 }
    /// How long one probe waits for the service before another starts.
    static var probeLength: Duration { .seconds(300) }
    /// The pause before probing again when a probe ended at once (a failure the wait for
    /// connectivity does not cover): never a busy loop.
    static var probePause: Duration { .seconds(5) }
    /// The longest wait for a rate limit's reset that is waited for on screen.
    static var longestResetWait: TimeInterval { 24 * 3600 }

    /// What to do with a load a screen asks for.
    enum Decision: Sendable {
        /// Nothing: the same background load is running already, or a probe met background work.
        case skip
        /// Queued for the background: ``startQueued(options:)`` says what starts.
        case queued
        /// Run now with `options`, its answer coming back as `pass`.
        case run(LoadOptions, Pass)
    }

    /// How a load run now answers.
    enum Pass: Sendable, Equatable {
        /// From the cache only; the network pass (a ``LoadKind/current`` load) follows when the
        /// copy is stale or missing.
        case cachedFirst
        /// In the foreground, a probe's or not.
        case foreground(probe: Bool)
    }

    /// What a probe's end or the service going offline asks for.
    enum OfflineStep: Sendable, Equatable {
        /// Nothing: a probe runs or waits already, or loads do not touch the network (`--offline`).
        case nothing
        /// Probe the screen on top now.
        case probeNow
        /// Probe again after ``probePause`` (``probeAgain()``).
        case probeAfterPause
    }

    /// A background load waiting for a free place.
    struct Background: Sendable {
        var screen: Int
        var id: String
        var work: Work
    }

    /// The background loads waiting for a place, in order.
    private(set) var queued: [Background] = []
    /// The background loads running ("screen:id").
    private(set) var backgroundRunning: Set<String> = []
    /// The screen being probed, while offline.
    private(set) var probing: Int?
    /// The probe's loads running ("screen:id"): a load of the same screen and id replaces one,
    /// and when none is left the probe is over.
    private(set) var probeTasks: Set<String> = []
    /// Whether a probe waits for ``probePause``.
    private(set) var probePending = false

    static func taskID(_ screen: Int, _ id: String) -> String { "\(screen):\(id)" }

    /// The background loads waiting for a place, in order ("screen:id").
    var waiting: [String] { queued.map { Self.taskID($0.screen, $0.id) } }

    /// What to do with load `id` of `screen`, of `kind`.
    /// - Parameters:
    ///   - probe: whether it is the probe of a screen while offline (a refresh that waits for
    ///     connectivity, for ``probeLength``).
    ///   - options: the options of every load now (`--offline`, `--refresh`, the deadline).
    ///   - now: the time its deadline counts from, for a probe.
    mutating func load(_ id: String, of screen: Int, kind: LoadKind, work: Work, probe: Bool, options: LoadOptions,
                       now: ContinuousClock.Instant) -> Decision {
        var options = options
        let byChoice = options.cacheMode == .offline
        let task = Self.taskID(screen, id)
        switch kind {
        case .background:
            // Running already: the same request is not sent again.
            guard !probe, !backgroundRunning.contains(task) else { return .skip }
            queued.removeAll { $0.screen == screen && $0.id == id }
            queued.append(Background(screen: screen, id: id, work: work))
            return .queued
        case .cacheFirst where !byChoice && !probe:
            options.cacheMode = .offline
            forgetProbe(task)
            return .run(options, .cachedFirst)
        case .refresh where !byChoice:
            options.cacheMode = .refresh
        case .cacheFirst, .current, .refresh:
            break
        }
        if probe, !byChoice {
            options.cacheMode = .refresh
            options.waitForConnectivity = true
            options.deadline = now.advanced(by: Self.probeLength)
            probeTasks.insert(task)
        } else {
            forgetProbe(task)
        }
        return .run(options, .foreground(probe: probe))
    }

    /// The queued background loads that start now, while there is room, each with `options`
    /// in the background mode and keeping ``backgroundReserve`` of a rate limit.
    mutating func startQueued(options: LoadOptions) -> [(load: Background, options: LoadOptions)] {
        var background = options
        background.mode = .background
        background.rateLimitReserve = Self.backgroundReserve
        var started: [(load: Background, options: LoadOptions)] = []
        while backgroundRunning.count < Self.backgroundLimit, !queued.isEmpty {
            let next = queued.removeFirst()
            backgroundRunning.insert(Self.taskID(next.screen, next.id))
            started.append((next, background))
        }
        return started
    }

    /// Load `id` of `screen` is cancelled, running or queued (``startQueued(options:)`` then
    /// fills its place).
    mutating func cancel(_ id: String, of screen: Int) {
        let task = Self.taskID(screen, id)
        forgetProbe(task)
        queued.removeAll { $0.screen == screen && $0.id == id }
        backgroundRunning.remove(task)
    }

    /// Drops the background load `id` of `screen` if it waits; whether it did.
    mutating func dropQueued(_ id: String, of screen: Int) -> Bool {
        let waiting = queued.count
        queued.removeAll { $0.screen == screen && $0.id == id }
        return queued.count < waiting
    }

    /// Stops the background work of `screen` (covered or closed): the queued go, and the
    /// running are returned, sorted, to be cancelled.
    mutating func stopBackground(of screen: Int) -> [String] {
        queued.removeAll { $0.screen == screen }
        let prefix = "\(screen):"
        let stopped = backgroundRunning.filter { $0.hasPrefix(prefix) }
        backgroundRunning.subtract(stopped)
        return stopped.sorted()
    }

    /// Background load `id` of `screen` answered: its place is free.
    mutating func backgroundAnswered(_ id: String, of screen: Int) {
        backgroundRunning.remove(Self.taskID(screen, id))
    }

    /// A foreground load answered; whether it ended the probe (its last load).
    mutating func foregroundAnswered(_ id: String, of screen: Int, probe: Bool) -> Bool {
        guard probe, probeTasks.remove(Self.taskID(screen, id)) != nil, probeTasks.isEmpty else { return false }
        probing = nil
        return true
    }

    /// Other work under `task` replaces the probe's there: the probe is over when none of its
    /// loads is left.
    mutating func forgetProbe(_ task: String) {
        guard probeTasks.remove(task) != nil, probeTasks.isEmpty else { return }
        probing = nil
    }

    /// The probe of `screen` started: it is probing when it has a load to wait for (a screen
    /// with nothing to load again probes nothing).
    mutating func probeStarted(on screen: Int) {
        if !probeTasks.isEmpty { probing = screen }
    }

    /// The probe is over (its screen closed).
    mutating func endProbe() {
        probeTasks = []
        probing = nil
    }

    /// Whether a probe may start now: none runs or waits, and loads may touch the network.
    func mayProbe(offlineByChoice: Bool) -> Bool {
        probing == nil && !probePending && !offlineByChoice
    }

    /// The service could not be reached: what to probe.
    /// - Parameter afterProbe: whether a probe just ended so: the next one waits ``probePause``.
    mutating func wentOffline(afterProbe: Bool, offlineByChoice: Bool) -> OfflineStep {
        guard mayProbe(offlineByChoice: offlineByChoice) else { return .nothing }
        guard afterProbe else { return .probeNow }
        probePending = true
        return .probeAfterPause
    }

    /// The pause after a probe is over; whether to probe now (nothing probes meanwhile).
    mutating func probeAgain() -> Bool {
        probePending = false
        return probing == nil
    }

    /// How long after `now` to ask again for what a rate limit reset at `until` kept from the
    /// screen: a second after the reset; nil for a reset further than ``longestResetWait``.
    static func waitForReset(at until: Date, now: Date) -> Duration? {
        let wait = until.timeIntervalSince(now)
        guard wait.isFinite, wait < longestResetWait else { return nil }
        return .milliseconds(Int(max(0, wait) * 1000) + 1000)
    }
}
