import Foundation
import NIOCore
import TestSupport

// The benchmarks' server: the loopback server the tests use, holding the whole SWAPI data set
// (every page and resource, real shape) and the recorded Reddit listings, with an optional delay
// before each answer so that a bulk read shows what concurrency buys, and optionally a people
// collection of N pages of about 1 MB each (``PaddedPeople``), for the memory benchmarks, and
// optionally a file's JSON as every post's comment page (`/comments/ID.json`: the synthetic
// thread of `ReaderBrowseBench thread-json`). It prints its port, then serves until it is killed.
//
//     ReaderBenchServer [--delay-ms N] [--people-pages N] [--people-films N] [--comments-file PATH]
//
// `--people-films 0` makes the padded people light (no film links on a page): 1,000 pages are a
// 10,000-row collection of a few MB, for the idle browse benchmark (bench/browse_idle.sh).

/// The server's options, checked: a value that is no whole number in its range is refused with
/// the usage, never trapped on.
struct Options {
    var delayMilliseconds: Int64 = 0
    var peoplePages: Int?
    var peopleFilms = 3_200
    var commentsFile: String?

    static let usage = "usage: ReaderBenchServer [--delay-ms N (0…60000)] [--people-pages N (1…1000)] [--people-films N (0…3200)] [--comments-file PATH]\n"

    init?(_ arguments: [String]) {
        var rest = arguments[...]
        var seen = Set<String>()
        while let name = rest.popFirst() {
            guard seen.insert(name).inserted, let text = rest.popFirst() else { return nil }
            switch name {
            case "--delay-ms":
                guard let value = Int64(text), (0...60_000).contains(value) else { return nil }
                delayMilliseconds = value
            case "--people-pages":
                guard let value = Int(text), (1...1_000).contains(value) else { return nil }
                peoplePages = value
            case "--people-films":
                guard let value = Int(text), (0...3_200).contains(value) else { return nil }
                peopleFilms = value
            case "--comments-file":
                commentsFile = text
            default:
                return nil
            }
        }
    }
}

guard let options = Options(Array(CommandLine.arguments.dropFirst())) else {
    FileHandle.standardError.write(Data(Options.usage.utf8))
    exit(64)
}

let dataSet = SWAPIDataSet()
let people = options.peoplePages.map { PaddedPeople(pages: $0, filmsOnAPage: options.peopleFilms, filmsAlone: min(320, options.peopleFilms)) }
let delay = TimeAmount.milliseconds(options.delayMilliseconds)
let commentPage = try options.commentsFile.map { [UInt8](try Data(contentsOf: URL(fileURLWithPath: $0))) }
let server = try await TestServer { [delayMilliseconds = options.delayMilliseconds] request in
    var reply = people?.reply(to: request) ?? dataSet.reply(to: request) ?? Fixtures.route(request)
    if let commentPage, request.path.hasPrefix("/comments/"), request.path.hasSuffix(".json") {
        reply = .json(commentPage, headers: [("Cache-Control", "max-age=0, must-revalidate")])
    }
    return delayMilliseconds > 0 ? .delayed(delay, reply) : reply
}
FileHandle.standardOutput.write(Data("\(server.port)\n".utf8))
while true { try await Task.sleep(for: .seconds(3600)) }
