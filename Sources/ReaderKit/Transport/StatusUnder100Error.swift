/// A status line whose status is under 100 (`HTTP/1.1 099 X`, `HTTP/1.1 000 X`): no HTTP status,
/// though the HTTP parser lets it through. ``StatusUnder100Handler`` throws it into the connection,
/// and ``AsyncHTTPTransport`` tells it as a malformed status line (T1011), as the parser's own
/// refusals of a status line are.
struct StatusUnder100Error: Error, CustomStringConvertible {
    /// The status the line gave.
    var status: UInt

    var description: String { "the status line's status is \(status)" }
}
