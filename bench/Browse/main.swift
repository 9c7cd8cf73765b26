import Foundation
import ReaderCLI
import ReaderTerminal

// `reader browse` measured in the process (BrowseMeasurements.swift), for bench/run: a screen at
// 80×24 holding synthetic data, `↓` pressed to the end and `↑` back to the top, each key's time to
// its finished frame, bytes written and cells changed, as JSON; three walks, each on a browser of
// its own, so that a key slowed by the machine's neighbours in one can be told from a slow frame.
// Or the synthetic thread's page itself, for the bench server to serve (`--comments-file`).
//
//     ReaderBrowseBench list [--posts N]           a post list of N posts (1000)
//     ReaderBrowseBench thread [--comments N]      a post with N comments (5000)
//     ReaderBrowseBench thread-json [--comments N] the thread's page, as Reddit sends it

let usage = "usage: ReaderBrowseBench list [--posts N] | thread [--comments N] | thread-json [--comments N] (N: 1…100000)\n"
let arguments = Array(CommandLine.arguments.dropFirst())
func fail() -> Never {
    FileHandle.standardError.write(Data(usage.utf8))
    exit(64)
}
guard let mode = arguments.first else { fail() }
var count = mode == "list" ? 1_000 : 5_000
switch arguments.count {
case 1: break
case 3 where (mode == "list" && arguments[1] == "--posts") || (mode != "list" && arguments[1] == "--comments"):
    guard let value = Int(arguments[2]), (1...100_000).contains(value) else { fail() }
    count = value
default: fail()
}

let size = TerminalSize(columns: 80, rows: 24)
do {
    switch mode {
    case "thread-json":
        FileHandle.standardOutput.write(try BrowseMeasurements.syntheticThread(comments: count))
        exit(0)
    case "list", "thread":
        let subject: BrowseMeasurements.Subject
        if mode == "list" {
            subject = .postList(posts: count)
        } else {
            subject = .thread(try BrowseMeasurements.syntheticThread(comments: count))
        }
        let walks = try (0..<3).map { _ in try BrowseMeasurements.scroll(subject, size: size, colour: true) }
        let scroll = walks[0]
        let result: [String: Any] = [
            "subject": mode, "count": count, "columns": size.columns, "rows": size.rows, "colour": true,
            "answer_ns": walks.map(\.answerNanoseconds), "downs": scroll.downs, "key_ns": walks.map(\.keyNanoseconds),
            "bytes": scroll.bytes, "changed_cells": scroll.changedCells, "first_screen": scroll.firstScreen,
        ]
        FileHandle.standardOutput.write(try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys]))
        FileHandle.standardOutput.write(Data("\n".utf8))
    default:
        fail()
    }
} catch {
    FileHandle.standardError.write(Data("ReaderBrowseBench: \(error)\n".utf8))
    exit(70)
}
