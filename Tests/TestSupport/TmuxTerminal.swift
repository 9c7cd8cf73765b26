import Foundation

/// A real terminal for the end-to-end tests of `reader browse` (and of a plug-in's `reader`): a
/// tmux server of the test's own (its socket in the test's folder), one window of a given size,
/// running the program in a shell script that records the terminal's modes (`stty -g`) before and
/// after, the program's process id and its exit status. Keys go in with `send-keys`; the screen comes back with `capture-pane`.
/// Waiting is on the screen's content or a file, up to a generous bound, never a fixed sleep.
public final class TmuxTerminal: @unchecked Sendable {
    /// The test's folder: the scripts, the socket and the files they write.
    public let folder: URL
    private let socket: String

    /// Kept: what owns the folder (the scripts, the socket, the files they write) lives as long as this does.
    private let owner: Any?

    private init(folder: URL, owner: Any?) {
        self.owner = owner
        self.folder = folder
        socket = folder.appendingPathComponent("tmux.socket").path
    }

    /// Starts `executable ARGUMENTS` with `environment` only (and `TERM`, `screen` unless given)
    /// in a window of `columns` × `rows`, in `folder`.
    /// - Parameters:
    ///   - owner: what keeps `folder` (a temporary folder removed with it), kept as long as the terminal.
    ///   - jobControl: run it as a shell with job control runs a job: when it stops, its status
    ///     goes to the file `stopped` and the modes then to `during`, and `fg` continues it.
    public static func start(_ executable: URL, folder: URL, environment: [String: String], owner: Any?, columns: Int, rows: Int,
                             arguments: [String], term: String = "screen", jobControl: Bool = false) async throws -> TmuxTerminal {
        let terminal = TmuxTerminal(folder: folder, owner: owner)
        var environment = environment
        environment["TERM"] = term
        let assignments = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.quoted($0.value))" }.joined(separator: " ")
        let command = ([executable.path] + arguments).map(Self.quoted).joined(separator: " ")
        // reader.sh becomes the program (exec): its process id is the program's.
        let readerScript = """
            echo $$ > pid
            exec env -i \(assignments) \(command)
            """
        let job = jobControl ? "set -m\nsh reader.sh\necho $? > stopped\nstty -g > during\nfg" : "sh reader.sh"
        let script = """
            cd \(Self.quoted(folder.path))
            stty -g > before
            \(job)
            echo $? > status.tmp && mv status.tmp status
            stty -g > after
            exec sleep 3600
            """
        try readerScript.write(to: folder.appendingPathComponent("reader.sh"), atomically: true, encoding: .utf8)
        try script.write(to: folder.appendingPathComponent("run.sh"), atomically: true, encoding: .utf8)
        // The server it starts keeps the client's descriptors: nothing is read back from this one.
        try await terminal.tmux(reading: false, ["-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "\(columns)", "-y", "\(rows)",
                                                 "sh", folder.appendingPathComponent("run.sh").path])
        return terminal
    }

    deinit {
        // Waited for (waitpid, which needs no other thread), before the folder with the socket goes.
        _ = try? Self.run(socket: socket, folder: folder, reading: false, ["kill-server"])
    }

    /// The screen as text, one line a row.
    public func screen() async throws -> String { try await tmux(["capture-pane", "-p", "-t", "t"]) }

    /// The screen with its styles as escape sequences (`ESC [ 7 m` for reverse video).
    public func styledScreen() async throws -> String { try await tmux(["capture-pane", "-p", "-e", "-t", "t"]) }

    /// A tmux format's value for the pane, such as `#{alternate_on}`.
    public func pane(_ format: String) async throws -> String {
        try await tmux(["display-message", "-p", "-t", "t", format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public func press(_ keys: String...) async throws { try await tmux(["send-keys", "-t", "t"] + keys) }

    public func resize(columns: Int, rows: Int) async throws {
        try await tmux(["resize-window", "-t", "t", "-x", "\(columns)", "-y", "\(rows)"])
    }

    /// Waits until `satisfied` holds for the screen (`styled`: with its styles), up to 30
    /// seconds; the last screen, and whether it did.
    public func waitForScreen(styled: Bool = false, _ satisfied: (String) -> Bool) async throws -> (screen: String, ok: Bool) {
        var shown = ""
        let ok = try await waitUntil {
            shown = styled ? try await styledScreen() : try await screen()
            return satisfied(shown)
        }
        return (shown, ok)
    }

    public func waitForScreen(containing text: String) async throws -> (screen: String, ok: Bool) {
        try await waitForScreen { $0.contains(text) }
    }

    /// Waits for the script's file `name` (`status`, `pid`, `after`), up to 30 seconds; its text.
    public func waitForFile(_ name: String) async throws -> String? {
        let url = folder.appendingPathComponent(name)
        var text: String?
        guard await waitUntil({ text = try? String(contentsOf: url, encoding: .utf8); return text?.isEmpty == false }) else { return nil }
        return text?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The modes before `reader` started and after it ended, as `stty -g` printed them.
    public func modesBeforeAndAfter() async throws -> (before: String?, after: String?) {
        (try await waitForFile("before"), try await waitForFile("after"))
    }

    /// Runs `tmux ARGUMENTS` on this test's server, waiting on a thread of its own (a pool
    /// thread blocked in `waitUntilExit` can starve the one that sees the child end); what it
    /// printed, when `reading`.
    @discardableResult
    private func tmux(reading: Bool = true, _ arguments: [String]) async throws -> String {
        let (socket, folder) = (socket, folder)
        return try await waitingOnAThreadOfItsOwn { Result { try Self.run(socket: socket, folder: folder, reading: reading, arguments) } }.get()
    }

    /// What it prints goes to a file, read once it has ended.
    private static func run(socket: String, folder: URL, reading: Bool, _ arguments: [String]) throws -> String {
        let out = folder.appendingPathComponent("tmux-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let child = try spawn(["tmux", "-S", socket] + arguments, output: reading ? out.path : nil)
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0, errno == EINTR {}
        return reading ? (try? String(contentsOf: out, encoding: .utf8)) ?? "" : ""
    }

    /// Starts `arguments` (found on `PATH`) with stdin and stderr on /dev/null, stdout to the
    /// file at `output` (or /dev/null), and no other descriptor of this process: not Foundation's
    /// `Process`, whose child keeps a descriptor that tells the parent it has ended, which the
    /// tmux server it forks would keep for its whole life (and so would hang any wait for it),
    /// as it would keep any pipe of a test beside this one.
    private static func spawn(_ arguments: [String], output: String?) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // posix_spawn_file_actions_addclosefrom_np (glibc 2.34) is not in Glibc's module.
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") else {
            throw POSIXError(.ENOSYS)
        }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        // This thread's blocked signals would be the child's, and the tmux server's, and its
        // panes': they could then not be ended (kill-server's SIGHUP, a test's SIGTERM).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = (["/usr/bin/env"] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, "/usr/bin/env", &actions, &attributes, argv, environ)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
        return child
    }

    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
