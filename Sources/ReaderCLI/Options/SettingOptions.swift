import ArgumentParser
import Foundation
import ReaderKit

/// The options the config file also sets (with `--no-color`): every fetching command takes them,
/// and `reader config` shows what they come to.
struct SettingOptions: ParsableArguments {
    @Option(help: SettingChoice.timeoutHelp)
    var timeout: TimeSpan?

    @Option(help: SettingChoice.retriesHelp)
    var retries: Int?

    @Option(help: SettingChoice.maxAgeHelp)
    var maxAge: TimeSpan?

    @Option(help: SettingChoice.maxStaleHelp)
    var maxStale: TimeSpan?

    var choice: SettingChoice { SettingChoice(timeout: timeout, retries: retries, maxAge: maxAge, maxStale: maxStale) }

    func validate() throws { try choice.validate() }

    /// The settings from the config file and the environment, with these flags over them.
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` for a broken config file or environment variable.
    func settings(noColor: Bool) throws(ReaderError) -> ReaderSettings {
        try choice.settings(noColor: noColor)
    }
}
