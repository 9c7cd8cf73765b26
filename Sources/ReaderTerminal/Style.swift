import Foundation
import ReaderKit

/// SGR styling that is a no-op when colour is off. It only ever wraps text that has already been
/// sanitised and measured, so it cannot be fooled by, or misalign, what came from the network.
package struct Style: Sendable {
    var enabled: Bool

    package static let plain = Style(enabled: false)

    /// The style for stdout (`descriptor` 1) or stderr (2), per ``Terminal/allowsColour(on:noColorFlag:environment:)``;
    /// `noColor` is asked only for a terminal.
    package static func forDescriptor(_ descriptor: Int32, noColor: @autoclosure () -> Bool,
                                      environment: @autoclosure () -> [String: String]) -> Style {
        Style(enabled: Terminal.allowsColour(on: descriptor, noColorFlag: noColor(), environment: environment()))
    }

    package func bold(_ text: String) -> String { wrap(text, "1") }
    package func dim(_ text: String) -> String { wrap(text, "2") }
    package func red(_ text: String) -> String { wrap(text, "31") }
    package func green(_ text: String) -> String { wrap(text, "32") }
    package func yellow(_ text: String) -> String { wrap(text, "33") }
    package func cyan(_ text: String) -> String { wrap(text, "36") }

    private func wrap(_ text: String, _ code: String) -> String {
        enabled && !text.isEmpty ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
