import ReaderKit

/// Work a screen asks of the browser.
public enum ScreenEffect: Sendable {
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
