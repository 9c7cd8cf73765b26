import Foundation
import Logging
import ReaderKit
import TestSupport

/// A client of the test's server, as the client tests make it: SWAPI at `/api` (and Reddit at the
/// root `withReddit`), a long timeout, and a sleeper that does not sleep unless one is given.
func makeClient(_ server: TestServer, cachePath: String, withReddit: Bool = false, retryPolicy: RetryPolicy = .default,
                maximumConcurrentRequests: Int = 6, logger: Logger = Logger(label: "test"),
                sleep: @escaping @Sendable (Duration) async throws -> Void = { _ in },
                now: @escaping @Sendable () -> Date = { Date() }) -> ReaderClient {
    var services: [any Service] = [SWAPIService(baseURL: URL(string: server.baseURL + "/api")!)]
    if withReddit { services.append(RedditService(publicBaseURL: URL(string: server.baseURL)!)) }
    return ReaderClient(configuration: .init(services: ServiceConfiguration(services), cachePath: cachePath, timeout: .seconds(60),
                                             retryPolicy: retryPolicy, maximumConcurrentRequests: maximumConcurrentRequests),
                        logger: logger, sleep: sleep, now: now)
}
