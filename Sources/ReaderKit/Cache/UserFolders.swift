import Foundation

/// The user's folders as the environment names them, read by one rule: the XDG Base Directory
/// specification's, that a path which is not absolute is invalid and ignored. It holds for
/// `$XDG_CONFIG_HOME` and `$XDG_CACHE_HOME`, and for `$HOME` too, since every path under a
/// relative one would depend on the working directory. What was not used is said as it is: unset,
/// empty, or relative.
package enum UserFolders {
    /// `environment[variable]` when it is an absolute path; nil when it is unset, empty or relative.
    package static func absolute(_ variable: String, in environment: [String: String]) -> String? {
        guard let value = environment[variable], value.hasPrefix("/") else { return nil }
        return value
    }

    /// `$XDG_…/path` when that variable is absolute, else `$HOME/homeFolder/path`; nil without either.
    package static func folder(_ xdgVariable: String, else homeFolder: String, then path: String,
                       in environment: [String: String]) -> String? {
        if let base = absolute(xdgVariable, in: environment) { return (base as NSString).appendingPathComponent(path) }
        if let home = absolute("HOME", in: environment) {
            return ((home as NSString).appendingPathComponent(homeFolder) as NSString).appendingPathComponent(path)
        }
        return nil
    }

    /// Why none of `variables` could be used, each as it is: `XDG_CACHE_HOME is not set and HOME
    /// is relative ("home"): a folder must be a full path`. A relative value is shown sanitised.
    package static func unusable(_ variables: [String], in environment: [String: String]) -> String {
        let states = variables.map { "\($0) \(state(of: $0, in: environment))" }
        let listed = states.count > 1 ? states.dropLast().joined(separator: ", ") + " and " + (states.last ?? "") : states.joined()
        let relative = variables.contains { !(environment[$0] ?? "").isEmpty && environment[$0]?.hasPrefix("/") == false }
        return relative ? listed + ": a folder must be a full path, starting with /" : listed
    }

    /// `XDG_CONFIG_HOME is relative ("cfg"), so it is ignored: …` when `variable` is set to a
    /// relative path; nil when it is unset, empty or absolute.
    package static func ignored(_ variable: String, in environment: [String: String]) -> String? {
        guard let value = environment[variable], !value.isEmpty, !value.hasPrefix("/") else { return nil }
        return "\(variable) \(state(of: variable, in: environment)), so it is ignored: a folder must be a full path, starting with /"
    }

    /// `is not set`, `is empty` or `is relative ("home")`: why `variable` is not used.
    private static func state(of variable: String, in environment: [String: String]) -> String {
        guard let value = environment[variable] else { return "is not set" }
        guard !value.isEmpty else { return "is empty" }
        let shown = TerminalText.sanitise(value, maxLength: 100)
        return value.hasPrefix("/") ? "is \"\(shown)\"" : "is relative (\"\(shown)\")"
    }

    /// `path` with a leading `~/` (or a `~` alone) made `$HOME`, as a shell would have done had
    /// the `~` not been quoted; any other path as it is.
    /// - Parameters:
    ///   - source: what gave the path, for the message: `READER_CACHE_PATH`, or a parameter's name.
    ///   - isArgument: whether it came from the caller, not the environment: then a refusal is
    ///     ``ReaderError/invalidArgument(_:)``, else ``ReaderError/invalidConfiguration(_:)``.
    /// - Throws: for `~/…` without an absolute `$HOME`, and for `~name/…`, another user's folder,
    ///   which is not looked up.
    package static func expandingTilde(_ path: String, from source: Wording, isArgument: Bool = false,
                               in environment: [String: String]) throws(ReaderError) -> String {
        guard path.hasPrefix("~") else { return path }
        let shown = TerminalText.sanitise(path, maxLength: 200)
        let problem: String
        if path != "~", !path.hasPrefix("~/") {
            problem = " starts with ~name (\"\(shown)\"), another user's folder, which reader does not look up: give a full path"
        } else if let home = absolute("HOME", in: environment) {
            return home + path.dropFirst()
        } else {
            problem = " starts with ~ (\"\(shown)\"), but HOME \(state(of: "HOME", in: environment)): give a full path"
        }
        let wording = Wording(parts: source.parts + [.text(problem)])
        throw isArgument ? .invalidArgument(wording) : .invalidConfiguration(wording.description)
    }
}
