import Foundation
import Testing
import TestSupport

/// A fault signal sent to an ordinary command (issue 30 item 3): a watchdog's `kill -ABRT` or
/// `timeout -s SEGV` ends a hung reader by the signal, with no crash report, as browse already did.
@Suite(.processSlot) struct FaultSignalsSentByKillEndToEndTests {
    @Test(arguments: [SIGABRT, SIGSEGV])
    func aFaultSignalSentByKillEndsACommandByTheSignal(_ signal: Int32) async throws {
        try await withTestServer { _ in .hang } body: { server in
            let reader = ReaderProcess(server: server)
            let running = try reader.launch(["films", "1", "--timeout", "60s"])
            defer { if running.process.isRunning { running.process.terminate() } }
            // Blocked on a server that never answers: the request has come.
            #expect(await waitUntil { server.requests.count == 1 }, "reader never asked")
            kill(running.process.processIdentifier, signal)
            let result = await running.wait()
            #expect(running.process.terminationReason == .uncaughtSignal && result.status == signal,
                    "\(running.process.terminationReason) \(result.status) \(result.stderr.prefix(400))")
            for crashText in ["Crash", "crash", "Backtrac", "Thread 0"] {
                #expect(!result.stderr.contains(crashText), "\(crashText): \(result.stderr.prefix(400))")
            }
        }
    }
}
