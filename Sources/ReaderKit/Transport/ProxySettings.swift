import Foundation

/// Which proxy, if any, a request goes through: the user's `HTTPS_PROXY`, `HTTP_PROXY`,
/// `ALL_PROXY` and `NO_PROXY`, read as curl reads them (``init(environment:)``).
///
/// Only `http://` proxies are supported, with or without `user:password@`: a request for an
/// `https://` URL goes through a `CONNECT` tunnel (the proxy sees the host and port, never the
/// request), and so does one for an `http://` URL (AsyncHTTPClient tunnels every request). A
/// proxy's password is a secret: ``Server/shown`` never holds it, and ``secrets`` lets an error's
/// text be shown without it (``ReaderError/redacting(_:)``).
///
/// ```swift
/// let proxies = try ProxySettings(environment: ProcessInfo.processInfo.environment)
/// let client = ReaderClient(configuration: .init(services: services, proxies: proxies))
/// ```
public struct ProxySettings: Sendable, Equatable {
    /// The proxy for `http://` URLs, nil for none.
    public var http: Server?
    /// The proxy for `https://` URLs, nil for none.
    public var https: Server?
    /// The hosts reached directly whatever the proxies (`NO_PROXY`).
    public var bypass: Bypass

    /// No proxy at all: every request goes directly.
    public static let direct = ProxySettings()

    public init(http: Server? = nil, https: Server? = nil, bypass: Bypass = Bypass()) {
        self.http = http
        self.https = https
        self.bypass = bypass
    }

    /// The proxies `environment` names, as curl reads them:
    ///
    /// - for `https://` URLs `https_proxy`, else `HTTPS_PROXY`;
    /// - for `http://` URLs `http_proxy`, else `HTTP_PROXY` — except in a CGI program
    ///   (`REQUEST_METHOD` set), where a request's `Proxy:` header arrives as `HTTP_PROXY`
    ///   ("httpoxy"), which curl never reads at all;
    /// - for either, when those are unset, `all_proxy`, else `ALL_PROXY`;
    /// - `no_proxy`, else `NO_PROXY`: the hosts to reach directly (``Bypass``).
    ///
    /// The lower-case form wins over the upper-case one, and an empty variable is as good as unset.
    /// A proxy is `http://[user[:password]@]host[:port][/]`; without a scheme it is `http://`, and
    /// without a port 1080, as for curl. The user name and password are percent-decoded.
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` (`R1002`) for a proxy that is not
    ///   `http://` (`socks5://`, `https://`) or cannot be read; the message names the variable
    ///   and never holds the password.
    public init(environment: [String: String]) throws(ReaderError) {
        func given(_ names: String...) -> (variable: String, value: String)? {
            for name in names {
                if let value = environment[name], !value.trimmingCharacters(in: .whitespaces).isEmpty { return (name, value) }
            }
            return nil
        }
        let isCGI = environment["REQUEST_METHOD"].map { !$0.isEmpty } ?? false
        let all = given("all_proxy", "ALL_PROXY")
        let forHTTP = (isCGI ? given("http_proxy") : given("http_proxy", "HTTP_PROXY")) ?? all
        let forHTTPS = given("https_proxy", "HTTPS_PROXY") ?? all
        func server(_ given: (variable: String, value: String)?) throws(ReaderError) -> Server? {
            guard let given else { return nil }
            return try Server(given.value, variable: given.variable)
        }
        self.init(http: try server(forHTTP), https: try server(forHTTPS),
                  bypass: given("no_proxy", "NO_PROXY").map { Bypass($0.value, variable: $0.variable) } ?? Bypass())
    }

    /// The names of the variables ``init(environment:)`` reads, in the order it reads them.
    public static let variables = ["https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY",
                                   "no_proxy", "NO_PROXY"]

    /// How a request for a URL goes.
    public enum Route: Sendable, Equatable {
        /// Directly: no proxy is set for its scheme.
        case direct
        /// Directly, because `NO_PROXY` names its host: the entry that matched, and the variable.
        case bypassed(entry: String, variable: String)
        /// Through this proxy.
        case proxy(Server)

        /// The proxy, when there is one.
        public var server: Server? {
            if case .proxy(let server) = self { server } else { nil }
        }

        /// `http://proxy.example:3128 (from HTTPS_PROXY)`, `direct`, or
        /// `direct (NO_PROXY names .example.com)`: never a password.
        public var shown: String {
            switch self {
            case .direct: "direct"
            case .bypassed(let entry, let variable):
                "direct (\(variable) names \(TerminalText.sanitise(entry, maxLength: 100)))"
            case .proxy(let server): server.variable.isEmpty ? server.shown : "\(server.shown) (from \(server.variable))"
            }
        }
    }

    /// How a request for `url` goes: through the proxy for its scheme, unless ``bypass`` names its host.
    public func route(for url: URL) -> Route {
        let scheme = url.scheme?.lowercased()
        guard let server = scheme == "https" ? https : scheme == "http" ? http : nil else { return .direct }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        if let entry = bypass.entry(matchingHost: url.host ?? "", port: port) {
            return .bypassed(entry: entry, variable: bypass.variable ?? "NO_PROXY")
        }
        return .proxy(server)
    }

    /// The proxies' passwords, in every form a proxy or a log may show them (the password, and
    /// the `Proxy-Authorization` credential): for ``ReaderError/redacting(_:)``.
    public var secrets: Set<String> {
        Set([http, https].compactMap { $0 }.flatMap(\.secrets))
    }
}

extension ProxySettings {
    /// One `http://` proxy.
    public struct Server: Sendable, Hashable {
        /// The proxy's host name or address (an IPv6 address without brackets).
        public var host: String
        public var port: Int
        /// The user name, percent-decoded; nil for none.
        public var user: String?
        /// The password, percent-decoded; nil for none. A secret: never shown.
        public var password: String?
        /// The environment variable it came from, such as `HTTPS_PROXY`; empty when made in code.
        public var variable: String

        public init(host: String, port: Int, user: String? = nil, password: String? = nil, variable: String = "") {
            self.host = host
            self.port = port
            self.user = user
            self.password = password
            self.variable = variable
        }

        /// The proxy `text` names, as ``ProxySettings/init(environment:)`` reads it.
        /// - Parameters:
        ///   - text: `http://[user[:password]@]host[:port][/]`, or the same without `http://`.
        ///   - variable: where `text` came from, named in the error.
        /// - Throws: ``ReaderError/invalidConfiguration(_:)`` for a proxy reader cannot use.
        public init(_ text: String, variable: String) throws(ReaderError) {
            func refused(_ why: String) -> ReaderError {
                .invalidConfiguration("\(variable) is not a proxy reader can use: \(why)")
            }
            var rest = Substring(text.trimmingCharacters(in: .whitespaces))
            guard rest.utf8.count <= 2048 else { throw refused("it is longer than any proxy address") }
            if let separator = rest.range(of: "://") {
                let scheme = rest[..<separator.lowerBound].lowercased()
                guard scheme == "http" else {
                    let named = TerminalText.sanitise(scheme, maxLength: 20)
                    throw refused("it is a \(named):// proxy, and reader supports only http:// proxies (which tunnel https with CONNECT)")
                }
                rest = rest[separator.upperBound...]
            }
            // What follows the authority — a path, a query — says nothing to a proxy, as for curl.
            let authority = rest.prefix { !"/?#".contains($0) }
            var hostAndPort = authority
            var user: String?
            var password: String?
            if let at = authority.lastIndex(of: "@") {
                let userInfo = authority[..<at]
                hostAndPort = authority[authority.index(after: at)...]
                let colon = userInfo.firstIndex(of: ":")
                let encodedUser = colon.map { userInfo[..<$0] } ?? userInfo
                guard let decodedUser = String(encodedUser).removingPercentEncoding else {
                    throw refused("its user name is not valid percent-encoding")
                }
                user = decodedUser
                if let colon {
                    guard let decoded = String(userInfo[userInfo.index(after: colon)...]).removingPercentEncoding else {
                        throw refused("its password is not valid percent-encoding")
                    }
                    password = decoded
                }
            }
            var host: Substring
            var portText: Substring?
            if hostAndPort.hasPrefix("[") {
                guard let close = hostAndPort.firstIndex(of: "]") else { throw refused("its IPv6 address has no closing ]") }
                host = hostAndPort[hostAndPort.index(after: hostAndPort.startIndex)..<close]
                let after = hostAndPort[hostAndPort.index(after: close)...]
                if !after.isEmpty {
                    guard after.hasPrefix(":") else { throw refused("something follows its IPv6 address that is not a port") }
                    portText = after.dropFirst()
                }
                guard IPAddress(String(host))?.isVersion6 == true else { throw refused("[…] holds no IPv6 address") }
            } else {
                host = hostAndPort
                if let colon = hostAndPort.lastIndex(of: ":") {
                    host = hostAndPort[..<colon]
                    portText = hostAndPort[hostAndPort.index(after: colon)...]
                }
                guard !host.isEmpty else { throw refused("it names no host") }
                let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._"))
                guard host.unicodeScalars.allSatisfy({ $0.isASCII && allowed.contains($0) }), host.utf8.count <= 253 else {
                    throw refused("its host is not a host name or address")
                }
            }
            var port = 1080
            if let portText {
                guard !portText.isEmpty, portText.utf8.count <= 5, portText.allSatisfy(\.isASCII), let number = Int(portText),
                      (1...65_535).contains(number) else {
                    throw refused("its port is not a number from 1 to 65535")
                }
                port = number
            }
            self.init(host: String(host).lowercased(), port: port, user: user, password: password, variable: variable)
        }

        /// `http://host:port`, or `http://user:***@host:port` when it has credentials: what
        /// `reader status`, `reader config` and every message show. Never the password.
        public var shown: String {
            let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            let credentials = user.map { TerminalText.sanitise($0, maxLength: 60) + ":***@" } ?? ""
            return "http://" + credentials + address
        }

        /// The `Proxy-Authorization` credential (`Basic …`), when there is a user name.
        var basicCredential: String? {
            guard let user else { return nil }
            return Data("\(user):\(password ?? "")".utf8).base64EncodedString()
        }

        var secrets: [String] {
            guard user != nil else { return [] }
            return [password, basicCredential, password.map { "\(user ?? ""):\($0)" },
                    password.flatMap { $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) }]
                .compactMap { $0 }.filter { !$0.isEmpty }
        }

        /// The same proxy whatever variable named it: proxies equal by this share a connection pool.
        var identity: Server {
            var plain = self
            plain.variable = ""
            return plain
        }
    }
}

/// A proxy interpolated, printed, dumped or logged is its ``ProxySettings/Server/shown`` form:
/// the password never leaves by way of a description.
extension ProxySettings.Server: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { shown }
    public var debugDescription: String { shown }
    public var customMirror: Mirror {
        Mirror(self, children: ["host": host, "port": port, "user": user as Any, "variable": variable], displayStyle: .struct)
    }
}
