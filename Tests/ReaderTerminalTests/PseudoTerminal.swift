#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Testing
import TestSupport

/// The suites that borrow a terminal, one test at a time: a process has one terminal to borrow
/// (``TerminalSession``), and its signal handlers are the process's.
@Suite(.serialized) enum OnAPseudoTerminal {}

/// A real pseudo-terminal pair for the tests: the program side (`follower`) is a terminal as
/// `isatty` and `tcgetattr` see it; the test plays the person at the other end (`leader`),
/// typing bytes and reading what the program drew.
final class PseudoTerminal: @unchecked Sendable {
    let leader: Int32
    let follower: Int32
    private let lock = NSCondition()
    private var received: [UInt8] = []
    private var reading = true

    init(columns: UInt16 = 80, rows: UInt16 = 24) throws {
        // posix_openpt and its kin are behind _XOPEN_SOURCE, which Glibc's module is not built
        // with: looked up in the C library itself.
        guard let library = dlopen(nil, RTLD_NOW),
              let openLeader = dlsym(library, "posix_openpt").map({ unsafeBitCast($0, to: (@convention(c) (Int32) -> Int32).self) }),
              let unlock = dlsym(library, "unlockpt").map({ unsafeBitCast($0, to: (@convention(c) (Int32) -> Int32).self) }),
              let name = dlsym(library, "ptsname_r").map({
                  unsafeBitCast($0, to: (@convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32).self)
              }) else { throw POSIXError(.ENOSYS) }
        let leader = openLeader(O_RDWR | O_NOCTTY)
        var path = [CChar](repeating: 0, count: 128)
        guard leader >= 0, unlock(leader) == 0, name(leader, &path, path.count) == 0 else {
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        let follower = open(String(decoding: path.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), O_RDWR | O_NOCTTY)
        guard follower >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        self.leader = leader
        self.follower = follower
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        stopReading = ends[1]
        resize(columns: columns, rows: rows)
        // What the program writes is read at once, so that its writes never block on a full
        // buffer; until the program's side closes or ``hangUp()`` stops it.
        let stop = ends[0]
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            var descriptors = [pollfd(fd: leader, events: Int16(POLLIN), revents: 0), pollfd(fd: stop, events: Int16(POLLIN), revents: 0)]
            while true {
                let ready = poll(&descriptors, 2, -1)
                if ready < 0, errno == EINTR { continue }
                let stopped = ready <= 0 || descriptors[1].revents != 0
                let count = stopped ? -1 : read(leader, &buffer, buffer.count)
                if !stopped, count < 0, errno == EINTR { continue }
                lock.lock()
                if count > 0 { received += buffer[0..<count] } else { reading = false }
                lock.broadcast()
                lock.unlock()
                if count <= 0 { Glibc.close(stop); return }
            }
        }
        thread.start()
    }

    private let stopReading: Int32
    private var closed = false

    /// The person's side hangs up, as a closed terminal window: reading stops, and the leader closes.
    func hangUp() {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { return }
        closed = true
        var byte: UInt8 = 0
        _ = write(stopReading, &byte, 1)
        while reading { lock.wait() }
        Glibc.close(stopReading)
        Glibc.close(leader)
    }

    /// Closes both sides.
    func close() {
        hangUp()
        _ = Glibc.close(follower)
    }

    func resize(columns: UInt16, rows: UInt16) {
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(leader, UInt(TIOCSWINSZ), &size)
    }

    /// Types `text` as the person would.
    func type(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { _ = write(leader, $0.baseAddress, $0.count) }
    }

    /// The attributes of the program's side, as bytes to compare exactly.
    var attributes: [UInt8] {
        var attributes = termios()
        _ = tcgetattr(follower, &attributes)
        return withUnsafeBytes(of: &attributes) { Array($0) }
    }

    /// What the program wrote so far, as text.
    var output: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: received, as: UTF8.self)
    }

    /// Waits until what the program wrote holds `text`, up to a generous bound; whether it did.
    /// It polls, holding no thread: a thread of the pool blocked here could be the one the
    /// program under test needs.
    func waitForOutput(containing text: String, timeout: Duration = .seconds(20)) async -> Bool {
        await waitUntil(within: timeout, every: .milliseconds(10)) { self.output.contains(text) }
    }
}

