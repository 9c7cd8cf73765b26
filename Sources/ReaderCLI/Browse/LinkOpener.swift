import Foundation
import ReaderKit

/// Runs `$BROWSER URL` for `o` in `reader browse`: detached, so that it outlives nothing and
/// waits for nothing; its input, output and errors go to /dev/null, so that it never draws on
/// the screen browse owns.
enum LinkOpener {
    /// Starts `command` with `url` as its last argument. The command is split into words by the
    /// shell (`firefox --new-tab`), which is given the URL as `$1` and so never parses it.
    /// - Returns: why it could not be started, or nil.
    static func open(_ url: String, with command: String?) -> String? {
        guard let command else { return "BROWSER is not set: \(url)" }
        // `sh` starts the browser in the background and ends at once; the browser is then
        // init's child, and nothing here waits for it.
        // The command's words (no globbing), then the link as one more argument; 127 when the
        // command is not found, before anything is started in the background.
        let script = """
            set -f; set -- $BROWSER_COMMAND "$1"; command -v -- "$1" >/dev/null 2>&1 || exit 127
            exec </dev/null >/dev/null 2>&1; "$@" &
            """
        var environment = ProcessInfo.processInfo.environment
        environment["BROWSER_COMMAND"] = command
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        let arguments = ["/bin/sh", "-c", script, "reader-browser", url]
        let variables = environment.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let started = withCStrings(arguments) { argv in
            withCStrings(variables) { envp in posix_spawn(&pid, "/bin/sh", &actions, nil, argv, envp) }
        }
        guard started == 0 else { return "BROWSER could not be started (errno \(started))" }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        // WIFEXITED and WEXITSTATUS, which Swift does not import.
        if status & 0x7F == 0, (status >> 8) & 0xFF == 127 {
            return "BROWSER cannot be run: \(TerminalText.sanitise(command, maxLength: 200)) is not a command found on PATH"
        }
        return nil
    }

    private static func withCStrings<Result>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Result) -> Result {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { for pointer in pointers { free(pointer) } }
        return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    }
}
