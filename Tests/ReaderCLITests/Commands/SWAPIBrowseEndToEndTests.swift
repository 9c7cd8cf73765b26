import Foundation
import Testing
import TestSupport

/// `reader browse swapi` in tmux against the loopback server holding the whole SWAPI: the
/// collections, a table, a resource, a linked name opened and `Esc` walking back; and after
/// `reader sync swapi`, the same screens with `--offline` and no request at all.
@Suite(.processSlot) struct SWAPIBrowseEndToEndTests {
    static func bottom(_ screen: String) -> Substring {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.count > 23 ? lines[23] : ""
    }

    /// Walks collections → people → Luke Skywalker → his second film, and back to the collections.
    static func walk(_ terminal: TmuxTerminal) async throws {
        let (collections, shown) = try await terminal.waitForScreen { Self.bottom($0).hasPrefix("swapi · 6 collections") && $0.contains("people         82") }
        #expect(shown, "\(collections)")
        try await terminal.press("j", "Enter")
        let (people, listed) = try await terminal.waitForScreen { Self.bottom($0).hasPrefix("swapi/people · 82 people") }
        #expect(listed, "\(people)")
        #expect(people.split(separator: "\n").first?.hasPrefix("ID  NAME") == true, "\(people)")
        try await terminal.press("Enter")
        let (luke, opened) = try await terminal.waitForScreen { $0.contains("Homeworld  Tatooine") && $0.contains("Return of the Jedi") }
        #expect(opened, "\(luke)")
        #expect(Self.bottom(luke).hasPrefix("swapi/people/1 · Luke Skywalker"), "\(luke)")
        // The first linked name (Tatooine) is selected; two down is the second film.
        try await terminal.press("j", "j", "Enter")
        let (film, followed) = try await terminal.waitForScreen { Self.bottom($0).hasPrefix("swapi/films/2 · The Empire Strikes Back") }
        #expect(followed, "\(film)")
        try await terminal.press("Escape", "Escape", "Escape")
        #expect(try await terminal.waitForScreen { Self.bottom($0).hasPrefix("swapi · 6 collections") }.ok)
        try await terminal.press("q")
        #expect(try await terminal.waitForFile("status") == "0")
    }

    @Test func collectionsTableResourceAndLinkedNameOpenAndEscWalksBack() async throws {
        let data = SWAPIDataSet()
        try await withTestServer { data.route($0) } body: { server in
            let terminal = try await TmuxTerminal.start(ReaderProcess(server: server), columns: 80, rows: 24, arguments: ["browse", "swapi"])
            try await Self.walk(terminal)
        }
    }

    @Test func afterASyncTheSameWalkWithOfflineSendsNoRequest() async throws {
        let data = SWAPIDataSet()
        // Every copy stale at once: only --offline keeps the screens from asking again.
        let stale: TestServer.Handler = { request in
            guard case .respond(let status, let headers, let body)? = data.reply(to: request) else { return SampleAPI.route(request) }
            return .respond(status: status, headers: headers + [("Cache-Control", "max-age=0")], body: body)
        }
        try await withTestServer(stale) { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("sync", "swapi").status == 0)
            let synced = server.requests.count
            let terminal = try await TmuxTerminal.start(reader, columns: 80, rows: 24, arguments: ["browse", "--offline", "swapi"])
            try await Self.walk(terminal)
            #expect(server.requests.count == synced)
        }
    }
}
