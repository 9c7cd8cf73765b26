/// One cell of the screen: what is drawn there and how.
///
/// A wide character (East Asian, most emoji) is held by the cell it starts in; the cell to its
/// right is a ``continuation``, drawn by it. A cell's grapheme has been sanitised (``Grid``
/// is the only way text gets in), so that it is exactly one visible character.
public struct Cell: Hashable, Sendable {
    /// The grapheme drawn here; empty for the right half of a wide character.
    public internal(set) var grapheme: String
    /// The cells it takes: 1, or 2 for a wide character; 0 for a continuation.
    public internal(set) var width: Int
    public internal(set) var style: CellStyle

    init(grapheme: String, width: Int, style: CellStyle) {
        self.grapheme = grapheme
        self.width = width
        self.style = style
    }

    /// A space in `style`.
    public static func blank(_ style: CellStyle = .plain) -> Cell {
        Cell(grapheme: " ", width: 1, style: style)
    }

    /// The right half of a wide character in `style`.
    static func continuation(_ style: CellStyle) -> Cell {
        Cell(grapheme: "", width: 0, style: style)
    }

    /// Whether this is the right half of a wide character.
    public var isContinuation: Bool { width == 0 }
}
