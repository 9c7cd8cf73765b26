import Foundation
import ReaderKit

/// The process's environment, read once: Foundation builds the whole dictionary on every read of
/// `ProcessInfo.processInfo.environment`.
enum ProcessEnvironment {
    static let current: [String: String] = ProcessInfo.processInfo.environment
}
