import ReaderKit

/// The footer line of `reader posts` that says how to read on.
enum PostsFooter {
    /// `more: --after CURSOR` for a cursor `--after` accepts (a fullname, ``Reddit/isFullname(_:)``),
    /// quoted for a shell; nil for any other cursor a server sends, so that no line pasted from the
    /// footer runs what the server put in it (`t3_abc$(touch x)`).
    static func more(after cursor: String?) -> String? {
        guard let cursor, Reddit.isFullname(cursor) else { return nil }
        return "more: --after \(ShellWord.quoted(cursor))"
    }
}
