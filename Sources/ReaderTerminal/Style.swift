import Foundation
import ReaderKit

/// SGR styling that is a no-op when colour is off. It only ever wraps text that has already been
/// sanitised and measured, so it cannot be fooled by, or misalign, what came from the network.
package struct Style: Sendable {
    var enabled: Bool

    /// No colour and no attributes: text as it is.
    package static let plain = Style(enabled: false)

    /// The style for stdout (`descriptor` 1) or stderr (2), per ``Terminal/allowsColour(on:noColorFlag:environment:)``;
    /// `noColor` and `environment` are asked only for a terminal.
    package static func forDescriptor(_ descriptor: Int32, noColor: @autoclosure () -> Bool,
                                      environment: @autoclosure () -> [String: String]) -> Style {
        Style(enabled: Terminal.allowsColour(on: descriptor, noColorFlag: noColor(), environment: environment()))
    }

    /// `text` in bold.
    package func bold(_ text: String) -> String { wrap(text, "1") }
    /// `text` dimmed.
    package func dim(_ text: String) -> String { wrap(text, "2") }
    /// `text` in red.
    package func red(_ text: String) -> String { wrap(text, "31") }
    /// `text` in green.
    package func green(_ text: String) -> String { wrap(text, "32") }
    /// `text` in yellow.
    package func yellow(_ text: String) -> String { wrap(text, "33") }
    /// `text` in cyan.
    package func cyan(_ text: String) -> String { wrap(text, "36") }

    private func wrap(_ text: String, _ code: String) -> String {
        enabled && !text.isEmpty ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
