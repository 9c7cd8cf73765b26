import Foundation

extension ReaderError {
    /// The stable code, such as `T1003`, `H404`, `A403` or `D1003`.
    ///
    /// A status failure is `A` + status when the API's body explained it (SWAPI's
    /// `{"detail": "Not found"}`), and `H` + status when it did not (an HTML error page).
    public var code: ErrorCode {
        switch self {
        case .invalidArgument: ErrorCode(.request, 1001)
        case .invalidConfiguration: ErrorCode(.request, 1002)
        case .transport(let failure): ErrorCode(.transport, failure.reason.rawValue)
        case .status(let failure): ErrorCode(failure.apiError == nil ? .http : .api, failure.status)
        case .contentType: ErrorCode(.decoding, 1001)
        case .decoding(let failure): ErrorCode(.decoding, failure.reason.rawValue)
        case .cache(let failure): ErrorCode(.cache, failure.reason.rawValue)
        case .rateLimited: ErrorCode(.request, 1003)
        case .authentication: ErrorCode(.request, 1004)
        case .output(let failure): ErrorCode(.output, failure.destination == .temporaryFile ? 1002 : 1001)
        case .bug: ErrorCode(.bug, 1001)
        }
    }

    /// The exit code `reader` ends with when this error is not recovered from.
    public var exitCode: ExitCode {
        switch self {
        case .invalidArgument: .usage
        case .invalidConfiguration: .configuration
        case .transport(let failure):
            switch failure.reason {
            case .cannotFindHost: .noHost
            // The proxy setting (an environment variable) lacks the credentials the proxy asks for.
            case .proxyAuthenticationRequired: .configuration
            // Through this proxy, the service is not to be had.
            case .proxyRefused: .unavailable
            // The service cannot be reached securely until it renews its certificate.
            case .certificateExpired: .unavailable
            case .responseTooLarge, .tooManyRedirects, .redirectRefused, .badServerResponse, .secureConnectionFailed,
                 .certificateWrongName, .certificateUntrusted, .certificateNotYetValid:
                .protocolError
            default: .temporaryFailure
            }
        case .status(let failure) where failure.isBlockPage:
            // Refused, whatever status the firewall's page came with.
            .noPermission
        case .status(let failure):
            switch failure.status {
            case 404, 410: .notFound
            case 401, 403: .noPermission
            case 408, 429: .temporaryFailure
            case 500...599: .unavailable
            default: failure.apiError?.saysNotFound == true ? .notFound : .protocolError
            }
        case .contentType: .protocolError
        case .decoding: .dataError
        case .cache(let failure): failure.reason == .notCached || failure.reason == .tooOld ? .unavailable : .cannotCreate
        case .rateLimited: .temporaryFailure
        case .authentication: .noPermission
        case .output: .ioError
        case .bug: .software
        }
    }

    /// One sentence for people, with any server text sanitised, in ReaderKit's words: the
    /// parameters and settings it names are the API's (``wording`` keeps them apart).
    public var message: String {
        switch self {
        case .invalidArgument(let wording):
            return wording.description
        case .invalidConfiguration(let text):
            return text
        case .transport(let failure):
            // Through a proxy, whatever went wrong went wrong on its connection: it is named.
            let proxyReasons: [TransportFailure.Reason] = [.proxyUnreachable, .proxyAuthenticationRequired, .proxyRefused]
            guard failure.proxy == nil || proxyReasons.contains(failure.reason) else {
                var direct = failure
                direct.proxy = nil
                return ReaderError.transport(direct).message + " (through the proxy \(failure.proxyShown))"
            }
            let host = TerminalText.sanitise(failure.host, maxLength: 253)
            switch failure.reason {
            case .timedOut: return "the request to \(host) timed out"
            case .cannotFindHost: return "cannot find host \(host): the name does not resolve"
            case .cannotConnectToHost:
                return "cannot connect to \(TerminalText.sanitise(failure.address, maxLength: 262)): nothing accepted the connection"
            case .connectionLost: return "the connection to \(host) was lost before the answer was complete"
            case .tooManyRedirects: return "\(host) redirected too many times"
            case .redirectRefused:
                return "refused to follow a redirect to \(TerminalText.sanitise(failure.host, maxLength: 300)): \(TerminalText.sanitise(failure.detail, maxLength: 300))"
            case .notConnected: return "no network: there is no route to \(host)"
            case .responseTooLarge: return "the answer from \(host) is larger than this client accepts"
            case .badServerResponse:
                return "\(host) answered outside HTTP" + (failure.fault.map { ": \(TerminalText.sanitise($0, maxLength: 120))" } ?? "")
            case .secureConnectionFailed: return "a secure connection to \(host) could not be made: the TLS handshake failed"
            case .certificateExpired:
                return "the certificate of \(host) has expired" + (failure.certificate.map { " (on \(Self.day($0.notValidAfter)))" } ?? "")
            case .certificateNotYetValid:
                return "the certificate of \(host) is not valid yet" + (failure.certificate.map { " (not before \(Self.day($0.notValidBefore)))" } ?? "")
            case .certificateWrongName:
                let names = failure.certificate?.names.prefix(3).map { TerminalText.sanitise($0, maxLength: 80) } ?? []
                return "the certificate of \(host) is for another name" + (names.isEmpty ? "" : " (\(names.joined(separator: ", ")))")
            case .certificateUntrusted:
                return "the certificate of \(host) is not trusted: it is self-signed, or signed by an authority this system does not trust"
            case .unknown: return "the request to \(host) failed"
            case .proxyUnreachable:
                return "cannot reach the proxy \(failure.proxyShown) to ask for \(host)"
                    + (failure.fault.map { ": \(TerminalText.sanitise($0, maxLength: 120))" } ?? "")
            case .proxyAuthenticationRequired:
                return "the proxy \(failure.proxyShown) asks for credentials (407 Proxy Authentication Required)"
                    + (failure.proxy?.contains(":***@") == true ? ": it refused the user name and password given" : ": none were given")
            case .proxyRefused:
                // AsyncHTTPClient names a 407 alone, and some proxies (tinyproxy) answer wrong
                // credentials with a 401: given credentials may be why, which only the proxy knows.
                return "the proxy \(failure.proxyShown) refused to open a connection to \(TerminalText.sanitise(failure.address, maxLength: 262))"
                    + ": it answered with an error of its own"
                    + (failure.proxy?.contains(":***@") == true ? ", which may be its refusal of the user name and password given" : "")
            }
        case .status(let failure):
            let name = HTTPStatusName.phrase(for: failure.status)
            var text = "the server answered \(failure.status) \(name)"
            if failure.status == 304 {
                text += " to a request with no cached copy to confirm"
            } else if failure.status == 204 {
                text += ": there is nothing to show"
            } else if (300...399).contains(failure.status) {
                text += " that reader cannot follow"
            }
            if let explanation = failure.explanation {
                text = explanation.message
            } else {
                if failure.isNotFound || failure.apiError?.saysNotFound == true { text = "not found (\(failure.status))" }
                if let summary = failure.apiError?.summary, !summary.isEmpty {
                    text += ": the server says \"\(TerminalText.sanitise(summary, maxLength: 300))\""
                }
            }
            if let retryAt = failure.retryAt, retryAt > Date() {
                text += "; it asks to come back \(RelativeAge.describe(moment: retryAt))"
            } else if failure.retryAt == nil, let seconds = failure.retryAfterSeconds, seconds >= OutsideNumbers.maximumWaitSeconds {
                // A wait no calendar can show: the server means "not soon".
                text += "; it asks to come back later"
            }
            return text
        case .contentType(let failure):
            var text = "expected \(failure.expected) but got \(TerminalText.sanitise(failure.contentType, maxLength: 80))"
            if let title = failure.pageTitle, !title.isEmpty { text += " (a page titled \"\(title)\")" }
            return text
        case .decoding(let failure):
            // Another format's failure says why: most are a refusal or a limit of ReaderKit's own.
            if failure.format != "JSON" {
                return "the answer is not \(failure.format) that can be read: \(TerminalText.sanitise(failure.detail, maxLength: 160))"
            }
            switch failure.reason {
            case .corrupt: return "the answer is not valid JSON"
            case .keyMissing, .typeMismatch, .invalidValue:
                return "the answer does not have the expected shape: the service may have changed"
            }
        case .cache(let failure):
            switch failure.reason {
            case .notCached: return "offline, and nothing is cached for this request"
            case .corrupt: return "the cache file is damaged"
            case .unwritable: return "the cache cannot be written (\(TerminalText.sanitise(failure.path)))"
            case .unavailable: return "the cache cannot be opened (\(TerminalText.sanitise(failure.path)))"
            case .tooOld: return wording.description
            case .damagedEntry: return "a cached copy is damaged: \(TerminalText.sanitise(failure.detail, maxLength: 200))"
            }
        case .rateLimited(let failure) where failure.keptInReserve:
            return "\(TerminalText.sanitise(failure.origin, maxLength: 253))'s rate limit is down to the share kept for what you ask for; it resets \(RelativeAge.describe(moment: failure.resetAt)), so this background request was not sent"
        case .rateLimited(let failure):
            return "\(TerminalText.sanitise(failure.origin, maxLength: 253))'s rate limit is used up; it resets \(RelativeAge.describe(moment: failure.resetAt)), so the request was not sent"
        case .authentication(let failure):
            return "\(failure.refusedBy) refused reader's app credentials (the token endpoint answered \(failure.status)"
                // Cut here, not where it was read: the whole text is redacted first.
                // Reddit's `{"error": 401}` says the status again: nothing more to quote.
                + (failure.serverError.flatMap { $0 == String(failure.status) ? nil : ", \"\(TerminalText.sanitise($0, maxLength: 60))\"" } ?? "") + ")"
        case .output(let failure) where failure.destination == .temporaryFile:
            return "the temporary file the output is put together in cannot be written: \(failure.systemMessage.lowercased())"
        case .output(let failure):
            return failure.errorNumber == EBADF ? "the output cannot be written: stdout is closed"
                : "the output cannot be written: \(failure.systemMessage.lowercased())"
        case .bug(let text):
            return "internal error: \(text)"
        }
    }

    /// ``message`` with the parameters and settings it names kept as names, for a front end that
    /// names them its own way (`reader` shows `--page` where ReaderKit says `page`).
    public var wording: Wording {
        switch self {
        case .invalidArgument(let wording): wording
        case .cache(let failure) where failure.reason == .tooOld:
            "the only cached copy is older than \(name: "FreshnessPolicy.maximumStale") allows"
        default: Wording(message)
        }
    }

    /// A machine-readable reason beside the code, for scripts (`--json`'s `reason`): Reddit's
    /// `quarantined`, `private`, `banned`, `not_found`, `too_many_requests`, or the reason an
    /// API's error body gave; nil when there is none.
    public var reason: String? {
        guard case .status(let failure) = self else { return nil }
        if let explanation = failure.explanation { return explanation.reason }
        return failure.apiError?.reason.map { TerminalText.sanitise($0, maxLength: 40) }
    }

    /// Detail for developers (`--verbose`): the URL, the coding path, what the transport said.
    public var technicalDetail: String {
        switch self {
        case .invalidArgument(let wording): wording.description
        case .invalidConfiguration(let text), .bug(let text): text
        case .transport(let failure): failure.detail
        case .status(let failure):
            "GET \(failure.url) → \(failure.status)"
                + (failure.retryAfterSeconds.map { ", Retry-After: \($0) s" } ?? "")
        case .contentType(let failure): "GET \(failure.url) → Content-Type: \(failure.contentType)"
        case .decoding(let failure):
            "GET \(failure.url): at \(failure.codingPath.isEmpty ? "the top level" : failure.codingPath): \(failure.detail)"
        case .cache(let failure): "\(failure.path): \(failure.detail)"
        case .rateLimited(let failure):
            "\(failure.service.rawValue): no requests remain until \(failure.resetAt.formatted(.iso8601))"
        case .authentication(let failure):
            "POST api/v1/access_token → \(failure.status)"
        case .output(let failure):
            "write(2) to \(failure.destination == .temporaryFile ? "the output's temporary file" : "stdout"): errno \(failure.errorNumber), \(failure.systemMessage)"
        }
    }
}

extension TransportFailure {
    /// `http://proxy.example:3128 (from HTTPS_PROXY)`: the proxy as a message names it.
    var proxyShown: String {
        let shown = TerminalText.sanitise(proxy ?? "", maxLength: 300)
        guard let proxyVariable, !proxyVariable.isEmpty else { return shown }
        return "\(shown) (from \(TerminalText.sanitise(proxyVariable, maxLength: 40)))"
    }

    /// What to do about the proxy: its setting is the user's, so the hint names it.
    var proxyHint: Hint {
        let setting = proxyVariable.flatMap { $0.isEmpty ? nil : TerminalText.sanitise($0, maxLength: 40) }
        let named = setting ?? "the proxy setting"
        switch reason {
        case .proxyAuthenticationRequired:
            return .plain("give the proxy's user name and password in \(named), as http://user:password@host:port (percent-encode @, : and / in them)")
        case .proxyRefused:
            let credentials = proxy?.contains(":***@") == true ? "check the user name and password in \(named); otherwise " : ""
            return .plain(credentials + "the proxy's rules may forbid this host or port, or it cannot reach the service itself: ask whoever runs it, or name the host in NO_PROXY to connect directly")
        default:
            return .plain("check that the proxy in \(named) is running and its address is right, or name the host in NO_PROXY to connect directly")
        }
    }
}

extension ReaderError {
    /// A day as `2020-02-01`, in UTC: a certificate's validity.
    static func day(_ date: Date) -> String {
        OutsideNumbers.isPlausible(date) ? date.formatted(.iso8601.year().month().day()) : "a date no calendar shows"
    }
}

extension ReaderError: LocalizedError {
    public var errorDescription: String? { "\(code): \(message)" }
    public var recoverySuggestion: String? { hints().text }
}

extension ReaderError: CustomStringConvertible {
    public var description: String { "error \(code): \(message)" }
}

/// Reason phrases for the statuses `reader` names.
enum HTTPStatusName {
    static func phrase(for status: Int) -> String {
        switch status {
        case 200: "OK"
        case 204: "No Content"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 410: "Gone"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 300...399: "Redirect"
        case 400...499: "Client Error"
        case 500...599: "Server Error"
        default: "Unexpected Status"
        }
    }
}
