import Foundation
import ReaderKit
import Testing
import TestSupport

/// `reader people --all` over a collection larger than `--all --json` keeps in memory (12 pages
/// of about half a megabyte: past 4 MB its items go to a temporary file), against a real server:
/// the same bytes as ever, nothing written when a page fails, a clear error when the temporary
/// file cannot be written.
@Suite(.processSlot) struct AllPagesEndToEndTests {
    static let people = PaddedPeople(pages: 12, filmsOnAPage: 1_500, filmsAlone: 5)

    /// The items of every page, serialised as reader writes JSON: what `items` holds.
    static func expectedItems() throws -> String {
        var items: [JSONValue] = []
        for number in 1...people.pages {
            let body = try #require(people.body(ofPage: number))
            items += try JSONValue(parsing: Data(body))["results"]?.arrayValue ?? []
        }
        return String(decoding: JSONValue.array(items).serialized(), as: UTF8.self)
    }

    /// `{"items":ITEMS,"meta":META}` and a newline, split into its items and its meta.
    static func parts(of output: String) -> (items: Substring, meta: [String: Any])? {
        guard output.hasPrefix(#"{"items":"#), output.hasSuffix("}\n"), let metaStart = output.range(of: #"],"meta":{"#, options: .backwards) else { return nil }
        let items = output[output.index(output.startIndex, offsetBy: #"{"items":"#.count)...metaStart.lowerBound]
        let meta = output[output.index(before: metaStart.upperBound)..<output.index(output.endIndex, offsetBy: -2)]
        return (items, (try? JSONSerialization.jsonObject(with: Data(meta.utf8))) as? [String: Any] ?? [:])
    }

    @Test func everyItemIsWrittenAsEverOnlineAndOffline() async throws {
        // Given a people collection of 12 large pages
        try await withTestServer { Self.people.reply(to: $0) ?? SampleAPI.route($0) } body: { server in
            let reader = ReaderProcess(server: server)
            let expected = try Self.expectedItems()
            #expect(expected.utf8.count > 4 << 20, "more than is kept in memory")

            // When every page is read as JSON, from the network, then from the cache
            let online = try await reader.run("people", "--all", "--json")
            let offline = try await reader.run("people", "--all", "--json", "--offline")

            // Then both hold every item, byte for byte, with one meta for the 12 pages
            for (result, source) in [(online, "network"), (offline, "cache")] {
                #expect(result.status == 0, "\(result.stderr)")
                let parts = try #require(Self.parts(of: result.stdout), "\(result.stdout.prefix(200))")
                #expect(parts.items == expected, "from the \(source)")
                #expect(parts.meta["pages"] as? Int == 12 && parts.meta["count"] as? Int == 120)
                #expect(parts.meta["source"] as? String == source && parts.meta["stale"] as? Bool == false)
                #expect(parts.meta["url"] as? String == server.baseURL + "/api/people/")
                #expect(Set(parts.meta.keys) == ["age_seconds", "count", "error_code", "fetched_at", "pages", "source", "stale", "url",
                                                 "served_as", "http_cache"])
                // One copy's HTTP cache state says nothing of twelve pages.
                #expect(parts.meta["http_cache"] is NSNull)
                #expect(parts.meta["served_as"] as? String == (source == "cache" ? "fresh" : nil), "offline, fresh copies are fresh")
            }

            // And the table lists them all
            let table = try await reader.run("people", "--all", "--offline")
            #expect(table.status == 0, "\(table.stderr)")
            #expect(table.stdout.split(separator: "\n").count == 121 && table.stdout.contains("Luke Skywalker 111"))
            #expect(table.stderr == "120 in all, 12 pages\n")
        }
    }

    @Test func aLaterPageThatFailsLeavesStdoutEmpty() async throws {
        // Given 12 large pages, the eleventh a server error
        try await withTestServer { request in
            if request.path == "/api/people/", request.query["page"] == "11" {
                return .respond(status: 500, headers: [("Content-Type", "text/html")], body: Array("<h1>Server Error (500)</h1>".utf8))
            }
            return Self.people.reply(to: request) ?? SampleAPI.route(request)
        } body: { server in
            let reader = ReaderProcess(server: server)

            // When every page is read, as JSON and as a table
            for arguments in [["people", "--all", "--json"], ["people", "--all"]] {
                let result = try await reader.run(arguments)

                // Then nothing is written, and the failure is the page's: a server error, exit 69
                #expect(result.status == 69, "\(arguments): \(result.stderr)")
                #expect(result.stdout.isEmpty, "\(arguments): \(result.stdout.prefix(200))")
                if arguments.contains("--json") {
                    #expect(result.errorJSON?["code"] as? String == "H500", "\(result.stderr)")
                } else {
                    #expect(result.stderr.hasPrefix("error H500: "), "\(result.stderr)")
                }
            }
        }
    }

    @Test func aTemporaryFileThatCannotBeWrittenIsO1002AndNothingIsWritten() async throws {
        // Given 12 large pages, and files limited to 2 MB or less (`ulimit -f`; the signal it
        // raises ignored, so that a write past it fails with EFBIG); a cache too small to store
        // a page, so that the cache's own file stays within the limit
        try await withTestServer { Self.people.reply(to: $0) ?? SampleAPI.route($0) } body: { server in
            let reader = ReaderProcess(server: server)
            let limited = ["/bin/sh", "-c", #"trap '' XFSZ; ulimit -f 2048; exec "$0" "$@""#]

            // When every page is read as JSON, past what is kept in memory
            let result = try await reader.run(["people", "--all", "--json", "--cache-size", "100KB"], prefix: limited)

            // Then the temporary file's failure is said with its code, exit 74, and stdout is empty
            #expect(result.status == 74, "\(result.stderr)")
            #expect(result.stdout.isEmpty)
            let error = try #require(result.errorJSON, "\(result.stderr)")
            #expect(error["code"] as? String == "O1002" && error["exit_code"] as? Int == 74)
            #expect(error["message"] as? String == "the temporary file the output is put together in cannot be written: file too large")
            #expect(error["hint"] as? String == "the system's file size limit (ulimit -f) is below what it needs: raise it, or read fewer pages")
        }
    }
}
