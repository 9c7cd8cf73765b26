import Foundation
import ReaderKit

extension Browser {
    /// A screen on the stack, with what the browser keeps of it.
    struct Entry: Sendable {
        var number: Int
        var screen: any BrowseScreen
        /// The last foreground failure: the banner when the screen has nothing to show.
        var failure: BrowseFailure?
        /// The error the copy on screen was served in place of, as its last load said (a stale
        /// copy shown for a used-up rate limit says until when).
        var servedInsteadOf: ReaderError?
        /// The filter typed after `/`, kept while the screen is shown.
        var filter = ""
        /// Its work running, by the screen's ids.
        var running: Set<String> = []
        /// Its loads in the foreground still to answer (a cache-first load's both passes).
        var loading: Set<String> = []
    }
}
