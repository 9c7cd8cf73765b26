import Foundation

/// What an API said about an error in its own body.
///
/// Recognised shapes: `{"message", "error", "reason"}` (`"error"` a status, a flag or text),
/// `{"detail"}`, and the common `{"error": true, "reason": …}`; a service reads more of its own
/// (``Service/errorBody(in:status:)``). The text is kept as the
/// server sent it; sanitise it (``TerminalText``) before it reaches a terminal.
public struct APIErrorBody: Codable, Sendable, Equatable {
    /// A machine-readable reason, such as Reddit's `quarantined` or `private`.
    public var reason: String?
    /// The server's short message, such as `Forbidden` or SWAPI's `Not found`.
    public var message: String?
    /// A longer explanation, which a service may read from a field of its own.
    public var explanation: String?
    /// The status the body claims, such as Reddit's `"error": 404`.
    public var statusInBody: Int?

    public init(reason: String? = nil, message: String? = nil, explanation: String? = nil, statusInBody: Int? = nil) {
        self.reason = reason
        self.message = message
        self.explanation = explanation
        self.statusInBody = statusInBody
    }

    /// The largest body worth parsing for an error: error bodies are small, and this one comes
    /// from a server that is already misbehaving.
    public static let maximumBodySize = 64 * 1024

    private struct Wire: Decodable {
        var reason: String?
        var message: String?
        var detail: String?
        var error: ErrorField?

        enum CodingKeys: String, CodingKey {
            case reason, message, detail, error
        }
    }

    /// Reddit sends `"error": 404`; others send `"error": true` or `"error": "text"`.
    private enum ErrorField: Decodable {
        case status(Int), flag(Bool), text(String)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let status = try? container.decode(Int.self) { self = .status(status) }
            else if let flag = try? container.decode(Bool.self) { self = .flag(flag) }
            else { self = .text(try container.decode(String.self)) }
        }
    }

    /// Recognises an error body, or returns nil when the bytes are not one of the known shapes.
    public static func recognise(_ body: some Collection<UInt8>) -> APIErrorBody? {
        guard !body.isEmpty, body.count <= maximumBodySize,
              let wire = try? JSONDecoder().decode(Wire.self, from: Data(body)) else { return nil }
        var result = APIErrorBody(reason: wire.reason, message: wire.message ?? wire.detail)
        switch wire.error {
        case .status(let status)?: result.statusInBody = status
        case .text(let text)?: if result.message == nil { result.message = text }
        case .flag(false)?: return nil
        case .flag(true)?, nil: break
        }
        let saysSomething = result.reason != nil || result.message != nil || result.statusInBody != nil
        return saysSomething ? result : nil
    }

    /// Whether the body says the resource does not exist (SWAPI's `Not found`, Reddit's `"error": 404`).
    public var saysNotFound: Bool {
        statusInBody == 404 || message?.lowercased() == "not found" || reason?.lowercased() == "not_found"
    }

    /// One line for people: reason and message, as the server put them.
    public var summary: String {
        var parts: [String] = []
        if let reason, !reason.isEmpty { parts.append(reason) }
        if let message, !message.isEmpty, message.lowercased() != reason?.lowercased() { parts.append(message) }
        var text = parts.joined(separator: ": ")
        if let explanation, !explanation.isEmpty { text += text.isEmpty ? explanation : " (\(explanation))" }
        return text
    }
}
