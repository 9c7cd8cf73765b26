import ArgumentParser
import Foundation
import OpenLibraryKit
import ReaderKit

/// The options every command takes: how the cache and the network may be used, and the output form.
struct CommonOptions: ParsableArguments {
    @Flag(help: "Never use the network: show the cached copy, however old.")
    var offline = false

    @Flag(help: "Ask the network even when the cached copy is fresh (it is still shown if the network fails).")
    var refresh = false

    @Flag(help: "Write the answer as JSON: {\"item\": <Open Library's JSON>, \"meta\": <where it came from>}.")
    var json = false

    @Option(help: ArgumentHelp("The cache file (default: reader's, from READER_CACHE_PATH or ~/.cache/reader).", valueName: "path"))
    var cachePath: String?

    func validate() throws {
        if offline && refresh { throw ValidationError("--offline and --refresh cannot be used together") }
    }

    var loadOptions: LoadOptions {
        LoadOptions(cacheMode: offline ? .offline : refresh ? .refresh : .normal)
    }

    /// A client for Open Library alone, configured from the environment and these options.
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` for a bad `OPENLIBRARY_URL` or
    ///   `OPENLIBRARY_CONTACT`, or when no cache location can be found.
    func makeClient() throws(ReaderError) -> ReaderClient {
        let environment = ProcessInfo.processInfo.environment
        let service = try OpenLibrary.fromEnvironment(environment)
        let cachePath = try CacheLocation.resolve(explicitPath: cachePath, environment: environment)
        return ReaderClient(configuration: .init(services: ServiceConfiguration([service]), cachePath: cachePath))
    }

    /// Runs `work` with a client, shuts the client down and shows the run's notices (a stale
    /// copy shown, a cache that could not be written) on stderr, whether or not it failed.
    func withClient<T>(_ work: (ReaderClient) async throws(LoadFailure) -> T) async throws -> T {
        let client = try makeClient()
        let result: Result<T, LoadFailure>
        do throws(LoadFailure) {
            result = .success(try await work(client))
        } catch {
            result = .failure(error)
        }
        await client.shutdown()
        for (notice, count) in await client.notices.drain() {
            Console.error("notice \(notice.code): \(OpenLibraryWording().message(of: notice))" + (count > 1 ? " (\(count) times)" : ""))
        }
        return try result.get()
    }

    /// Writes `loaded` as `{"item": …, "meta": …}`.
    /// - Throws: ``ReaderError/decoding(_:)`` when the body the models read is not JSON that can
    ///   be written back (a number no JSON reader holds).
    func writeJSON<Value>(_ loaded: Loaded<Value>) throws(ReaderError) {
        let item: JSONValue
        let meta: JSONValue
        do {
            item = try JSONValue(parsing: loaded.body)
            let encoded = try ReaderJSON.makeEncoder().encode(loaded.metadata)
            meta = try JSONValue(parsing: encoded)
        } catch {
            throw .decoding(DecodingFailure(.corrupt, codingPath: "", detail: "for --json: \(error)", url: loaded.metadata.url))
        }
        Console.output(String(decoding: JSONValue.object(["item": item, "meta": meta]).serialized(), as: UTF8.self))
    }
}

/// Where text goes: data to stdout, everything else to stderr.
enum Console {
    static func output(_ text: String) {
        print(text)
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
