import Foundation
import NIOCore
import NIOPosix

/// "Is it me or the network?": one service checked step by step (name resolution, TCP connect,
/// an HTTP request), each timed, stopping at the first step that fails.
public struct ConnectivityCheck: Sendable, Encodable {
    /// One step of the check.
    public enum Step: String, Sendable, Encodable, CaseIterable {
        case resolve, connect, request
    }

    /// How one step went.
    public struct StepResult: Sendable, Encodable {
        public var step: Step
        /// How long it took, in milliseconds.
        public var milliseconds: Double
        /// What it found: the addresses, the address connected to, or the status.
        public var detail: String
        /// The error, when the step failed; its code is in `errorCode`.
        public var error: ReaderError?

        public var errorCode: ErrorCode? { error?.code }

        enum CodingKeys: String, CodingKey { case step, milliseconds, detail, ok, errorCode = "error_code", message }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(step, forKey: .step)
            try container.encode((milliseconds * 10).rounded() / 10, forKey: .milliseconds)
            try container.encode(TerminalText.sanitise(detail, maxLength: 300), forKey: .detail)
            try container.encode(error == nil, forKey: .ok)
            try container.encode(errorCode, forKey: .errorCode)
            try container.encode(error?.message, forKey: .message)
        }
    }

    /// The service checked.
    public var service: ServiceName
    /// The URL requested in the last step.
    public var url: String
    /// How the request goes: directly, or through a proxy, whose name and address the first two
    /// steps are then about.
    public var route: ProxySettings.Route = .direct
    public var steps: [StepResult]

    /// Whether every step succeeded.
    public var isReachable: Bool { steps.count == Step.allCases.count && steps.allSatisfy { $0.error == nil } }
    /// The first failure, if any.
    public var failure: ReaderError? { steps.first { $0.error != nil }?.error }

    /// The service is `api` in `--json`, as scripts written before services were named read it.
    /// `proxy` is the proxy as shown (never its password), null when direct; `route` says how
    /// the request goes, and why directly (`direct (NO_PROXY names .example.com)`).
    enum CodingKeys: String, CodingKey { case service = "api", url, proxy, proxyVariable = "proxy_variable", route, reachable, steps }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(service, forKey: .service)
        try container.encode(url, forKey: .url)
        try container.encode(route.server?.shown, forKey: .proxy)
        try container.encode(route.server?.variable, forKey: .proxyVariable)
        try container.encode(route.shown, forKey: .route)
        try container.encode(isReachable, forKey: .reachable)
        try container.encode(steps, forKey: .steps)
    }
}

extension ReaderClient {
    /// Checks one service: resolves its host, connects to it, and sends `probeEndpoint` — the
    /// request a reader would send first, such as an API's root — bypassing the cache. Every step
    /// is bounded by `timeout`.
    public func checkConnectivity(of probeEndpoint: Endpoint<JSONValue>, timeout: Duration? = nil) async -> ConnectivityCheck {
        guard let service = configuration.services[probeEndpoint.service], let (request, probe) = probeEndpoint.request(for: service) else {
            return ConnectivityCheck(service: probeEndpoint.service, url: "", steps: [.init(
                step: .resolve, milliseconds: 0, detail: "not configured",
                error: .invalidConfiguration("no service named \(probeEndpoint.service) is configured"))])
        }
        let base = service.baseURL
        var check = ConnectivityCheck(service: service.name, url: probe.absoluteString, steps: [])
        check.route = configuration.proxies.route(for: probe)
        let proxy = check.route.server
        let serviceHost = base.host ?? ""
        let servicePort = base.port ?? (base.scheme == "https" ? 443 : 80)
        // Through a proxy, this computer resolves and connects to the proxy, never to the service.
        let host = proxy?.host ?? serviceHost
        let port = proxy?.port ?? servicePort
        let limit = timeout ?? configuration.timeout
        func proxyFailure(_ failure: TransportFailure, error: any Error) -> TransportFailure {
            guard let proxy else { return failure }
            var told = AsyncHTTPTransport.throughProxy(failure, server: proxy, error: error)
            told.host = serviceHost
            told.port = servicePort
            return told
        }

        // 1. Name resolution, on NIO's blocking pool: getaddrinfo cannot be cancelled.
        var started = ContinuousClock.now
        let addresses: [SocketAddress]
        do {
            addresses = try await AsyncHTTPTransport.withDeadline(started.advanced(by: limit)) {
                try await NIOThreadPool.singleton.runIfActive { try Self.resolve(host: host, port: port) }
            }
            check.steps.append(.init(step: .resolve, milliseconds: started.elapsedMilliseconds,
                                     detail: (proxy == nil ? "" : "the proxy: ") + addresses.compactMap(\.ipAddress).joined(separator: ", ")))
        } catch {
            let reason: TransportFailure.Reason = error is AsyncHTTPTransport.DeadlinePassed ? .timedOut : .cannotFindHost
            check.steps.append(.init(step: .resolve, milliseconds: started.elapsedMilliseconds, detail: host,
                                     error: .transport(proxyFailure(TransportFailure(reason, host: host, detail: "\(error)"), error: error))))
            return check
        }

        // 2. TCP connect to the first address that accepts.
        started = ContinuousClock.now
        do {
            let connected = try await Self.connect(to: addresses, timeout: limit)
            check.steps.append(.init(step: .connect, milliseconds: started.elapsedMilliseconds,
                                     detail: (proxy == nil ? "" : "the proxy: ") + connected))
        } catch {
            check.steps.append(.init(step: .connect, milliseconds: started.elapsedMilliseconds, detail: "\(host):\(port)",
                                     error: .transport(proxyFailure(AsyncHTTPTransport.classify(error, host: host, port: port), error: error))))
            return check
        }

        // 3. One HTTP request through the pipeline's status check: by the service's other route
        // when its block page turned reads that way (now, or remembered), as a load would go.
        started = ContinuousClock.now
        let routes = Routes(request, url: probe, service: service)
        // What the cache file remembers is read from a file that exists; none is made for it.
        if routes.detour != nil, let path = configuration.cachePath, FileManager.default.fileExists(atPath: path) { _ = await cache.open() }
        var route = await routes.taken(service: service, cache: cache, at: now())
        let pipeline = pipeline
        let now = now
        func ask(_ route: Route) async throws(ReaderError) -> HTTPResponse {
            let response = try await pipeline.send(route.url, service: service, headers: route.request.headers, secretQuery: route.request.secretQuery,
                                                   deadline: ContinuousClock.now.advanced(by: limit)).0
            try ResponseValidator.validateStatus(response, url: route.url.absoluteString, now: now(), service: service)
            return response
        }
        do throws(ReaderError) {
            let response: HTTPResponse
            do throws(ReaderError) {
                response = try await ask(route)
            } catch {
                guard let detour = routes.detour(after: error, on: route) else { throw error }
                route = detour
                response = try await ask(route)
            }
            let other = route.url == probe ? "" : " by its other route (\(route.request.translation?.name ?? "another format")), its first answering with its block page"
            check.url = route.url.absoluteString
            check.steps.append(.init(step: .request, milliseconds: started.elapsedMilliseconds,
                                     detail: "\(response.status) \(HTTPStatusName.phrase(for: response.status)), \(response.body.count) bytes\(other)"))
        } catch {
            check.steps.append(.init(step: .request, milliseconds: started.elapsedMilliseconds, detail: "GET \(probe.absoluteString)",
                                     error: error.answered(by: service).redacting(await secrets)))
        }
        return check
    }

    private static func resolve(host: String, port: Int) throws -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw TransportFailure(.cannotFindHost, host: host, detail: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var current: UnsafeMutablePointer<addrinfo>? = first
        while let entry = current {
            if let address = entry.pointee.ai_addr {
                switch Int32(entry.pointee.ai_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { addresses.append(SocketAddress($0.pointee, host: host)) }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { addresses.append(SocketAddress($0.pointee, host: host)) }
                default: break
                }
            }
            current = entry.pointee.ai_next
        }
        guard !addresses.isEmpty else { throw TransportFailure(.cannotFindHost, host: host, detail: "no address") }
        var unique: [SocketAddress] = []
        for address in addresses where !unique.contains(address) { unique.append(address) }
        return unique
    }

    private static func connect(to addresses: [SocketAddress], timeout: Duration) async throws -> String {
        let milliseconds = max(1, Int64(timeout.inSeconds * 1000))
        var lastError: (any Error)?
        for address in addresses {
            do {
                let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .connectTimeout(.milliseconds(milliseconds))
                    .connect(to: address).get()
                try? await channel.close()
                return "\(address.ipAddress ?? "?"):\(address.port ?? 0)"
            } catch {
                lastError = error
            }
        }
        throw lastError ?? TransportFailure(.cannotConnectToHost, host: "", detail: "no address")
    }
}

extension ContinuousClock.Instant {
    var elapsedMilliseconds: Double { duration(to: .now).inSeconds * 1000 }
}
