import Foundation
import Testing
import TestSupport

/// Bad input gets a clear error and a code before any request is made.
@Suite(.processSlot) struct ArgumentsAndConfigurationTests {
    @Test(arguments: [
        ["posts", "../x"], ["posts", "has space"], ["posts", "abcdefghijklmnopqrstuv"], ["posts", "--limit", "0"], ["posts", "--limit", "101"],
        ["posts", "--sort", "best"], ["films", "0"], ["films", "--page", "0"], ["films", "abc"], ["films", "1", "--page", "2"],
        ["films", "--search", ""], ["films", "--timeout", "0"], ["films", "--offline", "--refresh"], ["nosuchcommand"],
    ])
    func invalidArgumentsExit64WithoutARequest(arguments: [String]) async throws {
        try await withTestServer(SampleAPI.route) { server in
            let result = try await ReaderProcess(server: server).run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("error R1001:"))
            #expect(result.stderr.contains("Usage:"))
            #expect(server.requests.isEmpty)
        }
    }

    @Test func invalidArgumentsWithJSONGiveAJSONError() async throws {
        let result = try await ReaderProcess().run("posts", "../x", "--json")
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        let error = try #require(result.errorJSON)
        #expect(error["code"] as? String == "R1001" && error["domain"] as? String == "R")
        #expect(error["decision"] as? String == "alert" && error["exit_code"] as? Int == 64)
    }

    @Test(arguments: ["not a url", "ftp://example.com", "http://", "http://host/api?x=1"])
    func invalidConfigurationExits78(value: String) async throws {
        var reader = ReaderProcess()
        reader.environment["READER_SWAPI_URL"] = value
        let result = try await reader.run("films")
        #expect(result.status == 78)
        #expect(result.stderr.contains("error R1002: READER_SWAPI_URL"))
    }

    @Test func helpAndVersionExitZero() async throws {
        let help = try await ReaderProcess().run("--help")
        #expect(help.status == 0 && help.stdout.contains("posts") && help.stdout.contains("films"))
        #expect(try await ReaderProcess().run("--version").status == 0)
    }

    @Test func helpShowsDefaultsInTheirOwnUnits() async throws {
        let help = try await ReaderProcess().run("films", "--help")
        #expect(help.status == 0)
        #expect(help.stdout.contains("(default: 100MB)"))
    }

    @Test func aFailureInJSONModeLeavesStdoutEmptyAndDescribesTheErrorOnStderr() async throws {
        let result = try await ReaderProcess().run("films", "--offline", "--json")
        #expect(result.status == 69)
        #expect(result.stdout.isEmpty)
        let error = try #require(result.errorJSON)
        #expect(error["code"] as? String == "C1001" && error["exit_code"] as? Int == 69)
        #expect(error["message"] as? String != nil && error["decision"] as? String == "alert")
    }

    @Test func verboseAddsTheTechnicalDetailToAnError() async throws {
        let quiet = try await ReaderProcess().run("films", "--retries", "0")
        #expect(quiet.status == 75 && !quiet.stderr.contains("detail:"))
        let verbose = try await ReaderProcess().run("films", "--retries", "0", "--verbose")
        #expect(verbose.status == 75)
        #expect(verbose.stderr.contains("  detail: "))
        #expect(verbose.stderr.contains("request.url=http://127.0.0.1:9/api/films/"))
    }
}
