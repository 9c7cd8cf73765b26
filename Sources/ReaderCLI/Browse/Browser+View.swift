import Foundation
import ReaderKit
import ReaderTerminal

/// What ``Browser`` draws: the screen on top, or the help, or a failure's banner in its place;
/// and the bottom line, where you are on the left and what the data on screen is on the right.
extension Browser {
    func view(size: TerminalSize) -> Grid {
        var grid = Grid(size: size)
        guard size.columns >= Self.smallest.columns, size.rows >= Self.smallest.rows else {
            let lines = TerminalText.wrap("terminal too small: 40×10 at least", toWidth: size.columns, breakingLongWords: true)
            for (row, line) in lines.prefix(size.rows).enumerated() { grid.draw(line, x: 0, y: row) }
            return grid
        }
        let layout = ScreenLayout(columns: size.columns, rows: size.rows - 1, now: now)
        let top = stack[stack.count - 1]
        if showingHelp {
            drawHelp(into: &grid, in: layout)
        } else if !top.screen.hasContent, let failure = top.failure {
            drawBanner(failure, into: &grid, in: layout)
        } else {
            top.screen.draw(into: &grid, in: layout)
        }
        drawBottomLine(into: &grid)
        return grid
    }

    /// A failure in place of the screen: its message, code and hint as the CLI words them.
    private func drawBanner(_ failure: BrowseFailure, into grid: inout Grid, in layout: ScreenLayout) {
        let wording = environment.wording
        var lines: [(String, CellStyle)] = TerminalText.wrap(TerminalText.sanitise(wording.message(of: failure.error)), toWidth: layout.columns,
                                                            breakingLongWords: true).map { ($0, CellStyle(bold: true)) }
        lines.append((failure.code, CellStyle(foreground: .red)))
        if case let hint = wording.text(of: failure.hints), !hint.isEmpty {
            lines += TerminalText.wrap(TerminalText.sanitise(hint), toWidth: layout.columns, breakingLongWords: true).map { ($0, .plain) }
        }
        lines.append(("", .plain))
        lines.append((stack.count > 1 ? "r to try again · q to go back" : "r to try again · q to quit", CellStyle(dim: true)))
        for (row, line) in lines.prefix(layout.rows).enumerated() { grid.draw(line.0, x: 0, y: row, style: line.1) }
    }

    /// The keys every screen shares, grouped, for the help screen.
    var sharedKeys: [(group: String, keys: [KeyHelp])] { Self.sharedKeys(places: environment.places) }

    /// The keys every screen shares, grouped, for the help screen and the man page; `s` goes to `places`.
    static func sharedKeys(places: [String]) -> [(group: String, keys: [KeyHelp])] { [
        ("Move", [KeyHelp("j ↓  k ↑", "down, up"), KeyHelp("g Home  G End", "first, last"),
                  KeyHelp("PgDn ^d  PgUp ^u", "a page down, up")]),
        ("Open and go back", [KeyHelp("Enter l →", "open"), KeyHelp("Esc h ←", "back"),
                              KeyHelp("q", "back; quit from the first screen"), KeyHelp("^c", "quit"),
                              KeyHelp("^z", "suspend; fg comes back")]),
        ("Anywhere", [KeyHelp("r", "refresh from the network"), KeyHelp("s", "go to" + placesToGo(places)),
                      KeyHelp("/", "filter the list (Esc clears)"), KeyHelp("?", "this help; any key closes it")]),
    ] }

    /// Where `s` goes, as the services name their targets: ` (subreddit, r/a+b, swapi)`.
    static func placesToGo(_ places: [String]) -> String {
        places.isEmpty ? "" : " (" + places.joined(separator: ", ") + ")"
    }

    /// What `/` says on a screen that is no list, and the help there.
    static let noFilterHere = "/ filters lists; this screen is none"

    /// Every key, grouped, and the background failures counted so far. Where a shared key does
    /// nothing (`/` off a list), the help says so.
    func helpLines(width: Int) -> [(String, CellStyle)] {
        var groups = sharedKeys
        if !stack[stack.count - 1].screen.filters {
            groups = groups.map { group in
                (group.group, group.keys.map { $0.keys == "/" ? KeyHelp("/", "filter a list (not this screen)") : $0 })
            }
        }
        let own = stack[stack.count - 1].screen.keys
        if !own.isEmpty { groups.insert(("This screen", own), at: 2) }
        let keyWidth = groups.flatMap(\.keys).map { TerminalText.width($0.keys) }.max() ?? 0
        var lines: [(String, CellStyle)] = []
        for (group, keys) in groups {
            lines.append((group, CellStyle(bold: true)))
            lines += keys.map { ("  " + TerminalText.pad($0.keys, toWidth: keyWidth) + "  " + $0.action, .plain) }
        }
        lines.append(("Background", CellStyle(bold: true)))
        for code in notices.keys.sorted() {
            guard let (count, message) = notices[code] else { continue }
            let line = "\(code) ×\(count): \(TerminalText.sanitise(message))"
            lines += TerminalText.wrap(line, toWidth: max(1, width - 2), breakingLongWords: true).map { ("  " + $0, .plain) }
        }
        if backgroundFailures.isEmpty {
            lines.append(("  nothing failed", .plain))
        } else {
            let total = backgroundFailures.values.reduce(0) { $0 + $1.count }
            lines.append(("  \(total) failed, not shown:", .plain))
            for code in backgroundFailures.keys.sorted() {
                guard let (count, message) = backgroundFailures[code] else { continue }
                let line = "\(code) ×\(count): \(TerminalText.sanitise(message))"
                lines += TerminalText.wrap(line, toWidth: max(1, width - 2), breakingLongWords: true).map { ("  " + $0, .plain) }
            }
        }
        return lines
    }

    /// The help in one column, or two when one is too long and the terminal wide enough; when
    /// it still does not fit, what failed in the background comes first (the keys are in the
    /// README and `--help`, the failures nowhere else).
    private func drawHelp(into grid: inout Grid, in layout: ScreenLayout) {
        let half = layout.columns / 2
        let twoColumns = layout.columns >= 80 && helpLines(width: layout.columns).count > layout.rows
        var lines = helpLines(width: twoColumns ? half - 1 : layout.columns)
        if lines.count > layout.rows * (twoColumns ? 2 : 1), let background = lines.firstIndex(where: { $0.0 == "Background" }) {
            lines = Array(lines[background...] + lines[..<background])
        }
        let room = layout.rows * (twoColumns ? 2 : 1)
        for (index, (text, style)) in lines.prefix(room).enumerated() {
            let (column, row) = twoColumns && index >= layout.rows ? (1, index - layout.rows) : (0, index)
            // What does not fit says so on the last row, rather than being cut without a word.
            let cut = lines.count > room && index == room - 1
            grid.draw(cut ? "… more on a taller terminal" : text, x: column * half, y: row, style: cut ? CellStyle(dim: true) : style,
                      maxWidth: twoColumns ? half - 1 : nil)
        }
    }

    /// The last row: a prompt while one is open; else where you are on the left and what the data
    /// on screen is on the right. The note on the right comes first (its code is what to act on);
    /// the left gives up its longer forms.
    private func drawBottomLine(into grid: inout Grid) {
        let y = grid.size.rows - 1
        let width = grid.size.columns
        if let prompt {
            let (label, text) = switch prompt {
            case .target(let text): ("go to\(Self.placesToGo(environment.places)): ", text)
            case .filter(let text): ("/", text)
            }
            let room = max(1, width - TerminalText.width(label) - 1)
            // The end of the text stays in view as it grows: the characters that fit, counted
            // from the end once (a paste of hundreds must not cost hundreds of measures a key).
            var counted = 0
            let kept = text.reversed().prefix { character in
                counted += TerminalText.width(of: character)
                return counted <= room
            }
            let shown = String(kept.reversed())
            let used = grid.draw(label + shown, x: 0, y: y)
            grid.setStyle(CellStyle(reverse: true), x: min(used, width - 1), y: y, width: 1)
            return
        }
        let top = stack[stack.count - 1]
        // A note wider than the terminal (a whole URL for `o`) takes the rows above it, so that
        // it can be read and copied whole.
        if let note, TerminalText.width(note) > width {
            // Its start, on at most half the screen; cut, it ends in `…` (a link's start is what
            // says where it goes).
            var lines = Array(TerminalText.wrap(note, toWidth: width, breakingLongWords: true))
            let most = max(1, grid.size.rows / 2)
            if lines.count > most {
                lines = Array(lines.prefix(most))
                lines[most - 1] = TerminalText.truncate(lines[most - 1] + "…", toWidth: width)
                if !lines[most - 1].hasSuffix("…") { lines[most - 1] = String(lines[most - 1].dropLast()) + "…" }
            }
            for (offset, line) in lines.enumerated() {
                let row = y - lines.count + 1 + offset
                grid.clear(row: row)
                grid.draw(line, x: 0, y: row)
            }
            return
        }
        var forms = top.screen.place
        if !top.filter.isEmpty, let first = forms.first { forms.insert("\(first) · /\(top.filter)", at: 0) }
        let shortestLeft = forms.last.map { TerminalText.width($0) } ?? 0
        // The right gives up its words before its code: `copy from 3 h ago · offline · T1003`,
        // then `3 h ago · offline · T1003`, then the code; a note to read (a URL) is cut last.
        let notes = note.map { [$0] } ?? freshnessNotes(of: top)
        let fitting = notes.first { TerminalText.width($0) + 1 + min(shortestLeft, 8) <= width }
        let right = fitting ?? TerminalText.truncate(notes.last ?? "", toWidth: note == nil ? width - 9 : width)
        let room = width - TerminalText.width(right) - (right.isEmpty ? 0 : 1)
        let left = forms.first { TerminalText.width($0) <= room } ?? TerminalText.truncate(forms.last ?? "", toWidth: max(0, room))
        grid.draw(left, x: 0, y: y)
        if !right.isEmpty { grid.draw(right, x: width - TerminalText.width(right), y: y, style: CellStyle(dim: note == nil)) }
    }

    /// What the data on `entry` is when it is not fresh, from the longest form to the shortest:
    /// `copy from 3 h ago · offline · T1003`, `3 h ago · offline · T1003`, `offline · T1003`.
    /// Empty when it is fresh.
    func freshnessNotes(of entry: Entry) -> [String] {
        var age: String?
        // Only the data on screen is spoken of: another service's being offline is not its.
        let offline = isOffline(entry) ? self.offline : nil
        if let shown = entry.screen.shown, shown.stale || shown.errorCode != nil || offline != nil {
            age = RelativeAge.describe(from: shown.fetchedAt, to: now) + " ago"
        }
        var why: [String] = []
        if let offline {
            why = ["offline", offline]
        } else if let failure = entry.failure, let until = failure.rateLimitedUntil, until > now {
            why = ["rate limited until \(Self.clockTime(until))", failure.code]
        } else if let error = entry.servedInsteadOf, error.meansRateLimited, entry.screen.shown?.errorCode == error.code,
                  let until = rateLimitedUntil, until > now {
            why = ["rate limited until \(Self.clockTime(until))", error.code.description]
        } else if let failure = entry.failure, entry.screen.hasContent {
            why = [age == nil ? "not refreshed" : nil, failure.code].compactMap { $0 }
        } else if let code = entry.screen.shown?.errorCode {
            why = [code.description]
        }
        guard age != nil || !why.isEmpty else { return [] }
        let reason = why.joined(separator: " · ")
        let forms = [age.map { "copy from \($0)" }, age].compactMap { $0 }.map { ([$0] + why).joined(separator: " · ") }
        // The code last of all: what to act on stays whole.
        let code = why.count > 1 ? why.last.map { [$0] } ?? [] : []
        return forms + (why.isEmpty ? [] : [reason]) + code
    }

    /// `14:05`, in the local time zone.
    static func clockTime(_ date: Date) -> String {
        let parts = Calendar.current.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }
}
