import NIOCore
import NIOHTTP1

/// Refuses a response whose status is under 100, on each HTTP/1.1 connection of
/// ``AsyncHTTPTransport``, between the response decoder and AsyncHTTPClient's own handler.
///
/// AsyncHTTPClient (1.37.0, and its main branch) takes any head under 200 but 101 for an interim
/// answer and waits for the next; the HTTP parser passes `HTTP/1.1 099 X` as a final answer with
/// its body, and that body then meets a `preconditionFailure` in the client's request state
/// machine: any server could crash `reader`. Here such a head never reaches the client: the
/// request fails with ``StatusUnder100Error``, and what follows on the connection is dropped.
final class StatusUnder100Handler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart

    /// Whether a status under 100 was seen: nothing after it on this connection is an answer.
    private var refused = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        if case .head(let head) = unwrapInboundIn(data), head.status.code < 100 {
            refused = true
            // The request fails with this error, then the connection closes: its body is not read.
            context.fireErrorCaught(StatusUnder100Error(status: head.status.code))
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
    }

    /// Puts a handler into `channel`'s pipeline right after its response decoder: for
    /// `HTTPClient.Configuration.http1_1ConnectionDebugInitializer`, which AsyncHTTPClient calls
    /// on every new HTTP/1.1 connection, its own handlers in place, before any request is sent.
    /// Without the decoder (a later AsyncHTTPClient that builds its pipeline otherwise) the
    /// connection fails, as one without the guard could be crashed.
    static func install(on channel: any Channel) -> EventLoopFuture<Void> {
        channel.eventLoop.submit {
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPResponseDecoder>.self)
            try pipeline.addHandler(StatusUnder100Handler(), position: .after(decoder))
        }
    }
}

@available(*, unavailable)
extension StatusUnder100Handler: Sendable {}
