import Foundation

/// A URL's origin — scheme, host and port — the unit credentials and redirects are bound to.
///
/// Two URLs have the same origin when these three are equal once normalised: scheme and host
/// lowercased, and the default port (80 for http, 443 for https) made explicit, so that
/// `https://OAuth.reddit.com` and `https://oauth.reddit.com:443/r/swift` are one origin and
/// `http://oauth.reddit.com` or `https://oauth.reddit.com:8443` are others.
///
/// ## Topics
/// - ``init(_:)``
/// - ``redirect(from:to:)``
/// - ``hasPortInRange(_:)``
public struct Origin: Hashable, Sendable, CustomStringConvertible {
    /// `http` or `https`, lowercased.
    public let scheme: String
    /// The host, lowercased; an IPv6 address keeps its brackets.
    public let host: String
    /// The port, explicit even when the URL left it out.
    public let port: Int

    /// The origin of `url`; nil when it is not http or https, has no host, or names a port
    /// outside 1…65535 (one too large for `URL.port` to hold included).
    public init?(_ url: URL) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host?.lowercased(), !host.isEmpty,
              case .valid(let port) = Self.port(of: components) else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = port ?? (scheme == "https" ? 443 : 80)
    }

    /// `https://oauth.reddit.com`, `http://127.0.0.1:8080`: the default port left out.
    public var description: String {
        scheme + "://" + host + (port == (scheme == "https" ? 443 : 80) ? "" : ":\(port)")
    }

    /// Whether `url`'s port is absent or within 1…65535. `URL.port` cannot tell: it is nil both
    /// for no port and for one too large for an `Int`, and AsyncHTTPClient then connects to the
    /// default port, or traps in SwiftNIO for a port that fits an `Int` but not a `UInt16`.
    public static func hasPortInRange(_ url: URL) -> Bool {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return false }
        if case .valid = port(of: components) { return true }
        return false
    }

    enum Port: Equatable {
        /// A port in 1…65535, or nil for none (or an empty one, `http://host:/`).
        case valid(Int?)
        /// The port as written, out of range or not a number.
        case outOfRange(String)
    }

    static func port(of components: URLComponents) -> Port {
        guard let range = components.rangeOfPort, let text = components.string.map({ String($0[range]) }) else {
            return components.port.map { (1...65535).contains($0) ? .valid($0) : .outOfRange(String($0)) } ?? .valid(nil)
        }
        if text.isEmpty { return .valid(nil) }
        guard text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let number = Int(text), (1...65535).contains(number) else { return .outOfRange(text) }
        return .valid(number)
    }
}

/// What a redirect becomes: followed, or refused and why.
public enum RedirectDecision: Sendable, Equatable {
    /// Same origin, or an upgrade from http to https on the same host.
    case follow
    /// Not followed; the load ends with `T1010`.
    case refuse(RedirectRefusal)
}

/// Why a redirect is not followed.
public enum RedirectRefusal: Sendable, Equatable {
    /// The Location holds a user name or password: never followed, never shown.
    case userInfo
    /// The Location is not an http or https URL with a host.
    case notHTTP
    /// The Location's port is outside 1…65535.
    case portOutOfRange
    /// From https to http: what was private would be sent in clear.
    case downgrade
    /// Another host, or another port without an upgrade to https.
    case anotherOrigin
}

extension Origin {
    /// Whether a redirect from `source` to `target` is followed.
    ///
    /// Only within the same origin, or from http to https on the same host (an upgrade, to any
    /// port: the host is the one already trusted, and https is the better way to reach it).
    /// Everything else is refused: another host, another port over the same scheme, https to
    /// http, a user name or password in the Location, or a port outside 1…65535.
    /// - Parameters:
    ///   - source: the URL that answered with the redirect.
    ///   - target: where its Location points, resolved against `source`.
    public static func redirect(from source: URL, to target: URL) -> RedirectDecision {
        guard let components = URLComponents(url: target, resolvingAgainstBaseURL: true) else { return .refuse(.notHTTP) }
        if components.user != nil || components.password != nil { return .refuse(.userInfo) }
        guard let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              components.host.map({ !$0.isEmpty }) == true else { return .refuse(.notHTTP) }
        if case .outOfRange = port(of: components) { return .refuse(.portOutOfRange) }
        guard let from = Origin(source), let to = Origin(target) else { return .refuse(.notHTTP) }
        if from == to { return .follow }
        if from.host == to.host {
            if from.scheme == "http", to.scheme == "https" { return .follow }
            if from.scheme == "https", to.scheme == "http" { return .refuse(.downgrade) }
        }
        return .refuse(.anotherOrigin)
    }

    /// `text` without the user name and password of its authority (`http://user:pw@host/` →
    /// `http://host/`), for showing a URL that may not even parse.
    static func removingUserInfo(_ text: String) -> String {
        guard let schemeEnd = text.range(of: "://") else { return text }
        let authorityEnd = text[schemeEnd.upperBound...].firstIndex { "/?#".contains($0) } ?? text.endIndex
        guard let at = text[schemeEnd.upperBound..<authorityEnd].lastIndex(of: "@") else { return text }
        return String(text[..<schemeEnd.upperBound] + text[text.index(after: at)...])
    }

    /// `target` as it may be shown: scheme and host lowercased, port as written, path, sanitised; never its
    /// user name, password, query or fragment (a Location is the server's text, and may carry secrets).
    static func shown(_ target: URL) -> String {
        guard let components = URLComponents(url: target, resolvingAgainstBaseURL: true) else { return "(not a URL)" }
        var text = (components.scheme?.lowercased() ?? "") + "://" + (components.percentEncodedHost?.lowercased() ?? "")
        if let range = components.rangeOfPort, let string = components.string { text += ":" + string[range] }
        text += components.percentEncodedPath
        return TerminalText.sanitise(text, maxLength: 200)
    }
}

extension TransportFailure {
    /// The failure a refused redirect ends with (`T1010`): where it pointed (never its user name,
    /// password or query) and why it was not followed.
    static func redirectRefused(_ refusal: RedirectRefusal, from source: URL, to target: URL) -> TransportFailure {
        let from = Origin(source).map(String.init(describing:)) ?? Origin.shown(source)
        let why = switch refusal {
        case .userInfo: "its Location holds a user name or password"
        case .notHTTP: "it is not an http or https URL with a host"
        case .portOutOfRange: "its port is outside 1…65535"
        case .downgrade: "it leaves \(from) for plain http"
        case .anotherOrigin: "it leaves \(from) for another origin"
        }
        return TransportFailure(.redirectRefused, host: Origin.shown(target), detail: why)
    }
}
