import Foundation
import Testing
@testable import ReaderCLI
@testable import ReaderKit

/// `--all --json` put together page by page (``PagedJSON``) writes the bytes the whole tree of
/// every page held at once wrote, whether its items stayed in memory or went to the temporary
/// file, and read back in chunks of any size.
@Suite struct PagedJSONTests {
    static let moment = Date(timeIntervalSince1970: 1_790_000_000)

    static func page(_ body: String, source: LoadMetadata.Source = .network, stale: Bool = false, age: Int = 0,
                     errorCode: ErrorCode? = nil, url: String) -> Loaded<Int> {
        Loaded(value: 0, body: Data(body.utf8), metadata: LoadMetadata(
            source: source, stale: stale, fetchedAt: moment.addingTimeInterval(TimeInterval(-age)), ageSeconds: age,
            errorCode: errorCode, url: url))
    }

    /// Pages with none, one and several items; escapes, numbers beyond any integer, keys out of
    /// order, nesting; a cached stale page among them and the count changing on the last.
    static let pages: [Loaded<Int>] = [
        page(#"{"count": 7, "next": "p2", "results": []}"#, url: "https://swapi.dev/api/people/"),
        page(#"{"count": 7, "results": [{"name": "a\"b\\c\u0001 é 🚀 \u2028 \u009b", "n": 18446744073709551616123, "z": 1.50, "a": [{"y": null, "b": true}]}]}"#,
             source: .cache, stale: true, age: 90, url: "https://swapi.dev/api/people/?page=2"),
        page(#"{"count": 7, "results": [1, "two", null, -0.0, 1e-7]}"#, errorCode: ErrorCode(.http, 503), url: "https://swapi.dev/api/people/?page=3"),
        page(#"{"results": []}"#, url: "https://swapi.dev/api/people/?page=4"),
        page(#"{"count": 8, "results": [[], {}, "last"]}"#, age: 5, url: "https://swapi.dev/api/people/?page=5"),
    ]

    /// What `reader --all --json` wrote for these pages when it held them all: the whole tree,
    /// serialised at once (the code as it was, written out here).
    static func wholeTree(_ pages: [Loaded<Int>]) throws -> [UInt8] {
        var meta = LoadMetadata.combining(pages.map(\.metadata)).flatMap { try? JSONValue(encoding: $0) } ?? .null
        var items: [JSONValue] = []
        for page in pages {
            let raw = try JSONValue(parsing: page.body)
            items += raw["results"]?.arrayValue ?? []
            if case .object(var members) = meta { members.merge(["count": raw["count"] ?? .null]) { $1 }; meta = .object(members) }
        }
        if pages.count > 1, case .object(var members) = meta {
            members["pages"] = .integer(Int64(pages.count))
            meta = .object(members)
        }
        return JSONValue.object(["items": .array(items), "meta": meta]).serialized() + [UInt8(ascii: "\n")]
    }

    static func paged(_ pages: [Loaded<Int>], memoryLimit: Int, chunkSize: Int) throws -> (bytes: [UInt8], chunks: Int, spilled: Bool) {
        let json = PagedJSON(memoryLimit: memoryLimit, chunkSize: chunkSize) { raw in
            (raw["results"]?.arrayValue ?? [], ["count": raw["count"] ?? .null])
        }
        for page in pages { try json.add(page) }
        var bytes: [UInt8] = []
        var chunks = 0
        try json.write { (chunk) throws(ReaderError) in
            bytes += chunk
            chunks += 1
        }
        return (bytes, chunks, json.isSpilled)
    }

    @Test(arguments: [(0, 1), (1, 7), (40, 13), (150, 64), (100_000, 1 << 20)])
    func theBytesAreTheWholeTreesInMemoryOrSpilled(memoryLimit: Int, chunkSize: Int) throws {
        for count in [1, 2, Self.pages.count] {
            // Given pages, put together with items kept in memory up to `memoryLimit` bytes
            let pages = Array(Self.pages.prefix(count))

            // When they are written
            let written = try Self.paged(pages, memoryLimit: memoryLimit, chunkSize: chunkSize)

            // Then the bytes are the whole tree's, in one piece unless they went to the file
            let expected = try Self.wholeTree(pages)
            #expect(String(decoding: written.bytes, as: UTF8.self) == String(decoding: expected, as: UTF8.self),
                    "\(count) pages, limit \(memoryLimit), chunks of \(chunkSize)")
            #expect(written.bytes == expected)
            let itemBytes = try pages.flatMap { try JSONValue(parsing: $0.body)["results"]?.arrayValue ?? [] }
                .reduce(-1) { $0 + 1 + $1.serialized().count }
            #expect(written.spilled == (memoryLimit < itemBytes), "\(count) pages, \(itemBytes) bytes of items, limit \(memoryLimit)")
            #expect(written.spilled || written.chunks == 1)
        }
    }

    @Test func aBodyWithNoJSONToWriteBackIsToldOnceEveryPageIsInAndNothingIsWritten() throws {
        // Given a page the models read but whose body is no JSON value (`01`), among good ones
        let pages = [Self.pages[1], Self.page(#"{"count": 7, "results": [01]}"#, url: "https://swapi.dev/api/people/?page=2"), Self.pages[2]]
        let json = PagedJSON(memoryLimit: 0) { raw in (raw["results"]?.arrayValue ?? [], [:]) }

        // When every page is taken, then written
        for page in pages { try json.add(page) }
        var written = 0
        #expect {
            try json.write { (_) throws(ReaderError) in written += 1 }
        } throws: { error in
            // Then D1002, naming the page, and not a byte
            guard let error = error as? ReaderError, case .decoding(let failure) = error else { return false }
            return error.code.description == "D1002" && failure.url == "https://swapi.dev/api/people/?page=2"
        }
        #expect(written == 0)
    }
}
