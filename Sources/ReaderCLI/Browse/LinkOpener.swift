import Foundation
import ReaderKit

/// Runs `$BROWSER URL` for `o` in `reader browse`: detached, so that it outlives nothing and
/// waits for nothing; its input, output and errors go to /dev/null, so that it never draws on
/// the screen browse owns. It gets no secret of reader's (``childEnvironment(of:secrets:)``).
enum LinkOpener {
    /// The variables that name a proxy, which curl, browsers and most tools read.
    static let proxyVariables: Set<String> = ["http_proxy", "https_proxy", "all_proxy", "ftp_proxy", "socks_proxy"]

    /// The environment of the browser: reader's, without its secrets — every variable a service
    /// declares as a secret setting (``ServiceSetting/Kind/secret(of:check:)``), found in the
    /// registry, so a secret added later is left out too — and with proxy variables' user and
    /// password taken out of their URLs (the proxy itself kept: a browser that went around it
    /// could reach what the user meant to be reached through it).
    static func childEnvironment(of environment: [String: String], secrets: Set<String>) -> [String: String] {
        var child: [String: String] = [:]
        for (name, value) in environment where !secrets.contains(name) {
            child[name] = proxyVariables.contains(name.lowercased()) ? withoutCredentials(value) : value
        }
        return child
    }

    /// The environment variables of every secret setting of the services of `registry`.
    static func secretVariables(of registry: ServiceRegistry) -> Set<String> {
        Set(registry.settings.filter(\.isSecret).compactMap(\.variable))
    }

    /// A proxy's address without the `user:password@` before its host; unchanged when it has none.
    /// An address with an `@` that is not before its host (a password with an unescaped `/`)
    /// is dropped (empty): what is a credential there cannot be told.
    static func withoutCredentials(_ proxy: String) -> String {
        // Everything before the host's last `@` is user information (a password may hold `@`).
        let scheme = proxy.range(of: "://")
        let authorityStart = scheme?.upperBound ?? proxy.startIndex
        let authorityEnd = proxy[authorityStart...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? proxy.endIndex
        guard let at = proxy[authorityStart..<authorityEnd].lastIndex(of: "@") else {
            return proxy.contains("@") ? "" : proxy
        }
        return String(proxy[..<authorityStart]) + String(proxy[proxy.index(after: at)...])
    }

    /// Starts `command` with `url` as its last argument. The command is split into words by the
    /// shell (`firefox --new-tab`), which is given the URL as `$1` and so never parses it.
    /// - Parameters:
    ///   - environment: reader's environment, of which the browser gets ``childEnvironment(of:secrets:)``.
    ///   - registry: the services whose secret settings the browser does not get.
    /// - Returns: why it could not be started, or nil.
    static func open(_ url: String, with command: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
                     registry: ServiceRegistry = .current) -> String? {
        guard let command else { return "BROWSER is not set: \(url)" }
        // `sh` starts the browser in the background and ends at once; the browser is then
        // init's child, and nothing here waits for it.
        // The command's words (no globbing), then the link as one more argument; 127 when the
        // command is not found, before anything is started in the background.
        let script = """
            set -f; set -- $BROWSER_COMMAND "$1"; command -v -- "$1" >/dev/null 2>&1 || exit 127
            exec </dev/null >/dev/null 2>&1; "$@" &
            """
        var environment = childEnvironment(of: environment, secrets: secretVariables(of: registry))
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
