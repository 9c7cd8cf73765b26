import Foundation
import Testing
import TestSupport

/// `reader sync swapi`, then every SWAPI command with `--offline`, against a server holding the
/// whole data set; and the views that take many requests: --all and detail views with names.
@Suite(.processSlot) struct SyncAndOfflineEndToEndTests {
    static let collections = ["films", "people", "planets", "species", "starships", "vehicles"]

    @Test(.replaysRecordings) func afterSyncEverySWAPICommandWorksOffline() async throws {
        let data = SWAPIDataSet()
        try await withTestServer { data.reply(to: $0) ?? Fixtures.route($0) } body: { server in
            let reader = ReaderProcess(server: server)

            let sync = try await reader.run("sync", "swapi")
            #expect(sync.status == 0, "\(sync.stderr)")
            #expect(sync.stdout.contains("sync swapi: \(data.requestsForEverything) fetched"), "\(sync.stdout)")
            #expect(server.requests.count == data.requestsForEverything)
            #expect(!sync.stderr.contains("error"))

            await server.shutdown()
            for collection in Self.collections {
                let size = SWAPIDataSet.sizes[collection]!
                let list = try await reader.run(collection, "--offline")
                #expect(list.status == 0, "\(collection): \(list.stderr)")
                #expect(list.stdout.split(separator: "\n").count == min(10, size) + 1)

                let all = try await reader.run(collection, "--offline", "--all", "--json")
                #expect(all.status == 0, "\(collection) --all: \(all.stderr)")
                #expect((all.json?["items"] as? [Any])?.count == size)

                let last = try await reader.run(collection, "--offline", "--page", String((size + 9) / 10))
                #expect(last.status == 0)

                let detail = try await reader.run(collection, "2", "--offline")
                #expect(detail.status == 0, "\(collection) 2: \(detail.stderr)")
                // Every link was synced, so every name is known: no link is left unnamed.
                #expect(!detail.stdout.contains("swapi.dev") && !detail.stderr.contains("could not be loaded"), "\(detail.stdout)\(detail.stderr)")
            }
            let films = try await reader.run("films", "1", "--offline")
            #expect(films.stdout.contains("Luke Skywalker") && films.stdout.contains("Tatooine"))

            // A search never made online is answered from the synced collection, as SWAPI would.
            let search = try await reader.run("planets", "--search", "TAT", "--offline", "--json")
            #expect(search.status == 0, "\(search.stderr)")
            let names = (search.json?["items"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
            #expect(names == ["Tatooine", "Tatooine 11", "Tatooine 21", "Tatooine 31", "Tatooine 41", "Tatooine 51"])
            #expect((search.json?["meta"] as? [String: Any])?["count"] as? Int == 6)
            let all = try await reader.run("people", "--search", "skywalker", "--all", "--offline")
            #expect(all.status == 0 && all.stdout.contains("Luke Skywalker") && all.stderr.contains("in all"))
            let nothing = try await reader.run("films", "--search", "no such film", "--offline")
            #expect(nothing.status == 0 && nothing.stdout == "nothing found\n")
        }
    }

    @Test(.replaysRecordings) func aSecondSyncAsksForNothingFresh() async throws {
        let data = SWAPIDataSet()
        try await withTestServer { data.reply(to: $0) ?? Fixtures.route($0) } body: { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("sync", "swapi").status == 0)
            let again = try await reader.run("sync", "swapi", "--json")
            #expect(again.status == 0)
            let report = again.json?["swapi"] as? [String: Any]
            #expect(report?["already_fresh"] as? Int == data.requestsForEverything)
            #expect(report?["complete"] as? Bool == true)
            #expect(server.requests.count == data.requestsForEverything)
        }
    }

    @Test(.replaysRecordings) func aSyncWithFailuresSumsThemUpAndSaysItIsIncomplete() async throws {
        let data = SWAPIDataSet()
        // Every starship fails to connect: the connection is closed without an answer.
        try await withTestServer { request in
            if request.path.hasPrefix("/api/starships/") && request.path.count > "/api/starships/".count { return .close }
            return data.reply(to: request) ?? Fixtures.route(request)
        } body: { server in
            let reader = ReaderProcess(server: server)
            let sync = try await reader.run("sync", "swapi", "--retries", "0")
            #expect(sync.status == 75)
            #expect(sync.stdout.contains("36 failed (T1005 ×36"), "\(sync.stdout)")
            // Summed up: one line for the whole sync, not one per failed request.
            #expect(sync.stderr.components(separatedBy: "error T1005").count == 2, "\(sync.stderr)")
        }
    }

    @Test(.replaysRecordings) func aDetailViewNamesItsLinksAndCostsNothingTheSecondTime() async throws {
        let data = SWAPIDataSet()
        try await withTestServer { data.reply(to: $0) ?? Fixtures.route($0) } body: { server in
            let reader = ReaderProcess(server: server)
            let first = try await reader.run("films", "1")
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.contains("Luke Skywalker") && first.stdout.contains("Millennium Falcon"))
            let requests = server.requests.count
            #expect(requests > 10)
            let second = try await reader.run("films", "1")
            #expect(second.stdout == first.stdout)
            #expect(server.requests.count == requests)
        }
    }

    @Test(.replaysRecordings) func namesThatCannotBeLoadedShowAsLinksWithOneNote() async throws {
        let data = SWAPIDataSet()
        try await withTestServer { request in
            request.path.hasPrefix("/api/people/") ? .close : (data.reply(to: request) ?? Fixtures.route(request))
        } body: { server in
            let result = try await ReaderProcess(server: server).run("films", "1", "--retries", "0")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("people/1") && result.stdout.contains("Tatooine"))
            #expect(result.stderr.contains("linked names could not be loaded (T1005)"), "\(result.stderr)")
        }
    }

    @Test(.replaysRecordings) func allPagesFollowTheCountWithinTheConfiguredServer() async throws {
        let data = SWAPIDataSet()
        try await withTestServer { data.reply(to: $0) ?? Fixtures.route($0) } body: { server in
            let result = try await ReaderProcess(server: server).run("people", "--all", "--json")
            #expect(result.status == 0)
            let items = result.json?["items"] as? [[String: Any]] ?? []
            #expect(items.count == 82)
            #expect(Set(items.compactMap { $0["url"] as? String }).count == 82)
            #expect((result.json?["meta"] as? [String: Any])?["pages"] as? Int == 9)
            // The `next` links name swapi.dev; reader asked the configured server, once a page.
            #expect(server.requests.filter { $0.path == "/api/people/" }.count == 9)
        }
    }

    @Test(.replaysRecordings) func progressShowsOnATerminalAndNotOnAPipe() async throws {
        let data = SWAPIDataSet()
        try await withTestServer { data.reply(to: $0) ?? Fixtures.route($0) } body: { server in
            let reader = ReaderProcess(server: server)
            let onTerminal = try await reader.runOnTerminal(["people", "--all"], streams: .standardError)
            #expect(onTerminal.status == 0)
            #expect(onTerminal.stderr.contains("reading people: 9/9"), "\(onTerminal.stderr.debugDescription)")
            #expect(onTerminal.stderr.contains("\r\u{1B}[K"))
            #expect(onTerminal.stdout.contains("Luke Skywalker"))

            let onPipe = try await reader.run("people", "--all", "--refresh")
            #expect(onPipe.status == 0)
            #expect(!onPipe.stderr.contains("reading people") && !onPipe.stderr.contains("\u{1B}"))
            #expect(onPipe.stderr.contains("82 in all, 9 pages"))
        }
    }
}
