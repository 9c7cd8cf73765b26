import ReaderKit

/// One line of the help screen: keys and what they do.
public struct KeyHelp: Sendable, Equatable {
    /// The keys, as the help shows them: `Space`, `j ↓  k ↑`.
    public var keys: String
    /// What they do: "fold or unfold a comment".
    public var action: String

    public init(_ keys: String, _ action: String) {
        self.keys = keys
        self.action = action
    }
}
