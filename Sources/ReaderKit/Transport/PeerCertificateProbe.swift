import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// Reads the certificate a server shows, in a handshake that trusts nothing and sends nothing
/// after it: BoringSSL says only that verification failed, not whether the certificate expired,
/// is self-signed, or both, and AsyncHTTPClient takes no verification callback that would say.
enum PeerCertificateProbe {
    /// The certificate `host:port` shows, or nil when none could be read by `deadline`.
    /// - Parameter serverName: the name sent in SNI, as the refused connection sent it (nil for an
    ///   address).
    static func certificate(host: String, port: Int, serverName: String?, deadline: NIODeadline) async -> PeerCertificate? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        guard let context = try? NIOSSLContext(configuration: configuration) else { return nil }
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let handshake = eventLoop.makePromise(of: NIOSSLCertificate?.self)
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(max(.milliseconds(1), deadline - .now()))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverName))
                    try sync.addHandler(HandshakeWatcher(handshake, deadline: deadline))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: host, port: port).get()
        } catch {
            handshake.fail(error)
            return nil
        }
        defer { channel.close(promise: nil) }
        guard let certificate = try? await handshake.futureResult.get() else { return nil }
        return PeerCertificate(certificate)
    }

    /// Completes its promise with the peer's certificate once the handshake is done, or fails it
    /// when the channel ends, errs, or the deadline passes first.
    private final class HandshakeWatcher: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        private let promise: EventLoopPromise<NIOSSLCertificate?>
        private let deadline: NIODeadline
        private var timeout: Scheduled<Void>?
        private var done = false

        init(_ promise: EventLoopPromise<NIOSSLCertificate?>, deadline: NIODeadline) {
            self.promise = promise
            self.deadline = deadline
        }

        func handlerAdded(context: ChannelHandlerContext) {
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            timeout = context.eventLoop.scheduleTask(deadline: deadline) {
                let (watcher, context) = bound.value
                watcher.finish(.failure(ChannelError.connectTimeout(.zero)))
                context.close(promise: nil)
            }
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case .handshakeCompleted? = event as? TLSUserEvent {
                finish(.success(try? context.pipeline.syncOperations.nioSSL_peerCertificate()))
                return
            }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            finish(.failure(error))
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            finish(.failure(ChannelError.eof))
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            finish(.failure(ChannelError.ioOnClosedChannel))
        }

        private func finish(_ result: Result<NIOSSLCertificate?, any Error>) {
            guard !done else { return }
            done = true
            timeout?.cancel()
            promise.completeWith(result)
        }
    }
}

extension PeerCertificate {
    /// The dates and the first few names of `certificate`, bounded: it failed verification.
    init(_ certificate: NIOSSLCertificate) {
        let names = certificate._subjectAlternativeNames().lazy.compactMap { name -> String? in
            switch name.nameType {
            case .dnsName:
                return name.contents.count <= 253 ? TerminalText.sanitise(String(decoding: Array(name.contents), as: UTF8.self)) : nil
            case .ipAddress where name.contents.count == 4:
                return name.contents.map(String.init).joined(separator: ".")
            default:
                return nil
            }
        }
        self.init(notValidBefore: Date(timeIntervalSince1970: TimeInterval(certificate.notValidBefore)),
                  notValidAfter: Date(timeIntervalSince1970: TimeInterval(certificate.notValidAfter)),
                  names: Array(names.prefix(3)))
    }
}
