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
public protocol BrowseScreen: Sendable {
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
    /// By default a screen is no list: `/` says so.
    public var filters: Bool { false }
    /// By default a screen has no keys of its own.
    public var keys: [KeyHelp] { [] }
    /// By default a screen's data is of no named service.
    public var service: ServiceName? { nil }
}
