import Foundation
import ReaderKit

/// What the bottom line says of the data on screen: nothing when it is fresh; else the age of
/// the copy, and the code of the failure it was shown in place of (`copy from 3 h ago · T1003`).
enum FreshnessNote {
    /// - Parameters:
    ///   - metadata: the load's (``Loaded/metadata``).
    ///   - now: the time the note is shown at: the age grows while the screen stays.
    static func text(for metadata: LoadMetadata, now: Date) -> String? {
        guard metadata.stale || metadata.errorCode != nil else { return nil }
        let age = RelativeAge.describe(from: metadata.fetchedAt, to: now)
        return (["copy from \(age) ago"] + [metadata.errorCode?.description].compactMap { $0 }).joined(separator: " · ")
    }
}
