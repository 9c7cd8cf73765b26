import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NIOSSL

/// The ``HTTPTransport`` over AsyncHTTPClient.
///
/// It works around the client's known traps: its deadline stops once the headers arrive, so the
/// whole request is bounded by cancelling its task; connection failures are retried inside the
/// client until the connect timeout, so that timeout is set from the command's; bodies are
/// collected with a cap and decompressed with a limit, so neither a huge nor a bomb body is
/// inflated in memory.
public struct AsyncHTTPTransport: HTTPTransport {
    private let client: HTTPClient
    /// The largest body, after decompression, that is read.
    public let maximumBodySize: Int

    /// Creates a transport with its own connection pool.
    /// - Parameters:
    ///   - connectTimeout: how long to keep trying to connect; also bounds name resolution.
    ///   - maximumBodySize: the largest (decompressed) body accepted; default 10 MB.
    public init(connectTimeout: Duration, maximumBodySize: Int = 10 * 1024 * 1024) {
        self.init(connectTimeout: connectTimeout, maximumBodySize: maximumBodySize, alsoTrusting: [])
    }

    /// A transport that trusts, besides the system's authorities, the certificates in the PEM
    /// files `authorities`: for tests of certificate faults, whose test authority no system trusts.
    /// Not public, and read from no environment variable or setting, so that no program or user of
    /// `reader` can widen what is trusted.
    package init(connectTimeout: Duration, maximumBodySize: Int = 10 * 1024 * 1024, alsoTrusting authorities: [String]) {
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
        // A refused connection or an unknown host fails at once with its real cause, instead of
        // being retried inside the client until the connect timeout; ReaderKit's RetryPolicy decides.
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.maximumBodySize = maximumBodySize
    }

    public func shutdown() async {
        try? await client.shutdown()
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
        let client = self.client
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
        } catch {
            var failure = Self.classify(error, host: host, port: port)
            if [.certificateUntrusted, .certificateWrongName].contains(failure.reason) {
                failure = await Self.readingTheCertificate(of: failure, url: request.url, deadline: nioDeadline)
            }
            throw failure
        }
        // A status line under 100 (`000`, `099`) is no HTTP status, though AsyncHTTPClient passes
        // it on as one: a malformed status line, as the parser's own refusals are.
        guard answer.status >= 100 else {
            throw TransportFailure(.badServerResponse, host: host, port: port, detail: "the status line's status is \(answer.status)",
                                   fault: "bytes that are not an HTTP answer")
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
