/// The client's HTTP transport, made on first use so that an offline read never starts one
/// (SwiftNIO's threads, AsyncHTTPClient's pool), and shut down once.
actor TransportHolder {
    private var transport: (any HTTPTransport)?
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
        let made = make()
        transport = made
        return made
    }

    /// Closes the transport's connections; a later use makes a new one.
    func shutdown() async {
        let closing = transport
        transport = nil
        await closing?.shutdown()
    }
}
