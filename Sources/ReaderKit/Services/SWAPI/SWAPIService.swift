import Foundation

/// The Star Wars API as a ``Service``: `https://swapi.dev/api`, its answers fresh for a day (its
/// data does not change and it sends no freshness of its own), its error body `{"detail": …}`.
public struct SWAPIService: BuiltInService {
    /// `swapi`: the name its cache entries are kept under.
    public static let name: ServiceName = "swapi"
    /// `https://swapi.dev/api`.
    public static let defaultBaseURL = URL(string: "https://swapi.dev/api")!
    /// `READER_SWAPI_URL`: the variable that points it elsewhere (a mirror, a test server).
    public static let baseURLVariable = "READER_SWAPI_URL"

    public var name: ServiceName { Self.name }
    public var baseURL: URL
    public var freshness: FreshnessPolicy.Rule

    /// SWAPI at `baseURL`, fresh for `freshness` (a day).
    public init(baseURL: URL = defaultBaseURL, freshness: FreshnessPolicy.Rule = FreshnessPolicy.Rule(defaultLifetime: .seconds(86_400))) {
        self.baseURL = baseURL
        self.freshness = freshness
    }

    /// SWAPI at its public address.
    public init() { self.init(baseURL: Self.defaultBaseURL) }

    public static var environmentVariables: [String] { [baseURLVariable] }

    /// SWAPI where ``baseURLVariable`` says.
    public static func fromEnvironment(_ environment: [String: String]) throws(ReaderError) -> SWAPIService {
        SWAPIService(baseURL: try ServiceConfiguration.baseURL(in: environment, variable: baseURLVariable, default: defaultBaseURL))
    }
}
