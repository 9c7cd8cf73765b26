import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NIOSSL
import Synchronization

/// The ``HTTPTransport`` over AsyncHTTPClient.
///
/// It works around the client's known traps: its deadline stops once the headers arrive, so the
/// whole request is bounded by cancelling its task; connection failures are retried inside the
/// client until the connect timeout, so that timeout is set from the command's; bodies are
/// collected with a cap and decompressed with a limit, so neither a huge nor a bomb body is
/// inflated in memory.
///
/// Requests go through the proxy ``ProxySettings`` names for their URL, or directly: one client
/// (one connection pool) for direct requests, made at once, and one for each proxy in use, made
/// on its first request.
public struct AsyncHTTPTransport: HTTPTransport {
    private let client: HTTPClient
    private let proxied: ProxiedClients
    /// The proxies requests go through.
    public let proxies: ProxySettings
    /// The largest body, after decompression, that is read.
    public let maximumBodySize: Int

    /// Creates a transport with its own connection pool.
    /// - Parameters:
    ///   - connectTimeout: how long to keep trying to connect; also bounds name resolution.
    ///   - maximumBodySize: the largest (decompressed) body accepted; default 10 MB.
    ///   - proxies: the proxies to go through; none by default.
    public init(connectTimeout: Duration, maximumBodySize: Int = 10 * 1024 * 1024, proxies: ProxySettings = .direct) {
        self.init(connectTimeout: connectTimeout, maximumBodySize: maximumBodySize, alsoTrusting: [], proxies: proxies)
    }

    /// A transport that trusts, besides the system's authorities, the certificates in the PEM
    /// files `authorities`: for tests of certificate faults, whose test authority no system trusts.
    /// Not public, and read from no environment variable or setting, so that no program or user of
    /// `reader` can widen what is trusted.
    package init(connectTimeout: Duration, maximumBodySize: Int = 10 * 1024 * 1024, alsoTrusting authorities: [String],
                 proxies: ProxySettings = .direct) {
        var configuration = HTTPClient.Configuration()
        if !authorities.isEmpty {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = authorities.map { .file($0) }
            configuration.tlsConfiguration = tls
        }
        let milliseconds = max(1, connectTimeout.components.seconds * 1000 + connectTimeout.components.attoseconds / 1_000_000_000_000_000)
        configuration.timeout = .init(connect: .milliseconds(milliseconds), read: .milliseconds(milliseconds))
        // Redirects are followed by ReaderClient, which asks the service what a redirect means.
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .enabled(limit: .size(maximumBodySize))
        configuration.httpVersion = .http1Only
        // A status under 100 crashes AsyncHTTPClient (StatusUnder100Handler): every HTTP/1.1
        // connection, the only version asked for, direct or through a proxy's tunnel, refuses it.
        configuration.http1_1ConnectionDebugInitializer = { channel in StatusUnder100Handler.install(on: channel) }
        // A refused connection or an unknown host fails at once with its real cause, instead of
        // being retried inside the client until the connect timeout; ReaderKit's RetryPolicy decides.
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        proxied = ProxiedClients(configuration: configuration)
        self.proxies = proxies
        self.maximumBodySize = maximumBodySize
    }

    public func shutdown() async {
        try? await client.shutdown()
        for client in proxied.removeAll() { try? await client.shutdown() }
    }

    /// The clients of the proxies in use, each made on its first request with the direct
    /// client's configuration and the proxy: AsyncHTTPClient takes one proxy a client.
    final class ProxiedClients: Sendable {
        private let configuration: HTTPClient.Configuration
        private let clients = Mutex<[ProxySettings.Server: HTTPClient]>([:])

        init(configuration: HTTPClient.Configuration) {
            self.configuration = configuration
        }

        func client(for server: ProxySettings.Server) -> HTTPClient {
            clients.withLock { clients in
                if let client = clients[server.identity] { return client }
                var configuration = self.configuration
                let authorization = server.user.map { HTTPClient.Authorization.basic(username: $0, password: server.password ?? "") }
                configuration.proxy = .server(host: server.host, port: server.port, authorization: authorization)
                let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
                clients[server.identity] = client
                return client
            }
        }

        func removeAll() -> [HTTPClient] {
            clients.withLock { clients in
                defer { clients = [:] }
                return Array(clients.values)
            }
        }
    }

    public func send(_ request: HTTPRequest, deadline: ContinuousClock.Instant) async throws(TransportFailure) -> HTTPResponse {
        let host = request.url.host ?? request.url.absoluteString
        let port = request.url.port ?? (request.url.scheme?.lowercased() == "https" ? 443 : 80)
        // SwiftNIO traps on a port that does not fit 16 bits, and AsyncHTTPClient connects to the
        // default port when one is too large for `URL.port`: neither may see such a URL.
        guard Origin.hasPortInRange(request.url) else {
            throw TransportFailure(.unknown, host: host, detail: "\(Origin.shown(request.url)): the port is outside 1…65535; the request was not sent")
        }
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = request.method == .post ? .POST : .GET
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        if outgoing.headers["Accept-Encoding"].isEmpty { outgoing.headers.add(name: "Accept-Encoding", value: "gzip, deflate") }
        let route = proxies.route(for: request.url)
        let client = route.server.map { proxied.client(for: $0) } ?? self.client
        let prepared = outgoing
        let limit = maximumBodySize
        let remaining = ContinuousClock.now.duration(to: deadline)
        let nioDeadline = NIODeadline.now() + .nanoseconds(max(0, Int64(remaining.components.seconds) * 1_000_000_000
            + remaining.components.attoseconds / 1_000_000_000))
        let answer: HTTPResponse
        do {
            answer = try await Self.withDeadline(deadline) {
                let response = try await client.execute(prepared, deadline: nioDeadline)
                let body = try await response.body.collect(upTo: limit)
                let bytes = Data(body.readableBytesView)
                let headers = HeaderFields(response.headers.map { (name: $0.name, value: $0.value) })
                return HTTPResponse(status: Int(response.status.code), headers: headers, body: bytes)
            }
            // A 407 is only ever a proxy's: the service never sees a request the proxy stopped.
            if answer.status == 407, let server = route.server {
                throw Self.failure(of: server, .proxyAuthenticationRequired, host: host, port: port, detail: "the proxy answered 407")
            }
        } catch let failure as TransportFailure {
            // Through a proxy, a deadline or a refusal of ours is met on its connection: named.
            guard let server = route.server, failure.proxy == nil else { throw failure }
            var named = failure
            named.proxy = server.shown
            named.proxyVariable = server.variable
            throw named
        } catch {
            var failure = Self.classify(error, host: host, port: port)
            if let server = route.server {
                // Through a proxy, every connection is to the proxy: a name that does not resolve
                // or a refused connection is the proxy's, and a second handshake to read a refused
                // certificate would go around it.
                throw Self.throughProxy(failure, server: server, error: error)
            }
            if [.certificateUntrusted, .certificateWrongName].contains(failure.reason) {
                failure = await Self.readingTheCertificate(of: failure, url: request.url, deadline: nioDeadline)
            }
            throw failure
        }
        return answer
    }

    /// `failure`, a refused certificate, told more precisely from the certificate itself: dates
    /// come first, as an expired certificate is the service's to renew whatever else is wrong with
    /// it (self-signed too). The certificate is read in a second handshake that trusts nothing.
    static func readingTheCertificate(of failure: TransportFailure, url: URL, deadline: NIODeadline) async -> TransportFailure {
        guard let port = failure.port else { return failure }
        // SNI as AsyncHTTPClient sends it: a name, never an address.
        let serverName = (try? SocketAddress(ipAddress: failure.host, port: 0)) == nil ? failure.host : nil
        guard let certificate = await PeerCertificateProbe.certificate(host: failure.host, port: port, serverName: serverName,
                                                                       deadline: deadline) else { return failure }
        var told = failure
        told.certificate = certificate
        let now = Date()
        if now > certificate.notValidAfter {
            told.reason = .certificateExpired
        } else if now < certificate.notValidBefore {
            told.reason = .certificateNotYetValid
        }
        return told
    }

    struct DeadlinePassed: Error {}

    /// A failure of a request sent through `server`, told as the proxy's where it is the proxy's.
    static func throughProxy(_ failure: TransportFailure, server: ProxySettings.Server, error: any Error) -> TransportFailure {
        var told = failure
        told.proxy = server.shown
        told.proxyVariable = server.variable
        if let clientError = error as? HTTPClientError {
            if clientError == .proxyAuthenticationRequired { told.reason = .proxyAuthenticationRequired }
            if clientError == .invalidProxyResponse { told.reason = .proxyRefused }
            if clientError == .connectTimeout {
                told.reason = .proxyUnreachable
                told.fault = "connecting to it timed out"
            }
        }
        switch failure.reason {
        case .cannotFindHost:
            told.reason = .proxyUnreachable
            told.fault = "its name does not resolve"
        case .cannotConnectToHost:
            told.reason = .proxyUnreachable
            told.fault = "nothing accepted the connection"
        case .notConnected:
            told.reason = .proxyUnreachable
            told.fault = "there is no network route to it"
        default:
            break
        }
        return told
    }

    static func failure(of server: ProxySettings.Server, _ reason: TransportFailure.Reason, host: String, port: Int,
                        detail: String) -> TransportFailure {
        var failure = TransportFailure(reason, host: host, port: port, detail: detail)
        failure.proxy = server.shown
        failure.proxyVariable = server.variable
        return failure
    }

    /// `text` without the source paths and lines some libraries put in their errors (BoringSSL's
    /// `at /…/ssl/handshake.cc:393`): a build machine's folders say nothing to anyone.
    static func withoutSourcePaths(_ text: String) -> String {
        text.replacing(#/ at /[^\s\])]*:\d+/#, with: "")
    }

    /// Runs `operation`, cancelling it at `deadline`: the client's own deadline does not cover a
    /// body that trickles in.
    static func withDeadline<T: Sendable>(
        _ deadline: ContinuousClock.Instant, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(until: deadline, clock: .continuous)
                throw DeadlinePassed()
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw DeadlinePassed() }
            return first
        }
    }

    /// Maps what AsyncHTTPClient and SwiftNIO throw onto the T codes.
    static func classify(_ error: any Error, host: String, port: Int? = nil) -> TransportFailure {
        let detail = withoutSourcePaths(String(describing: error))
        func failure(_ reason: TransportFailure.Reason, fault: String? = nil) -> TransportFailure {
            TransportFailure(reason, host: host, port: port, detail: detail, fault: fault)
        }

        if error is DeadlinePassed || error is CancellationError { return failure(.timedOut) }
        if error is NIOTooManyBytesError { return failure(.responseTooLarge) }
        // Only the limit is "too large": a body that is not the gzip or deflate it claims to be
        // is a broken answer, not a big one.
        let notTheGzipItSays = "a body that is not the gzip or deflate it says it is"
        if let decompression = error as? NIOHTTPDecompression.DecompressionError {
            return decompression == .limit ? failure(.responseTooLarge) : failure(.badServerResponse, fault: notTheGzipItSays)
        }
        // Compressed data cut short, or followed by bytes that are none of it, in a body whose
        // length was kept: the server's broken answer, which a retry would only fetch again.
        if error is NIOHTTPDecompression.ExtraDecompressionError {
            return failure(.badServerResponse, fault: notTheGzipItSays)
        }
        // A status line under 100 (`000`, `099`) is no HTTP status: malformed, as the parser's own
        // refusals of a status line are.
        if error is StatusUnder100Error { return failure(.badServerResponse, fault: "bytes that are not an HTTP answer") }
        if let parserError = error as? HTTPParserError {
            if parserError == .invalidEOFState || parserError == .closedConnection { return failure(.connectionLost) }
            return failure(.badServerResponse, fault: fault(parserError))
        }
        if let clientError = error as? HTTPClientError {
            switch clientError {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout, .getConnectionFromPoolTimeout,
                 .tlsHandshakeTimeout:
                return failure(.timedOut)
            case .remoteConnectionClosed, .bodyLengthMismatch:
                return failure(.connectionLost)
            case .redirectLimitReached, .redirectCycleDetected:
                return failure(.tooManyRedirects)
            default:
                return failure(.unknown)
            }
        }
        if let connectionError = error as? NIOConnectionError {
            if connectionError.connectionErrors.isEmpty {
                return failure(.cannotFindHost)
            }
            let errnos = connectionError.connectionErrors.compactMap { ($0.error as? IOError)?.errnoCode }
            return failure(classify(errnos: errnos) ?? .cannotConnectToHost)
        }
        if let ioError = error as? IOError, let reason = classify(errnos: [ioError.errnoCode]) {
            return failure(reason)
        }
        if let channelError = error as? ChannelError {
            switch channelError {
            case .connectTimeout: return failure(.timedOut)
            case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed: return failure(.connectionLost)
            default: return failure(.unknown)
            }
        }
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname { return failure(.certificateWrongName) }
        if let ssl = error as? NIOSSLError {
            // BoringSSL says only that the chain was refused: expired or not, as
            // readingTheCertificate(of:url:deadline:) finds out.
            if case .handshakeFailed = ssl, detail.contains("CERTIFICATE_VERIFY_FAILED") { return failure(.certificateUntrusted) }
            return failure(.secureConnectionFailed)
        }
        if error is BoringSSLError || error is NIOSSLExtraError { return failure(.secureConnectionFailed) }
        return failure(.unknown)

        /// What a server did wrong that the HTTP parser refused, for people.
        func fault(_ parserError: HTTPParserError) -> String {
            switch parserError {
            case .headerOverflow: "its header is larger than any answer's"
            case .invalidContentLength: "a Content-Length that no body can have"
            case .unexpectedContentLength: "two Content-Lengths, or one where none may be"
            case .invalidChunkSize: "a chunk size that is not one"
            case .invalidVersion, .invalidStatus, .invalidConstant, .lfExpected, .invalidHeaderToken, .invalidCharactersUsed:
                "bytes that are not an HTTP answer"
            default: "an answer HTTP does not allow"
            }
        }

        func classify(errnos: [Int32]) -> TransportFailure.Reason? {
            if errnos.contains(where: { $0 == ENETUNREACH || $0 == ENETDOWN }) { return .notConnected }
            if errnos.contains(where: { $0 == ECONNREFUSED || $0 == EHOSTUNREACH }) { return .cannotConnectToHost }
            if errnos.contains(where: { $0 == ECONNRESET || $0 == EPIPE }) { return .connectionLost }
            if errnos.contains(ETIMEDOUT) { return .timedOut }
            return nil
        }
    }
}
