import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// A real HTTP server on 127.0.0.1 (port 0) inside the test process, with byte-level control:
/// it can answer normally, or truncate, trickle, hang or close, to inject the faults a real
/// network produces. Each connection serves one request and closes.
public final class TestServer: Sendable {
    /// A request as received.
    public struct Request: Sendable {
        public var method: String
        /// The path with its query, such as `/api/films/?page=2`.
        public var target: String
        public var headers: [String: String]
        /// The body, when the request announced one with Content-Length (a POST's form).
        public var body: [UInt8] = []

        public var path: String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }
        public var query: [String: String] {
            guard let query = target.split(separator: "?", maxSplits: 1).dropFirst().first else { return [:] }
            var items: [String: String] = [:]
            for pair in query.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
                items[parts[0]] = parts.count > 1 ? parts[1] : ""
            }
            return items
        }
    }

    /// What the server does with a request.
    public indirect enum Reply: Sendable {
        /// A complete response.
        case respond(status: Int, headers: [(String, String)], body: [UInt8])
        /// Announces `announcedLength` bytes, sends `body`, then closes: a truncated answer.
        case truncate(status: Int, headers: [(String, String)], body: [UInt8], announcedLength: Int)
        /// Sends the headers, then one byte of body every `interval`, forever.
        case trickle(interval: TimeAmount)
        /// Never answers.
        case hang
        /// Closes the connection without a byte.
        case close
        /// Sends these bytes as they are, whatever HTTP says, then closes: a server breaking the protocol.
        case raw([UInt8])
        /// Waits `delay`, then replies: a slow server, for benchmarks that must show concurrency.
        case delayed(TimeAmount, Reply)
        /// Replies when the test says so: `start` is given a function to call, from any thread,
        /// with the reply. Lets a test hold requests until it has seen what it waits for, without
        /// blocking the server's threads or waiting on a clock.
        case deferred(@Sendable (_ answer: @escaping @Sendable (Reply) -> Void) -> Void)

        /// A JSON response.
        public static func json(_ body: [UInt8], status: Int = 200, headers: [(String, String)] = []) -> Reply {
            .respond(status: status, headers: [("Content-Type", "application/json")] + headers, body: body)
        }
    }

    public typealias Handler = @Sendable (Request) -> Reply

    private let channel: any Channel
    private let recorded = NIOLockedValueBox<[Request]>([])
    public let port: Int
    private let scheme: String

    /// `http://127.0.0.1:PORT`, or `https://…` for a server with a certificate.
    public var baseURL: String { "\(scheme)://127.0.0.1:\(port)" }

    /// Every request received so far, in order.
    public var requests: [Request] { recorded.withLockedValue { $0 } }

    /// Starts a server that answers with `handler`.
    /// - Parameter port: the port to listen on; 0 (the default) lets the system choose a free one.
    public init(port requestedPort: Int = 0, _ handler: @escaping Handler) async throws {
        channel = try await Self.bootstrap(handler, recorded).bind(host: "127.0.0.1", port: requestedPort).get()
        port = channel.localAddress?.port ?? 0
        scheme = "http"
    }

    /// Starts a server that speaks TLS with `identity`, then answers with `handler`.
    public init(tls identity: TestCertificates.Identity, _ handler: @escaping Handler) async throws {
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(identity.certificate).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: identity.key, format: .pem)))
        let context = try NIOSSLContext(configuration: configuration)
        channel = try await Self.bootstrap(handler, recorded, tls: context).bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
        scheme = "https"
    }

    /// Starts a server on a port reserved earlier, which nothing else could take in between.
    public init(on reserved: ReservedPort, _ handler: @escaping Handler) async throws {
        guard listen(reserved.socket, 128) == 0 else { throw IOError(errnoCode: errno, reason: "listen") }
        channel = try await Self.bootstrap(handler, recorded).withBoundSocket(reserved.socket).get()
        port = reserved.port
        scheme = "http"
    }

    /// As ``init(on:_:)``, from a thread that is not the test's: it blocks until the server
    /// listens, needing no thread of the concurrency pool (which tests waiting on processes may
    /// all hold). For a server that must come up at a given moment, from a reading thread.
    public init(blockingOn reserved: ReservedPort, _ handler: @escaping Handler) throws {
        guard listen(reserved.socket, 128) == 0 else { throw IOError(errnoCode: errno, reason: "listen") }
        channel = try Self.bootstrap(handler, recorded).withBoundSocket(reserved.socket).wait()
        port = reserved.port
        scheme = "http"
    }

    private static func bootstrap(_ handler: @escaping Handler, _ recorded: NIOLockedValueBox<[Request]>,
                                  tls: NIOSSLContext? = nil) -> ServerBootstrap {
        ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                    try channel.pipeline.syncOperations.addHandler(Connection(handler: handler, recorded: recorded))
                }
            }
    }

    /// A port on 127.0.0.1 bound but not listening: connections to it are refused, as to a
    /// service that is down, and no other process can take it until ``TestServer/init(on:_:)``
    /// starts listening on it.
    public struct ReservedPort: Sendable {
        public let socket: CInt
        public let port: Int

        public init() throws {
            let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw IOError(errnoCode: errno, reason: "socket") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
                }
            }
            guard bound else { throw IOError(errnoCode: errno, reason: "bind") }
            socket = descriptor
            port = Int(UInt16(bigEndian: address.sin_port))
        }
    }

    /// Stops listening.
    public func shutdown() async {
        try? await channel.close()
    }

    private final class Connection: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        private let handler: Handler
        private let recorded: NIOLockedValueBox<[Request]>
        private var buffer: [UInt8] = []
        private var answered = false
        private var trickleTask: RepeatedTask?

        init(handler: @escaping Handler, recorded: NIOLockedValueBox<[Request]>) {
            self.handler = handler
            self.recorded = recorded
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !answered else { return }
            buffer += Array(unwrapInboundIn(data).readableBytesView)
            guard let end = buffer.firstRange(of: Array("\r\n\r\n".utf8)) else { return }
            let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            let requestLine = head.first?.split(separator: " ") ?? []
            var headers: [String: String] = [:]
            for line in head.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let length = min(Int(headers["content-length"] ?? "0") ?? 0, 1 << 20)
            guard buffer.count >= end.upperBound + length else { return }
            answered = true
            let request = Request(method: requestLine.first.map(String.init) ?? "",
                                  target: requestLine.dropFirst().first.map(String.init) ?? "/", headers: headers,
                                  body: Array(buffer[end.upperBound..<(end.upperBound + length)]))
            recorded.withLockedValue { $0.append(request) }
            reply(handler(request), context: context)
        }

        private func reply(_ reply: Reply, context: ChannelHandlerContext) {
            switch reply {
            case .respond(let status, let headers, let body):
                write(head(status, headers, length: body.count) + body, context: context, thenClose: true)
            case .truncate(let status, let headers, let body, let announcedLength):
                write(head(status, headers, length: announcedLength) + body, context: context, thenClose: true)
            case .trickle(let interval):
                write(head(200, [("Content-Type", "application/json")], length: 1_000_000) + Array("{".utf8),
                      context: context, thenClose: false)
                let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
                trickleTask = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
                    let context = loopBound.value
                    context.writeAndFlush(NIOAny(context.channel.allocator.buffer(bytes: Array(" ".utf8))), promise: nil)
                }
            case .hang:
                break
            case .close:
                context.close(promise: nil)
            case .raw(let bytes):
                write(bytes, context: context, thenClose: true)
            case .delayed(let delay, let later):
                let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                context.eventLoop.scheduleTask(in: delay) {
                    let (connection, context) = loopBound.value
                    connection.reply(later, context: context)
                }
            case .deferred(let start):
                let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                let eventLoop = context.eventLoop
                start { later in
                    eventLoop.execute {
                        let (connection, context) = loopBound.value
                        connection.reply(later, context: context)
                    }
                }
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            trickleTask?.cancel()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }

        private func head(_ status: Int, _ headers: [(String, String)], length: Int) -> [UInt8] {
            var text = "HTTP/1.1 \(status) Status\r\nContent-Length: \(length)\r\nConnection: close\r\n"
            for (name, value) in headers { text += "\(name): \(value)\r\n" }
            return Array((text + "\r\n").utf8)
        }

        private func write(_ bytes: [UInt8], context: ChannelHandlerContext, thenClose: Bool) {
            let future = context.writeAndFlush(NIOAny(context.channel.allocator.buffer(bytes: bytes)))
            if thenClose {
                let channel = context.channel
                future.whenComplete { _ in channel.close(promise: nil) }
            }
        }
    }
}
