import Foundation
import Testing
import TestSupport

/// A status line under 100 with the built binary: AsyncHTTPClient would trap on its body, which
/// ReaderKit's StatusUnder100Handler refuses first. A malformed status line, the server's fault:
/// T1011, exit 76, not a crash.
@Suite(.processSlot) struct StatusUnder100EndToEndTests {
    @Test(arguments: ["099", "000"])
    func aStatusUnder100IsT1011AndExit76(_ status: String) async throws {
        try await withTestServer({ _ in
            .raw(Array("HTTP/1.1 \(status) X\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}".utf8))
        }) { server in
            let result = try await ReaderProcess(server: server).run("films", "1", "--retries", "0")
            #expect(result.status == 76, "\(status): \(result.stderr)")
            #expect(result.stderr.hasPrefix("error T1011: 127.0.0.1 answered outside HTTP: bytes that are not an HTTP answer\n"),
                    "\(status): \(result.stderr)")
            #expect(result.stderr.contains("hint: the service answered wrongly: it is the service's to fix"), "\(status): \(result.stderr)")
            let json = try await ReaderProcess(server: server).run("films", "1", "--retries", "0", "--json")
            #expect(json.errorJSON?["code"] as? String == "T1011", "\(status): \(json.stderr)")
        }
    }
}
