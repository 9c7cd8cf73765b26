import Foundation
import ReaderKit

/// The room a screen has and the time it is drawn at.
public struct ScreenLayout: Sendable, Equatable {
    /// The terminal's width.
    public var columns: Int
    /// The rows the screen has: all but the bottom line.
    public var rows: Int
    /// The time now: ages on screen are measured to it.
    public var now: Date

    public init(columns: Int, rows: Int, now: Date) {
        self.columns = columns
        self.rows = rows
        self.now = now
    }
}
