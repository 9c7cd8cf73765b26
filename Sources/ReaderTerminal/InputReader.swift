#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Reads a borrowed terminal's input on a thread of its own, and hands on its keys (through a
/// ``KeyDecoder``) and its new sizes as ``TerminalEvent``s.
///
/// It waits with `poll` on the input and the session's wake pipe at once: a SIGWINCH wakes it to
/// read the new size, a continue after a stop to ask for the whole screen, ``stop()`` to end. Bytes kept waiting by the decoder (a lone Esc, maybe
/// the start of a sequence) are decided after ``escapeTimeout`` without more.
public final class InputReader: @unchecked Sendable {
    /// How long a lone Esc waits for the rest of a sequence: a sequence's bytes come together,
    /// a person's keys 50 ms or more apart.
    public static let escapeTimeout: Int32 = 50

    private let session: TerminalSession
    private let handler: @Sendable (TerminalEvent) -> Void
    private let finished = NSCondition()
    private var running = false
    private var done = false

    /// - Parameters:
    ///   - session: the borrowed terminal.
    ///   - handler: called with each event, on the reader's thread, in order.
    public init(session: TerminalSession, handler: @escaping @Sendable (TerminalEvent) -> Void) {
        self.session = session
        self.handler = handler
    }

    /// Starts reading, once.
    public func start() {
        finished.lock()
        guard !running else { finished.unlock(); return }
        running = true
        finished.unlock()
        let thread = Thread { [self] in
            readUntilStopped()
            finished.lock()
            done = true
            finished.broadcast()
            finished.unlock()
        }
        thread.name = "terminal input"
        thread.start()
    }

    /// Stops reading, and returns once the thread has: no event comes after.
    public func stop() {
        finished.lock()
        defer { finished.unlock() }
        guard running else { return }
        var stop = UInt8(ascii: "s")
        _ = write(session.wakeOutput, &stop, 1)
        while !done { finished.wait() }
    }

    private func readUntilStopped() {
        var decoder = KeyDecoder()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var descriptors = [pollfd(fd: session.input, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: session.wakeInput, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = poll(&descriptors, 2, decoder.isWaiting ? Self.escapeTimeout : -1)
            if ready < 0 {
                if errno == EINTR { continue }
                handler(.inputClosed)
                return
            }
            if ready == 0 {
                for key in decoder.flush() { handler(.key(key)) }
                continue
            }
            if descriptors[1].revents & Int16(POLLIN) != 0 {
                let count = read(session.wakeInput, &buffer, buffer.count)
                let signals = count > 0 ? buffer[0..<count] : []
                if signals.contains(UInt8(ascii: "s")) { return }
                if signals.contains(UInt8(ascii: "w")) { handler(.resize(session.size)) }
                if signals.contains(UInt8(ascii: "c")) { handler(.redraw) }
            }
            if descriptors[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                let count = read(session.input, &buffer, buffer.count)
                if count < 0, errno == EINTR || errno == EAGAIN { continue }
                guard count > 0 else {
                    for key in decoder.flush() { handler(.key(key)) }
                    handler(.inputClosed)
                    return
                }
                for key in decoder.decode(buffer[0..<count]) { handler(.key(key)) }
            }
        }
    }
}
