/// How many levels of comments a replies listing holds, read without keeping them: what a comment
/// tree cut for depth (``RedditComment/levelsNotKept``) says it left out. Each level reads only
/// `data.children[].kind` and `data.children[].data.replies`; no error is thrown for a child of
/// another shape, which would cost the length of the coding path.
struct ReplyLevels: Decodable {
    /// The deepest chain of comments in the listing: 0 for none.
    var levels = 0

    private enum Envelope: String, CodingKey { case kind, data }
    private enum ListingKeys: String, CodingKey { case children }
    private enum CommentKeys: String, CodingKey { case replies }

    init(from decoder: any Decoder) throws {
        // Reddit sends `""` for no replies: anything but an object is none.
        guard let envelope = try? decoder.container(keyedBy: Envelope.self),
              let listing = try? envelope.nestedContainer(keyedBy: ListingKeys.self, forKey: .data),
              var children = try? listing.nestedUnkeyedContainer(forKey: .children) else { return }
        while !children.isAtEnd {
            guard let child = try? children.nestedContainer(keyedBy: Envelope.self) else {
                _ = try? children.decode(Skipped.self)
                continue
            }
            guard (try? child.decode(String.self, forKey: .kind)) == "t1",
                  let comment = try? child.nestedContainer(keyedBy: CommentKeys.self, forKey: .data) else { continue }
            let below = (try? comment.decodeIfPresent(ReplyLevels.self, forKey: .replies))?.levels ?? 0
            levels = max(levels, 1 + below)
        }
    }

    /// Any value, read past.
    private struct Skipped: Decodable {
        init(from decoder: any Decoder) throws {}
    }
}
