/// How a cell is drawn: its attributes and colour, as SGR sets them.
public struct CellStyle: Hashable, Sendable {
    /// One of the terminal's eight colours, which every colour terminal has and its theme sets.
    public enum Colour: Int, Hashable, Sendable, CaseIterable {
        case black, red, green, yellow, blue, magenta, cyan, white
    }

    public var bold: Bool
    public var dim: Bool
    public var underline: Bool
    /// Foreground and background swapped: the selection, when there is no colour.
    public var reverse: Bool
    /// The foreground; nil is the terminal's own.
    public var foreground: Colour?

    public init(bold: Bool = false, dim: Bool = false, underline: Bool = false, reverse: Bool = false,
                foreground: Colour? = nil) {
        self.bold = bold
        self.dim = dim
        self.underline = underline
        self.reverse = reverse
        self.foreground = foreground
    }

    /// The terminal's default: no attribute, no colour.
    public static let plain = CellStyle()

    /// The SGR sequence that sets exactly this style from any other: a reset, then each attribute.
    /// - Parameter colour: false leaves the foreground out (`NO_COLOR`, `--no-color`).
    func selectGraphicRendition(colour: Bool) -> String {
        var codes = ["0"]
        if bold { codes.append("1") }
        if dim { codes.append("2") }
        if underline { codes.append("4") }
        if reverse { codes.append("7") }
        if colour, let foreground { codes.append(String(30 + foreground.rawValue)) }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }
}
