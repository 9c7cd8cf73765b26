/// A stable error code: a domain letter and a number, such as `T1003` or `H404`.
///
/// Codes never change meaning between releases; scripts and support requests can rely on them.
public struct ErrorCode: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The layer an error comes from.
    public enum Domain: String, Sendable, Codable, CaseIterable {
        /// Usage and request: bad arguments or configuration, found before any request.
        case request = "R"
        /// Transport: the request did not get an answer. Numbers mirror `URLError`.
        case transport = "T"
        /// HTTP status: the server answered with an error status. Numbers are the status.
        case http = "H"
        /// The API's own error body: the server said why. Numbers are the status.
        case api = "A"
        /// Decoding: an answer that is not the JSON expected.
        case decoding = "D"
        /// The local cache.
        case cache = "C"
        /// reader's own output: stdout cannot be written.
        case output = "O"
        /// A broken invariant inside `reader`: a bug.
        case bug = "B"
    }

    public var domain: Domain
    public var number: Int

    public init(_ domain: Domain, _ number: Int) {
        self.domain = domain
        self.number = number
    }

    /// `T1003`.
    public var description: String { "\(domain.rawValue)\(number)" }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let first = text.first, let domain = Domain(rawValue: String(first)),
              let number = Int(text.dropFirst()) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Not an error code: \(text)")
        }
        self.init(domain, number)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// The exit codes of `reader`, from BSD's sysexits so that scripts can tell failures apart.
///
/// A number where it is shown: `print(error.exitCode)` prints `68`, as `reader` exits; the case's
/// name (`noHost`) is ``name``, and `exit(error.exitCode.rawValue)` ends a process with it.
public enum ExitCode: Int32, Sendable, CaseIterable, CustomStringConvertible {
    case success = 0
    /// Invalid arguments.
    case usage = 64
    /// The service answered with data that does not decode.
    case dataError = 65
    /// The resource does not exist.
    case notFound = 66
    /// The host name cannot be resolved.
    case noHost = 68
    /// The service is unavailable (server error, or `--offline` with nothing cached).
    case unavailable = 69
    /// An internal invariant broke: a bug.
    case software = 70
    /// The cache file cannot be created, opened or written (EX_CANTCREAT): C1002 when a damaged
    /// file cannot be replaced, C1003, C1004. Only `reader cache …` ends so; other commands carry on.
    case cannotCreate = 73
    /// The output cannot be written (a full disk, a closed stdout).
    case ioError = 74
    /// A temporary failure: worth trying again later (offline, timed out, rate limited).
    case temporaryFailure = 75
    /// The service answered outside the protocol (HTML instead of JSON, a client error).
    case protocolError = 76
    /// Not allowed: authentication or permission.
    case noPermission = 77
    /// Invalid configuration (environment variables).
    case configuration = 78

    /// The number, such as `68`: what a shell's `$?` shows.
    public var description: String { String(rawValue) }

    /// The case's name, such as `noHost`: sysexits' `EX_NOHOST` in Swift's spelling.
    public var name: String {
        switch self {
        case .success: "success"
        case .usage: "usage"
        case .dataError: "dataError"
        case .notFound: "notFound"
        case .noHost: "noHost"
        case .unavailable: "unavailable"
        case .software: "software"
        case .cannotCreate: "cannotCreate"
        case .ioError: "ioError"
        case .temporaryFailure: "temporaryFailure"
        case .protocolError: "protocolError"
        case .noPermission: "noPermission"
        case .configuration: "configuration"
        }
    }
}
