import Foundation
import ReaderKit

/// The room a screen has and the time it is drawn at.
struct ScreenLayout: Sendable, Equatable {
    /// The terminal's width.
    var columns: Int
    /// The rows the screen has: all but the bottom line.
    var rows: Int
    /// The time now: ages on screen are measured to it.
    var now: Date
}
