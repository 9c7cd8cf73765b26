// Examples/Films/main.swift: the Star Wars films, then a subreddit's posts, through ReaderKit.
//     swift run films-example [SUBREDDIT]
import Foundation
import ReaderKit

/// Says what failed and what to do, and returns the exit code to end with.
func report(_ error: ReaderError, hints: [Hint]) -> Int32 {
    print("error \(error.code): \(error.message)")
    print("  hint: \(hints.text)")
    print("  exit code \(error.exitCode)")
    return error.exitCode.rawValue
}

let subreddit = CommandLine.arguments.dropFirst().first ?? "swift"
let cachePath = FileManager.default.temporaryDirectory.appendingPathComponent("films-example.sqlite").path
let client: ReaderClient
let films: Endpoint<SWAPIPage<Film>>
let posts: Endpoint<RedditListing>
do throws(ReaderError) {
    // READER_SWAPI_URL, READER_REDDIT_URL… say where the services are; unset, the public ones.
    let services = try ServiceConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
    client = ReaderClient(configuration: .init(services: services, cachePath: cachePath, timeout: .seconds(10)))
    films = try SWAPI.list(Film.self)
    posts = try Reddit.posts(subreddit: subreddit, limit: 5)
} catch {
    // A variable that is not a URL, a name Reddit cannot have: found before any request.
    exit(report(error, hints: error.hints()))
}

var status: Int32 = 0
do throws(LoadFailure) {
    let page = try await client.load(films)
    for film in page.value.results.sorted(by: { $0.episodeID < $1.episodeID }) {
        print("Episode \(film.episodeID): \(TerminalText.sanitise(film.title)) (\(film.releaseDate))")
    }
    // Posts change by the minute: ask the network each time. When it fails, the copy cached
    // last time is served instead, and the metadata says why.
    let listing = try await client.load(posts, options: LoadOptions(cacheMode: .refresh))
    for post in listing.value.posts { print("\(post.score.map(String.init) ?? "–") \(TerminalText.sanitise(post.title))") }
    if let code = listing.metadata.errorCode {
        print("(posts from the cache, \(listing.metadata.ageSeconds) s old: the request failed with \(code))")
    }
} catch {
    status = report(error.error, hints: error.hints)
}
for (notice, count) in await client.notices.drain() {
    print("notice \(notice.code): \(notice.message)\(count > 1 ? " (\(count) times)" : "")")
}
await client.shutdown()  // closes the connections; leaves what was stored in the cache file itself
exit(status)
