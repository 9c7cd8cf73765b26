import Foundation

/// A service ReaderKit carries: at its public addresses with ``init()``, or where the environment
/// says with ``fromEnvironment(_:)``. Each is a folder under `Services/` and one line in
/// ``ServiceConfiguration/builtInServices``.
public protocol BuiltInService: Service {
    /// The service at its public addresses, read anonymously.
    init()

    /// The environment variables ``fromEnvironment(_:)`` reads, in the order a help page lists them.
    static var environmentVariables: [String] { get }

    /// The service as `environment` configures it; unset or empty variables keep their defaults.
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` naming the variable whose value cannot
    ///   be what it should, never showing a secret.
    static func fromEnvironment(_ environment: [String: String]) throws(ReaderError) -> Self
}

extension ServiceConfiguration {
    /// The services ReaderKit carries, in the order they are listed.
    public static let builtInServices: [any BuiltInService.Type] = [SWAPIService.self, RedditService.self]

    /// Every built-in service at its public addresses, Reddit read anonymously.
    public static let builtIn = ServiceConfiguration(builtInServices.map { $0.init() })

    /// Every built-in service where the environment says (each service's
    /// ``BuiltInService/environmentVariables``: `READER_SWAPI_URL`, `READER_REDDIT_URL`, …).
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` when a URL is not http(s) with a host,
    ///   holds a user name or password, or has a port outside 1…65535, or a credential cannot be
    ///   one (the message names the variable, never its value if secret).
    public static func fromEnvironment(_ environment: [String: String]) throws(ReaderError) -> ServiceConfiguration {
        var services: [any Service] = []
        for type in builtInServices { services.append(try type.fromEnvironment(environment)) }
        return ServiceConfiguration(services)
    }
}
