import ReaderKit

/// One line of the help screen: keys and what they do.
struct KeyHelp: Sendable, Equatable {
    var keys: String
    var action: String

    init(_ keys: String, _ action: String) {
        self.keys = keys
        self.action = action
    }
}
