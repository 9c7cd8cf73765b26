#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Testing
import TestSupport
@testable import ReaderTerminal

extension OnAPseudoTerminal {
    /// The terminal borrowed and given back, on a real pseudo-terminal; and keys and sizes read
    /// from it. (The ways out by a signal end the process: the end-to-end tests drive them.)
    @Suite struct TerminalSessionTests {
        @Test func rawModeTheAlternateScreenThenEverythingGivenBackExactly() async throws {
            let terminal = try PseudoTerminal()
            defer { terminal.close() }
            let before = terminal.attributes
            let session = try TerminalSession(input: terminal.follower, output: terminal.follower, environment: ["TERM": "xterm"])
            var raw = termios()
            tcgetattr(terminal.follower, &raw)
            #expect(raw.c_lflag & tcflag_t(ICANON | ECHO | ISIG) == 0)
            #expect(terminal.attributes != before)
            #expect(await terminal.waitForOutput(containing: "\u{1B}[?1049h\u{1B}[?25l\u{1B}[?7l\u{1B}[0m\u{1B}[2J"))
            session.restore()
            #expect(terminal.attributes == before)
            #expect(await terminal.waitForOutput(containing: "\u{1B}[0m\u{1B}[?7h\u{1B}[?25h\u{1B}[?1049l"))
            // Once: a second restore writes nothing more.
            let written = terminal.output
            session.restore()
            #expect(terminal.attributes == before)
            #expect(terminal.output == written)
        }

        @Test func notATerminalOrADumbOneIsRefusedAndNothingChanges() throws {
            var ends: [Int32] = [-1, -1]
            #expect(pipe(&ends) == 0)
            defer { close(ends[0]); close(ends[1]) }
            let terminal = try PseudoTerminal()
            defer { terminal.close() }
            let before = terminal.attributes
            #expect(throws: TerminalUnavailable.inputIsNotATerminal) {
                _ = try TerminalSession(input: ends[0], output: terminal.follower, environment: [:])
            }
            #expect(throws: TerminalUnavailable.outputIsNotATerminal) {
                _ = try TerminalSession(input: terminal.follower, output: ends[1], environment: [:])
            }
            #expect(throws: TerminalUnavailable.dumbTerminal) {
                _ = try TerminalSession(input: terminal.follower, output: terminal.follower, environment: ["TERM": "dumb"])
            }
            #expect(terminal.attributes == before)
            #expect(terminal.output == "")
        }

        @Test func keysAndANewSizeComeAsEventsInOrder() async throws {
            let terminal = try PseudoTerminal(columns: 80, rows: 24)
            defer { terminal.close() }
            let session = try TerminalSession(input: terminal.follower, output: terminal.follower, environment: [:])
            defer { session.restore() }
            #expect(session.size == TerminalSize(columns: 80, rows: 24))
            let events = EventLog()
            let reader = InputReader(session: session) { events.append($0) }
            reader.start()
            terminal.type(Array("j\u{1B}[Aé".utf8))
            #expect(await events.wait(forCount: 3))
            // A lone Esc: decided when nothing follows.
            terminal.type([0x1B])
            #expect(await events.wait(forCount: 4))
            terminal.resize(columns: 100, rows: 30)
            // The pseudo-terminal signals its own process group, not this process: signal it here.
            kill(getpid(), SIGWINCH)
            #expect(await events.wait(forCount: 5))
            reader.stop()
            #expect(events.all == [.key(.character("j")), .key(.up), .key(.character("é")), .key(.escape),
                                   .resize(TerminalSize(columns: 100, rows: 30))])
        }
    }
}

/// Events as they came, from the reader's thread.
final class EventLog: @unchecked Sendable {
    private let lock = NSCondition()
    private var events: [TerminalEvent] = []

    func append(_ event: TerminalEvent) {
        lock.lock()
        events.append(event)
        lock.broadcast()
        lock.unlock()
    }

    var all: [TerminalEvent] {
        lock.lock()
        defer { lock.unlock() }
        return events
    }

    /// Waits, up to a generous bound, for `count` events; whether they came.
    func wait(forCount count: Int) async -> Bool {
        await waitUntil(within: .seconds(20), every: .milliseconds(10)) { self.all.count >= count }
    }
}
