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
    /// The program loop on a real pseudo-terminal: keys in, frames out (only what changed), effects
    /// run and answered, a resize redrawn whole, and every running effect cancelled at the end.
    @Suite struct ProgramRunnerTests {
        /// A counter: `j` adds one, `l` asks a task for ten, `t` a timer for a hundred, `w` starts work
        /// that never answers, `q` quits and Ctrl-c interrupts.
        struct Counter: Model {
            enum Message: Sendable, Equatable { case add(Int) }
            var count = 0
            var size: TerminalSize?
            var ticks = 0
            var keys: [Key] = []
        /// How many tasks of `w` saw their cancellation.
        let cancelled = Counted()

            func start() -> [Effect<Message>] { [] }

            mutating func update(_ event: ProgramEvent<Message>) -> [Effect<Message>] {
                switch event {
                case .key(let key):
                    keys.append(key)
                    switch key {
                    case .character("j"): count += 1
                    case .character("l"): return [.task(id: nil) { .add(10) }]
                    case .character("t"): return [.after(.seconds(5), .add(100))]
                    case .character("w"):
                    let cancelled = self.cancelled
                    return [.task(id: "forever") {
                        try? await Task.sleep(for: .seconds(3600))
                        if Task.isCancelled { _ = cancelled.increment() }
                        return .add(1000)
                    }]
                case .character("x"): return [.cancel(id: "forever")]
                    case .character("q"): return [.quit(.finished)]
                    case .control("c"): return [.quit(.interrupted)]
                    default: break
                    }
                case .message(.add(let amount)): count += amount
                case .resize(let size): self.size = size
                case .tick: ticks += 1
                }
                return []
            }

            func view(size: TerminalSize) -> Grid {
                var grid = Grid(size: size)
                grid.draw("count: \(count)", x: 0, y: 0)
                return grid
            }
        }

        /// Runs `model` on `terminal` in a task; the test types, then awaits the task's value.
        private func start(_ model: Counter, on terminal: PseudoTerminal, ticks: Duration? = nil,
                           sleep: @escaping ProgramRunner<Counter>.Sleeper = { _ in }) throws -> Task<(model: Counter, end: ProgramEnd), Never> {
            let session = try TerminalSession(input: terminal.follower, output: terminal.follower, environment: [:])
            let runner = ProgramRunner<Counter>(session: session, colour: true, tickInterval: ticks, now: { Date(timeIntervalSince1970: 0) }, sleep: sleep)
            return Task {
                let result = await runner.run(model)
                session.restore()
                return result
            }
        }

        @Test func keysUpdateTheModelAndOnlyTheChangedCellIsWritten() async throws {
            let terminal = try PseudoTerminal(columns: 20, rows: 3)
            defer { terminal.close() }
            let running = try start(Counter(), on: terminal)
            #expect(await terminal.waitForOutput(containing: "\u{1B}[0m\u{1B}[2J\u{1B}[1;1H\u{1B}[0mcount: 0"))
            terminal.type(Array("j".utf8))
            #expect(await terminal.waitForOutput(containing: "count: 0\u{1B}[1;8H\u{1B}[0m1"))
            terminal.type(Array("jq".utf8))
            let (model, end) = await running.value
            #expect(model.count == 2)
            #expect(end == .finished)
            #expect(model.keys == [.character("j"), .character("j"), .character("q")])
            #expect(await terminal.waitForOutput(containing: "\u{1B}[1;8H\u{1B}[0m2\u{1B}[0m\u{1B}[?7h\u{1B}[?25h\u{1B}[?1049l"))
            #expect(terminal.output.hasSuffix("\u{1B}[?1049l"))
        }

        @Test func aTaskAndATimerAnswerWithMessages() async throws {
            let terminal = try PseudoTerminal(columns: 20, rows: 3)
            defer { terminal.close() }
            let running = try start(Counter(), on: terminal)
            terminal.type(Array("l".utf8))
            #expect(await terminal.waitForOutput(containing: "\u{1B}[1;8H\u{1B}[0m10"))
            terminal.type(Array("t".utf8))
            #expect(await terminal.waitForOutput(containing: "\u{1B}[1;9H\u{1B}[0m10"))
            terminal.type([0x03])
            let (model, end) = await running.value
            #expect(model.count == 110)
            #expect(end == .interrupted)
        }

        @Test func workStillRunningIsCancelledAtTheEnd() async throws {
            let terminal = try PseudoTerminal(columns: 20, rows: 3)
            defer { terminal.close() }
            let model = Counter()
            let running = try start(model, on: terminal)
            terminal.type(Array("wq".utf8))
            let (ended, end) = await running.value
            #expect(end == .finished)
            #expect(await model.cancelled.wait(forAtLeast: 1))
            #expect(ended.count == 0)
        }

        @Test func aTaskIsCancelledByItsIdAndItsAnswerDropped() async throws {
            let terminal = try PseudoTerminal(columns: 20, rows: 3)
            defer { terminal.close() }
            let model = Counter()
            let running = try start(model, on: terminal)
            terminal.type(Array("wx".utf8))
            #expect(await model.cancelled.wait(forAtLeast: 1))
            // A key after the cancelled task has answered: its answer never reached the model.
            terminal.type(Array("jq".utf8))
            let (ended, _) = await running.value
            #expect(ended.count == 1)
        }

        @Test func aResizeIsAnEventAndTheNextFrameIsDrawnWholeAtTheNewSize() async throws {
            let terminal = try PseudoTerminal(columns: 20, rows: 3)
            defer { terminal.close() }
            let running = try start(Counter(), on: terminal)
            #expect(await terminal.waitForOutput(containing: "count: 0"))
            terminal.resize(columns: 30, rows: 4)
            kill(getpid(), SIGWINCH)
            #expect(await terminal.waitForOutput(containing: "count: 0\u{1B}[0m\u{1B}[2J\u{1B}[1;1H\u{1B}[0mcount: 0"))
            terminal.type(Array("q".utf8))
            let (model, _) = await running.value
            #expect(model.size == TerminalSize(columns: 30, rows: 4))
        }

        @Test func ticksComeAtTheIntervalWithTheTime() async throws {
            let terminal = try PseudoTerminal(columns: 20, rows: 3)
            defer { terminal.close() }
            // The sleeper lets three ticks through, then waits until cancelled.
            let sleeps = Counted()
            let running = try start(Counter(), on: terminal, ticks: .seconds(1)) { _ in
                if sleeps.increment() > 3 { try await Task.sleep(for: .seconds(3600)) }
            }
            terminal.type(Array("j".utf8))
            #expect(await terminal.waitForOutput(containing: "\u{1B}[1;8H\u{1B}[0m1"))
            // Ticks and keys share one queue: after three ticks, the fourth sleep; then a key.
            #expect(await sleeps.wait(forAtLeast: 4))
            terminal.type(Array("q".utf8))
            let (model, _) = await running.value
            #expect(model.ticks == 3)
        }

        @Test func theEndOfTheInputEndsTheProgram() async throws {
            let terminal = try PseudoTerminal(columns: 20, rows: 3)
            defer { terminal.close() }
            let running = try start(Counter(), on: terminal)
            #expect(await terminal.waitForOutput(containing: "count: 0"))
            // The person's side hangs up.
            terminal.hangUp()
            let (_, end) = await running.value
            #expect(end == .inputClosed)
        }
    }
}

/// A count shared with a sleeper.
final class Counted: @unchecked Sendable {
    private let lock = NSCondition()
    private var value = 0

    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        lock.broadcast()
        return value
    }

    func wait(forAtLeast count: Int) async -> Bool {
        await waitUntil(within: .seconds(20), every: .milliseconds(10)) { self.current >= count }
    }

    var current: Int {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}
