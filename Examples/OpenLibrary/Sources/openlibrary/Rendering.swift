import Foundation
import OpenLibraryKit
import ReaderKit

/// The text forms of what Open Library answers. Every string from the network is sanitised
/// here, where it meets the terminal.
enum Rendering {
    /// How many subjects a work shows before "and N more".
    static let subjectsShown = 6

    static func work(_ work: OpenLibrary.Work, authorNames: [String]) -> String {
        var lines = [clean(work.title, 300) + (work.subtitle.map { ": " + clean($0, 300) } ?? "")]
        if !authorNames.isEmpty {
            let more = work.authorIDs.count - authorNames.count
            lines.append("by " + authorNames.map { clean($0, 100) }.joined(separator: ", ") + (more > 0 ? " and \(more) more" : ""))
        }
        if let date = work.firstPublishDate { lines.append("first published " + clean(date, 60)) }
        if !work.subjects.isEmpty {
            let shown = work.subjects.prefix(subjectsShown).map { clean($0, 60) }
            let more = work.subjects.count - shown.count
            lines.append("subjects: " + shown.joined(separator: ", ") + (more > 0 ? " and \(more) more" : ""))
        }
        if let description = work.description {
            let paragraphs = TerminalText.sanitiseParagraphs(description, maxLength: 4_000)
            if !paragraphs.isEmpty { lines += [""] + paragraphs }
        }
        return lines.joined(separator: "\n")
    }

    static func author(_ author: OpenLibrary.Author) -> String {
        var lines = [clean(author.name, 200)]
        switch (author.birthDate.map { clean($0, 60) }, author.deathDate.map { clean($0, 60) }) {
        case (let born?, let died?): lines.append("\(born) – \(died)")
        case (let born?, nil): lines.append("born \(born)")
        case (nil, let died?): lines.append("died \(died)")
        case (nil, nil): break
        }
        if let bio = author.bio {
            let paragraphs = TerminalText.sanitiseParagraphs(bio, maxLength: 4_000)
            if !paragraphs.isEmpty { lines += [""] + paragraphs }
        }
        return lines.joined(separator: "\n")
    }

    /// One line a work: id, year, title and authors; and, when not everything found is shown,
    /// a footer for stderr.
    static func search(_ page: OpenLibrary.SearchPage) -> (table: String, footer: String?) {
        guard !page.results.isEmpty else { return ("nothing found", nil) }
        let lines = page.results.map { result in
            let year = result.firstPublishYear.map(String.init) ?? "—"
            let authors = result.authorNames.prefix(2).map { clean($0, 60) }.joined(separator: ", ")
            return TerminalText.pad(result.id.description, toWidth: 11) + " " + TerminalText.pad(year, toWidth: 5) + " "
                + clean(result.title, 120) + (authors.isEmpty ? "" : " — " + authors)
        }
        let footer = page.numberFound > page.results.count ? "\(page.results.count) of \(page.numberFound) works" : nil
        return (lines.joined(separator: "\n"), footer)
    }

    private static func clean(_ text: String, _ maxLength: Int) -> String {
        TerminalText.sanitise(text, maxLength: maxLength)
    }
}
