import Foundation

/// The services a client reads, by name: each a ``Service`` with its base URL and its rules.
///
/// ```swift
/// var services = try ServiceConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
/// services.register(MyService())
/// let client = ReaderClient(configuration: .init(services: services, cachePath: path))
/// ```
public struct ServiceConfiguration: Sendable {
    private var byName: [ServiceName: any Service] = [:]

    /// A configuration of exactly `services`; a later service of the same name replaces an earlier one.
    public init(_ services: [any Service]) {
        for service in services { register(service) }
    }

    /// Adds `service`, or replaces the one registered under its name.
    public mutating func register(_ service: any Service) {
        byName[service.name] = service
    }

    /// The service registered under `name`.
    public subscript(name: ServiceName) -> (any Service)? { byName[name] }

    /// The names registered, sorted.
    public var names: [ServiceName] { byName.keys.sorted() }

    /// Every registered service, sorted by name.
    public var services: [any Service] { names.compactMap { byName[$0] } }

    /// Every secret the services' authenticators hold, in the forms a server may echo them.
    var secrets: Set<String> {
        byName.values.reduce(into: Set<String>()) { secrets, service in
            secrets.formUnion(service.authenticator?.secrets ?? [])
            secrets.formUnion(service.secrets)
        }
    }

    /// A base URL from `environment[variable]`, or `fallback` when it is unset or empty: how a
    /// service lets its address be overridden (`READER_SWAPI_URL`, `OPENLIBRARY_URL`).
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` when the value is not an http(s) URL
    ///   with a host, holds a control character (C0, DEL or C1), white space, a user name or
    ///   password (never shown), a query or a fragment, or has a port outside 1…65535. The message
    ///   names the variable.
    public static func baseURL(in environment: [String: String], variable: String, default fallback: URL) throws(ReaderError) -> URL {
        try baseURL(environment[variable], variable: variable, default: fallback)
    }

    package static func baseURL(_ value: String?, variable: String, default fallback: URL) throws(ReaderError) -> URL {
        guard let value, !value.isEmpty else { return fallback }
        // A password in the variable is a secret: never shown, whatever else is wrong.
        let shown = TerminalText.sanitise(Origin.removingUserInfo(value), maxLength: 200)
        // A control character (C0, DEL, C1) is in no URL, and would reach a log or a terminal as a command.
        if let control = value.unicodeScalars.first(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            let code = String(control.value, radix: 16, uppercase: true)
            throw .invalidConfiguration("\(variable) holds a control character (U+\(String(repeating: "0", count: 4 - code.count))\(code)), which no URL may hold: \"\(shown)\"")
        }
        if let components = URLComponents(string: value), components.user != nil || components.password != nil {
            throw .invalidConfiguration("\(variable) holds a user name or password, which ReaderKit never sends: \"\(shown)\"")
        }
        guard let components = URLComponents(string: value),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host, !host.isEmpty,
              components.query == nil, components.fragment == nil,
              !value.contains(where: { $0.isWhitespace })
        else {
            throw .invalidConfiguration("\(variable) is not an http or https URL with a host: \"\(shown)\"")
        }
        // Checked here, before SwiftNIO, which traps on a port that does not fit 16 bits.
        if case .outOfRange = Origin.port(of: components) {
            throw .invalidConfiguration("\(variable) has a port outside 1…65535: \"\(shown)\"")
        }
        var text = value
        while text.hasSuffix("/") { text.removeLast() }
        guard let url = URL(string: text) else {
            throw .invalidConfiguration("\(variable) is not a valid URL: \"\(shown)\"")
        }
        return url
    }
}
