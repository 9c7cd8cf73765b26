import Foundation

extension ReaderError {
    /// The same error with every occurrence of `secrets` in the text it carries — what a server
    /// said (an error body, a page title, an error word) and what the transport reported —
    /// replaced by `[redacted]`.
    ///
    /// A server can repeat back what it was sent: a token endpoint that echoes the client secret
    /// or the `Basic` credential, an API that quotes the `Authorization` header. Text from outside
    /// is shown sanitised, so a secret is looked for as it would be shown: one padded with
    /// invisible characters or escape sequences is redacted too
    /// (``TerminalText/redacting(_:in:with:)``).
    /// - Parameter secrets: the credentials in use (see ``ReaderClient``); empty strings are ignored.
    public func redacting(_ secrets: Set<String>) -> ReaderError {
        // A secret is looked for as it is given and as it would be shown.
        let secrets = Array(Set(secrets.flatMap { [$0, TerminalText.sanitise($0, maxLength: .max)] }).filter { $0.utf8.count >= 4 })
        guard !secrets.isEmpty else { return self }
        func clean(_ text: String) -> String { TerminalText.redacting(secrets, in: text) }
        func clean(_ text: String?) -> String? { text.map { clean($0) } }
        switch self {
        case .invalidArgument(let wording): return .invalidArgument(wording.mappingText { clean($0) })
        case .invalidConfiguration(let text): return .invalidConfiguration(clean(text))
        case .transport(var failure):
            failure.detail = clean(failure.detail)
            failure.host = clean(failure.host)
            failure.fault = clean(failure.fault)
            failure.proxy = clean(failure.proxy)
            return .transport(failure)
        case .status(var failure):
            failure.url = clean(failure.url)
            if var body = failure.apiError {
                body.reason = clean(body.reason)
                body.message = clean(body.message)
                body.explanation = clean(body.explanation)
                failure.apiError = body
            }
            if var explanation = failure.explanation {
                explanation.message = clean(explanation.message)
                explanation.hint = clean(explanation.hint)
                explanation.hintWithCredential = clean(explanation.hintWithCredential)
                failure.explanation = explanation
            }
            return .status(failure)
        case .contentType(var failure):
            failure.contentType = clean(failure.contentType)
            failure.pageTitle = clean(failure.pageTitle)
            failure.url = clean(failure.url)
            return .contentType(failure)
        case .decoding(var failure):
            failure.detail = clean(failure.detail)
            failure.codingPath = clean(failure.codingPath)
            failure.url = clean(failure.url)
            return .decoding(failure)
        case .cache(var failure):
            failure.detail = clean(failure.detail)
            return .cache(failure)
        case .rateLimited(var failure):
            failure.origin = clean(failure.origin)
            return .rateLimited(failure)
        case .authentication(var failure):
            failure.serverError = clean(failure.serverError)
            return .authentication(failure)
        case .output: return self
        case .bug(let text): return .bug(clean(text))
        }
    }
}
