/// The size of a terminal or a grid, in cells.
public struct TerminalSize: Hashable, Sendable {
    /// The largest size taken: a terminal reports up to 65,535 each way, which would be four
    /// billion cells; beyond these, the grid is cut (what is drawn stays at the top left).
    public static let largest = TerminalSize(uncheckedColumns: 1000, rows: 500)

    public let columns: Int
    public let rows: Int

    /// A size of `columns` × `rows`, each bounded to 0…``largest``.
    public init(columns: Int, rows: Int) {
        self.columns = min(max(0, columns), Self.largest.columns)
        self.rows = min(max(0, rows), Self.largest.rows)
    }

    private init(uncheckedColumns columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }
}
