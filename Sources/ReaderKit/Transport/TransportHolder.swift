/// The client's HTTP transport, made on first use so that an offline read never starts one
/// (SwiftNIO's threads, AsyncHTTPClient's pool), and shut down once.
///
/// Once shut down it makes no other: a load still under way when its client is shut down (a
/// screen's background work as the program quits) fails as cancelled, where a transport made for
/// it would have been left for AsyncHTTPClient to find unclosed when it went, which traps.
actor TransportHolder {
    private var transport: (any HTTPTransport)?
    private var isShutDown = false
    private let make: @Sendable () -> any HTTPTransport

    /// - Parameters:
    ///   - transport: a transport to use as it is (a test's); nil to make one with `make` on first use.
    init(_ transport: (any HTTPTransport)?, make: @escaping @Sendable () -> any HTTPTransport) {
        self.transport = transport
        self.make = make
    }

    /// The transport, made now if this is its first use.
    func transportForUse() -> any HTTPTransport {
        if let transport { return transport }
        if isShutDown { return ShutDownTransport() }
        let made = make()
        transport = made
        return made
    }

    /// Closes the transport's connections; a later use is refused.
    func shutdown() async {
        isShutDown = true
        let closing = transport
        transport = nil
        await closing?.shutdown()
    }
}

/// What a request meets once its client is shut down: nothing is sent.
private struct ShutDownTransport: HTTPTransport {
    func send(_ request: HTTPRequest, deadline: ContinuousClock.Instant) async throws(TransportFailure) -> HTTPResponse {
        throw TransportFailure(.unknown, host: request.url.host ?? "", detail: "the client was shut down before this request was sent")
    }

    func shutdown() async {}
}
