import Foundation
import ReaderKit

/// One line of progress on stderr, redrawn in place, for work of more than a moment. It writes
/// nothing unless stderr is a terminal, so scripts and logs never see it.
package final class ProgressLine: @unchecked Sendable {
    private let label: String
    private let enabled: Bool
    private let lock = NSLock()
    private var lastDrawn = ContinuousClock.now.advanced(by: .seconds(-1))
    private var drawn = false

    /// - Parameters:
    ///   - label: what is being done, such as `fetching people`.
    ///   - enabled: whether to draw at all; by default, whether stderr is a terminal.
    package init(_ label: String, enabled: Bool = isatty(STDERR_FILENO) == 1) {
        self.label = label
        self.enabled = enabled
    }

    /// Redraws the line, at most about 20 times a second, and always for the last step.
    package func update(_ progress: LoadProgress) {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        let now = ContinuousClock.now
        guard progress.completed >= progress.total || lastDrawn.duration(to: now) >= .milliseconds(50) else { return }
        lastDrawn = now
        drawn = true
        let total = max(progress.total, progress.completed)
        // Work in phases names the phase: `syncing swapi, resources: 12/252`.
        let what = progress.phase.map { "\(label) \($0)" } ?? label
        write("\r\u{1B}[K\(what): \(progress.completed)/\(total)")
    }

    /// Clears the line, so that what follows starts on a clean one.
    package func finish() {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        if drawn { write("\r\u{1B}[K") }
        drawn = false
    }

    /// ``update(_:)`` as the handler a load reports its progress to.
    package var handler: ProgressHandler { { [self] in update($0) } }

    private func write(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
    }
}
