import Foundation
import NIOCore
import TestSupport

// The benchmarks' server: the loopback server the tests use, holding the whole SWAPI data set
// (every page and resource, real shape) and the recorded Reddit listings, with an optional delay
// before each answer so that a bulk read shows what concurrency buys. It prints its port, then
// serves until it is killed.
//
//     ReaderBenchServer [--delay-ms N]

let arguments = Array(CommandLine.arguments.dropFirst())
let delayMilliseconds: Int64
switch arguments.count {
case 0: delayMilliseconds = 0
case 2 where arguments[0] == "--delay-ms" && (Int64(arguments[1]) ?? -1) >= 0: delayMilliseconds = Int64(arguments[1])!
default:
    FileHandle.standardError.write(Data("usage: ReaderBenchServer [--delay-ms N]\n".utf8))
    exit(64)
}

let dataSet = SWAPIDataSet()
let delay = TimeAmount.milliseconds(delayMilliseconds)
let server = try await TestServer { [delayMilliseconds] request in
    let reply = dataSet.reply(to: request) ?? Fixtures.route(request)
    return delayMilliseconds > 0 ? .delayed(delay, reply) : reply
}
FileHandle.standardOutput.write(Data("\(server.port)\n".utf8))
while true { try await Task.sleep(for: .seconds(3600)) }
