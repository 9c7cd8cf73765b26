import ReaderKit
import Testing
@testable import ReaderTerminal

/// A terminal as small as the renderer needs, to check what its bytes draw: cursor placing
/// (`CUP`), styles (`SGR` 0, 1, 2, 4, 7, 30–37), clearing (`ED 2`), and characters, measured as
/// a terminal measures them, with automatic wrap off (a character at the last column stays there).
/// Written from the sequences' definitions (ECMA-48), not from the renderer.
struct ScreenEmulator {
    struct Shown: Equatable, CustomStringConvertible {
        var grapheme: String
        var style: CellStyle
        var description: String { "\(grapheme.debugDescription)\(style == .plain ? "" : "*")" }
    }

    let size: TerminalSize
    private(set) var cells: [Shown]
    private var cursor = (x: 0, y: 0)
    private var pen = CellStyle.plain

    init(size: TerminalSize) {
        self.size = size
        cells = Array(repeating: Shown(grapheme: " ", style: .plain), count: size.columns * size.rows)
    }

    /// What `grid` shows, in the same form.
    static func shown(_ grid: Grid) -> [Shown] {
        (0..<grid.size.rows).flatMap { y in
            (0..<grid.size.columns).map { x in Shown(grapheme: grid[x: x, y: y].grapheme, style: grid[x: x, y: y].style) }
        }
    }

    mutating func apply(_ output: String) {
        var characters = output[...]
        while let character = characters.first {
            characters = characters.dropFirst()
            guard character == "\u{1B}" else { put(character); continue }
            guard characters.first == "[" else { Issue.record("an escape that is no CSI"); return }
            characters = characters.dropFirst()
            var parameters = ""
            while let next = characters.first, next.isASCII, ("0"..."?").contains(next) {
                parameters.append(next)
                characters = characters.dropFirst()
            }
            guard let final = characters.first else { Issue.record("a CSI without a final byte"); return }
            characters = characters.dropFirst()
            let numbers = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
            switch final {
            case "H":
                let row = max(1, numbers.first ?? 1), column = max(1, numbers.count > 1 ? numbers[1] : 1)
                cursor = (min(column, size.columns) - 1, min(row, size.rows) - 1)
            case "J" where numbers == [2]:
                cells = Array(repeating: Shown(grapheme: " ", style: pen), count: cells.count)
            case "m":
                for number in numbers {
                    switch number {
                    case 0: pen = .plain
                    case 1: pen.bold = true
                    case 2: pen.dim = true
                    case 4: pen.underline = true
                    case 7: pen.reverse = true
                    case 30...37: pen.foreground = CellStyle.Colour(rawValue: number - 30)
                    default: Issue.record("SGR \(number)")
                    }
                }
            default:
                Issue.record("an unexpected sequence ending in \(final)")
            }
        }
    }

    private mutating func put(_ character: Character) {
        let width = TerminalText.width(of: character)
        guard width > 0 else { Issue.record("a character of no width: \(character.debugDescription)"); return }
        var x = cursor.x
        // Wrap off: what does not fit is drawn at the last column.
        if x + width > size.columns { x = size.columns - width }
        let index = cursor.y * size.columns + x
        blankWideCharacter(at: x)
        if width == 2 { blankWideCharacter(at: x + 1) }
        cells[index] = Shown(grapheme: String(character), style: pen)
        if width == 2 { cells[index + 1] = Shown(grapheme: "", style: pen) }
        cursor.x = min(x + width, size.columns - 1)
    }

    private mutating func blankWideCharacter(at x: Int) {
        let index = cursor.y * size.columns + x
        if cells[index].grapheme.isEmpty, x > 0 {
            cells[index - 1].grapheme = " "
            cells[index].grapheme = " "
        } else if x + 1 < size.columns, cells[index + 1].grapheme.isEmpty {
            cells[index].grapheme = " "
            cells[index + 1].grapheme = " "
        }
    }
}
