import Foundation

/// Runs a ``Model`` on a borrowed terminal: keys and sizes from an ``InputReader``, ticks, and
/// the answers of its effects come in one queue, in order; each is given to the model's
/// `update`, then its view is drawn and only what changed is written (``FrameRenderer``).
///
/// Effects run concurrently, in tasks, and never block the screen; every one still running is
/// cancelled when the program ends. The runner knows nothing of what the program shows.
public struct ProgramRunner<Program: Model> {
    public typealias Sleeper = @Sendable (Duration) async throws -> Void

    private let session: TerminalSession
    private let colour: Bool
    private let tickInterval: Duration?
    private let now: @Sendable () -> Date
    private let sleep: Sleeper

    /// - Parameters:
    ///   - session: the borrowed terminal.
    ///   - colour: whether colours are written (attributes are, always).
    ///   - tickInterval: how often a ``ProgramEvent/tick(_:)`` comes; nil: never.
    ///   - now: the time a tick carries.
    ///   - sleep: how the runner waits, for ticks and ``Effect/after(_:_:)``.
    public init(session: TerminalSession, colour: Bool, tickInterval: Duration? = nil,
                now: @escaping @Sendable () -> Date = { Date() },
                sleep: @escaping Sleeper = { try await Task.sleep(for: $0) }) {
        self.session = session
        self.colour = colour
        self.tickInterval = tickInterval
        self.now = now
        self.sleep = sleep
    }

    /// What comes into the queue.
    private enum Incoming: Sendable {
        case event(ProgramEvent<Program.Message>)
        case redraw
        case taskEnded(Int)
        case inputClosed
    }

    /// Runs `model` until it quits or the input ends.
    /// - Returns: the model as it was last, and how it ended.
    public func run(_ model: Program) async -> (model: Program, end: ProgramEnd) {
        let (queue, continuation) = AsyncStream<Incoming>.makeStream()
        var model = model
        var size = session.size
        var shown: Grid?
        var work = RunningWork()
        let reader = InputReader(session: session) { event in
            switch event {
            case .key(let key): continuation.yield(.event(.key(key)))
            case .resize(let size): continuation.yield(.event(.resize(size)))
            case .redraw: continuation.yield(.redraw)
            case .inputClosed: continuation.yield(.inputClosed)
            }
        }
        defer {
            reader.stop()
            work.cancelAll()
            continuation.finish()
        }

        func draw() {
            let frame = model.view(size: size)
            let bytes = FrameRenderer.bytes(for: frame, after: shown, colour: colour)
            if !bytes.isEmpty { session.write(bytes) }
            shown = frame
        }

        if let end = perform(model.start(), work: &work, continuation: continuation) { return (model, end) }
        draw()
        reader.start()
        if let tickInterval {
            let (sleep, now) = (self.sleep, self.now)
            work.start(id: nil) { _ in
                while !Task.isCancelled {
                    guard (try? await sleep(tickInterval)) != nil, !Task.isCancelled else { return }
                    continuation.yield(.event(.tick(now())))
                }
            }
        }
        for await incoming in queue {
            switch incoming {
            case .inputClosed:
                return (model, .inputClosed)
            case .taskEnded(let number):
                work.ended(number)
            case .redraw:
                // The terminal came back cleared, perhaps at another size.
                shown = nil
                let newSize = session.size
                if newSize != size {
                    size = newSize
                    if let end = perform(model.update(.resize(newSize)), work: &work, continuation: continuation) { return (model, end) }
                }
                draw()
            case .event(let event):
                if case .resize(let newSize) = event { size = newSize }
                if let end = perform(model.update(event), work: &work, continuation: continuation) { return (model, end) }
                draw()
            }
        }
        return (model, .inputClosed)
    }

    /// Starts `effects`; the end, if one of them quits.
    private func perform(_ effects: [Effect<Program.Message>], work: inout RunningWork,
                         continuation: AsyncStream<Incoming>.Continuation) -> ProgramEnd? {
        for effect in effects {
            switch effect {
            case .task(let id, let operation):
                work.start(id: id) { number in
                    let message = await operation()
                    if !Task.isCancelled { continuation.yield(.event(.message(message))) }
                    continuation.yield(.taskEnded(number))
                }
            case .cancel(let id):
                work.cancel(id: id)
            case .after(let delay, let message):
                let sleep = self.sleep
                work.start(id: nil) { number in
                    if (try? await sleep(delay)) != nil, !Task.isCancelled { continuation.yield(.event(.message(message))) }
                    continuation.yield(.taskEnded(number))
                }
            case .suspend:
                session.suspend()
            case .quit(let end):
                return end
            }
        }
        return nil
    }
}

/// The tasks a program's effects run in, each numbered, some under an id.
private struct RunningWork {
    private var tasks: [Int: Task<Void, Never>] = [:]
    private var numbers: [String: Int] = [:]
    private var next = 0

    /// Starts `body` with its number; under `id`, after cancelling the one there.
    mutating func start(id: String?, _ body: @escaping @Sendable (Int) async -> Void) {
        if let id { cancel(id: id) }
        let number = next
        next += 1
        tasks[number] = Task { await body(number) }
        if let id { numbers[id] = number }
    }

    mutating func cancel(id: String) {
        guard let number = numbers.removeValue(forKey: id) else { return }
        tasks.removeValue(forKey: number)?.cancel()
    }

    mutating func ended(_ number: Int) {
        tasks[number] = nil
        if let id = numbers.first(where: { $0.value == number })?.key { numbers[id] = nil }
    }

    func cancelAll() {
        for task in tasks.values { task.cancel() }
    }
}
