import ArgumentParser
import Foundation
import ReaderKit

/// What the setting options say, wherever they are declared (``SettingOptions``, or
/// ``FetchOptions`` itself), and the settings they come to.
struct SettingChoice {
    static let timeoutHelp = ArgumentHelp("Give up after this long, retries and waits included (90, 90s, 2m; default: the config file's timeout, else 20s).", valueName: "time")
    static let retriesHelp = ArgumentHelp("Try a failed request at most this many more times (0 to 10; default: the config file's retries, else 3).", valueName: "n")
    static let maxAgeHelp = ArgumentHelp("Treat cached data younger than this as fresh, whatever the server said (0: always ask; default: the config file's max-age).", valueName: "time")
    static let maxStaleHelp = ArgumentHelp("Never show cached data older than this, even when the network fails (default: the config file's max-stale, else any age, always with a notice).", valueName: "time")

    var timeout: TimeSpan?
    var retries: Int?
    var maxAge: TimeSpan?
    var maxStale: TimeSpan?

    func validate() throws {
        if let problem = timeout?.problem("--timeout", within: .milliseconds(1)...ConfigFile.maximumTimeout, bounds: "more than 0 and at most 1 hour") {
            throw ValidationError(problem)
        }
        if let retries, !(0...10).contains(retries) { throw ValidationError("--retries must be from 0 to 10, got \(retries)") }
        for (option, span) in [("--max-age", maxAge), ("--max-stale", maxStale)] {
            if let problem = span?.problem(option, within: .zero...ConfigFile.maximumTimeSpan, bounds: "from 0 to 100 years") {
                throw ValidationError(problem)
            }
        }
    }

    /// The settings from the config file and the environment, with these flags over them.
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` for a broken config file or environment variable.
    func settings(noColor: Bool) throws(ReaderError) -> ReaderSettings {
        var settings = try ProcessSettings.fromFileAndEnvironment.get()
        if let timeout { settings.timeout.override(timeout.duration, from: .flag("--timeout")) }
        if let retries { settings.retries.override(retries, from: .flag("--retries")) }
        if let maxAge { settings.maximumAge.override(maxAge.duration, from: .flag("--max-age")) }
        if let maxStale { settings.maximumStale.override(maxStale.duration, from: .flag("--max-stale")) }
        if noColor { settings.color.override(false, from: .flag("--no-color")) }
        return settings
    }
}
