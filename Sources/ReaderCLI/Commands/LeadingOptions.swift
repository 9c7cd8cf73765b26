/// The common options (``FetchOptions``'s) given before the command's name, as in
/// `reader --offline films` or `reader --timeout 5s people 1`, moved to just after it, where the
/// parser takes a command's options: the same command line with the same meaning, and a command
/// that does not take one of them refuses it as it would there. Done on the arguments rather than
/// by declaring the options on the root command too, which would add an option group that the
/// parser reflects over at every start.
enum LeadingOptions {
    /// The common options that stand alone.
    // Arrays, not Sets: read once at every start, where a first Set of Strings costs more than the look-ups.
    static let flags: [String] = ["--offline", "--refresh", "--json", "--verbose", "-v", "--no-color", "--wait"]

    /// The common options that take a value, as the next argument or after `=`.
    static let valued: [String] = ["--timeout", "--retries", "--max-age", "--max-stale", "--max-wait", "--cache-size", "--cache-path"]

    /// `arguments` (without the program's name) with the common options before the first word
    /// moved to just after it; nil, and parsed as they are, when they do not start with a common
    /// option, when one of the leading options is not a common one (`--help`, `--version`, a
    /// typo: refused as before), when nothing follows them, or when what follows is `help`.
    /// The word need not be a command: a misspelt one is then answered as one.
    static func movedAfterCommand(in arguments: [String]) -> [String]? {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if flags.contains(argument) {
                index += 1
            } else if valued.contains(argument) {
                index += 2
            } else if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "="), valued.contains(String(argument[..<equals])) {
                index += 1
            } else {
                break
            }
        }
        guard index > 0, index < arguments.count else { return nil }
        let command = arguments[index]
        guard !command.hasPrefix("-"), command != "help" else { return nil }
        return [command] + arguments[..<index] + arguments[(index + 1)...]
    }
}
