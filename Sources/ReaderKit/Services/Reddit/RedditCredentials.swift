import Foundation

/// A Reddit app's identity for application-only OAuth: its client id, and its secret unless it
/// is an installed app. Its description never shows the secret.
public struct RedditCredentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    public var clientID: String
    /// The secret of a script or web app; nil for an installed app, which uses the
    /// installed-client grant with a device id instead.
    public var clientSecret: String?

    public init(clientID: String, clientSecret: String? = nil) {
        self.clientID = clientID
        self.clientSecret = clientSecret
    }

    /// Reads `READER_REDDIT_CLIENT_ID` and `READER_REDDIT_CLIENT_SECRET`; nil when no client id is set.
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` naming the variable that cannot be a
    ///   credential (an id longer than 100 characters or a secret longer than 200, a space, a colon,
    ///   anything but printable ASCII), with the rule it breaks, never showing a secret.
    public static func fromEnvironment(_ environment: [String: String]) throws(ReaderError) -> RedditCredentials? {
        let (idVariable, secretVariable) = (RedditService.clientIDVariable, RedditService.clientSecretVariable)
        let secret = environment[secretVariable]
        guard let id = environment[idVariable], !id.isEmpty else {
            if let secret, !secret.isEmpty {
                throw .invalidConfiguration("\(secretVariable) is set but \(idVariable) is not: set both, or neither")
            }
            return nil
        }
        if let problem = idProblem(id) {
            throw .invalidConfiguration("\(idVariable) is not a Reddit client id: \(problem)")
        }
        if let secret, !secret.isEmpty {
            // The message never shows the secret.
            if let problem = secretProblem(secret) {
                throw .invalidConfiguration("\(secretVariable) is not a Reddit client secret: \(problem)")
            }
            return RedditCredentials(clientID: id, clientSecret: secret)
        }
        return RedditCredentials(clientID: id)
    }

    /// The longest client id taken: Reddit's are about 22 characters.
    static let maximumIDLength = 100
    /// The longest client secret taken: Reddit's are about 30 characters.
    static let maximumSecretLength = 200

    /// Why `id` cannot be a client id, as the rule it breaks; nil when it can be one.
    package static func idProblem(_ id: String) -> String? {
        problem(id, maximumLength: maximumIDLength)
    }

    /// Why `secret` cannot be a client secret, as the rule it breaks (never showing it); nil when it can be one.
    package static func secretProblem(_ secret: String) -> String? {
        problem(secret, maximumLength: maximumSecretLength)
    }

    /// The whole rule, said whenever any part of it is broken: 1 to `maximumLength` printable
    /// ASCII characters with no space and no colon, which HTTP basic auth would split on.
    private static func problem(_ text: String, maximumLength: Int) -> String? {
        guard text.isEmpty || text.utf8.count > maximumLength || !text.unicodeScalars.allSatisfy(isCredentialCharacter) else { return nil }
        return "it must be 1 to \(maximumLength) printable ASCII characters, without spaces or ':'"
    }

    private static func isCredentialCharacter(_ scalar: Unicode.Scalar) -> Bool {
        (0x21...0x7E).contains(scalar.value) && scalar != ":"
    }

    /// `Basic base64(id:secret)`, with an empty secret for an installed app.
    var basicAuthorization: String {
        "Basic " + Data("\(clientID):\(clientSecret ?? "")".utf8).base64EncodedString()
    }

    public var description: String {
        "RedditCredentials(clientID: \(clientID), secret: \(clientSecret == nil ? "none (installed app)" : "set"))"
    }

    public var debugDescription: String { description }
}

/// An application-only bearer token and when it stops working. Its description never shows it.
public struct RedditToken: Sendable, Equatable, Codable, CustomStringConvertible, CustomDebugStringConvertible {
    var accessToken: String
    public var expiresAt: Date
    /// The client id it was issued to: a token is never used for another app.
    public var clientID: String
    /// The origin it is sent to (the OAuth host, as ``Origin`` writes it): a token is never sent
    /// to another, even when the addresses change between runs. A token kept without one is not used.
    public var origin: String?

    /// A token is renewed this long before it expires, so it never expires mid-command.
    public static let renewalMargin: TimeInterval = 60

    /// Whether it can still be used at `now`.
    public func isUsable(at now: Date) -> Bool {
        expiresAt.timeIntervalSince(now) > Self.renewalMargin
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", expiresAt = "expires_at", clientID = "client_id", origin
    }

    public init(accessToken: String, expiresAt: Date, clientID: String, origin: String?) {
        self.accessToken = accessToken
        self.expiresAt = expiresAt
        self.clientID = clientID
        self.origin = origin
    }

    public var description: String { "RedditToken(client: \(clientID), expires: \(expiresAt.formatted(.iso8601)))" }
    public var debugDescription: String { description }
}

/// Where the token (and an installed app's device id) is kept between runs: a JSON file only
/// the user can read (mode 0600), written whole and renamed into place.
package struct RedditTokenStore: Sendable {
    package let path: String

    package init(path: String) {
        self.path = path
    }

    private struct Contents: Codable {
        var token: RedditToken?
        var deviceID: String?

        enum CodingKeys: String, CodingKey { case token, deviceID = "device_id" }
    }

    /// The longest a stored token may still have to live: Reddit's tokens last an hour and reader
    /// caps any lifetime at a week, so a later expiry is a damaged or forged file.
    static let maximumRemainingLifetime: TimeInterval = 7 * 86_400 + 3600

    /// The stored token for `clientID` at `origin`, if any. The file is untrusted: a token that is not
    /// printable ASCII of at most 4 KB, or that expires at no time reader can compute with
    /// (`1e300`) or later than ``maximumRemainingLifetime`` from `now`, is as good as none.
    package func token(for clientID: String, at origin: String, now: Date) -> RedditToken? {
        guard let token = read()?.token, token.clientID == clientID, token.origin == origin,
              OutsideNumbers.isPlausible(token.expiresAt), OutsideNumbers.isPlausible(now),
              token.expiresAt.timeIntervalSince(now) <= Self.maximumRemainingLifetime,
              !token.accessToken.isEmpty, token.accessToken.utf8.count <= 4096,
              token.accessToken.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else { return nil }
        return token
    }

    func save(_ token: RedditToken) {
        var contents = read() ?? Contents()
        contents.token = token
        write(contents)
    }

    func discardToken() {
        guard var contents = read(), contents.token != nil else { return }
        contents.token = nil
        write(contents)
    }

    /// The installed app's device id: random, made once and kept, as Reddit asks.
    func deviceID() -> String {
        if let existing = read()?.deviceID, (20...30).contains(existing.count) { return existing }
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        let made = String((0..<25).map { _ in alphabet.randomElement()! })
        var contents = read() ?? Contents()
        contents.deviceID = made
        write(contents)
        return made
    }

    private func read() -> Contents? {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 64 * 1024 else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode(Contents.self, from: data)
    }

    /// Writes a temporary file created 0600 (never readable by others, not even for a moment),
    /// then renames it over the store. A store that cannot be written is not an error: the
    /// token is fetched again next time.
    private func write(_ contents: Contents) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        guard let data = try? encoder.encode(contents) else { return }
        let folder = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        _ = fchmod(descriptor, 0o600)
        let written = data.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        _ = fsync(descriptor)
        _ = close(descriptor)
        guard written == data.count, rename(temporary, path) == 0 else { unlink(temporary); return }
    }
}

extension RedditCredentials {
    /// What must never be shown of these credentials, in the forms a server may echo them: the
    /// secret, `id:secret`, and the `Basic` credential's base64 (with and without its padding).
    var secretForms: Set<String> {
        guard let secret = clientSecret, !secret.isEmpty else { return [] }
        let basic = Data("\(clientID):\(secret)".utf8).base64EncodedString()
        return [secret, "\(clientID):\(secret)", basic, basic.trimmingCharacters(in: CharacterSet(charactersIn: "="))]
    }
}
