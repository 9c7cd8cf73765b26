import Foundation
import Logging

/// Adds a credential to a service's requests, in the manner of Alamofire's
/// `AuthenticationInterceptor`: the client obtains the credential once for all concurrent
/// requests, adds it only to requests for ``origin``, and on a refusal renews it once and retries.
///
/// Credentials are versioned by the client: a refusal of a request that carried an older
/// credential than the current one (a sibling request renewed it meanwhile) retries with the
/// current one without renewing again. A refusal renewing cannot mend — a renewed credential
/// refused again, or ``obtainCredential(in:)`` throwing ``ReaderError/authentication(_:)`` — ends
/// renewal for the client's run: later requests to the service fail at once with that error.
public protocol Authenticator: Sendable {
    /// The only origin (scheme, host and port) the credential is sent to: never to another, nor
    /// where a redirect points.
    var origin: Origin { get }
    /// The secrets it holds, in every form a server might echo them: a failure's text is shown
    /// without them, as is every credential it obtains.
    var secrets: Set<String> { get }

    /// A credential kept from an earlier run, if one is still usable at `session.now`; nil by default.
    func storedCredential(in session: AuthenticationSession) -> AuthenticationCredential?

    /// Obtains a new credential, such as a token from a token endpoint. Its request is sent once:
    /// a POST is not retried as a GET is.
    /// - Throws: ``ReaderError/authentication(_:)`` when the credential is refused; any other
    ///   classified error as the pipeline would throw it.
    func obtainCredential(in session: AuthenticationSession) async throws(ReaderError) -> AuthenticationCredential

    /// Keeps a credential just obtained for the next run; by default nothing.
    func store(_ credential: AuthenticationCredential, in session: AuthenticationSession)

    /// Forgets a credential the service refused, here and wherever it was kept; by default nothing.
    func discard(_ credential: AuthenticationCredential, in session: AuthenticationSession)

    /// Adds `credential` to a request for ``origin``; by default `Authorization: Bearer <value>`.
    func apply(_ credential: AuthenticationCredential, to headers: inout HeaderFields)

    /// Whether `error` says the credential was refused, so that it is renewed once and the request
    /// retried, and a refusal after the renewal keeps the cached copy (it says nothing of the
    /// resource); by default a 401.
    func isRefusal(_ error: ReaderError) -> Bool
}

extension Authenticator {
    public func storedCredential(in session: AuthenticationSession) -> AuthenticationCredential? { nil }

    public func store(_ credential: AuthenticationCredential, in session: AuthenticationSession) {}

    public func discard(_ credential: AuthenticationCredential, in session: AuthenticationSession) {}

    public func apply(_ credential: AuthenticationCredential, to headers: inout HeaderFields) {
        headers.remove("Authorization")
        headers.add("Authorization", "Bearer " + credential.value)
    }

    public func isRefusal(_ error: ReaderError) -> Bool {
        if case .status(let failure) = error { return failure.status == 401 }
        return false
    }
}

/// A credential, such as a bearer token, and when it stops being usable.
public struct AuthenticationCredential: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The secret itself. Never printed: ``description`` leaves it out.
    public var value: String
    /// When it expires; nil for never.
    public var expiresAt: Date?

    public init(value: String, expiresAt: Date? = nil) {
        self.value = value
        self.expiresAt = expiresAt
    }

    /// How long before its expiry a credential is no longer used: a request sent just before
    /// the expiry would arrive after it.
    public static let renewalMargin: TimeInterval = 60

    /// Whether it may be sent at `now`.
    public func isUsable(at now: Date) -> Bool {
        guard let expiresAt else { return true }
        return expiresAt.timeIntervalSince(now) > Self.renewalMargin
    }

    public var description: String {
        "AuthenticationCredential(expires: \(expiresAt.map { $0.formatted(.iso8601) } ?? "never"))"
    }

    public var debugDescription: String { description }
}

/// What an ``Authenticator`` may use to obtain and keep a credential.
public struct AuthenticationSession: Sendable {
    /// Sends one request as it is, once: no redirects, no retries, no credential added.
    public var send: @Sendable (HTTPRequest) async throws(ReaderError) -> HTTPResponse
    /// A folder to keep a credential in between runs (the cache file's), or nil for none.
    public var storageDirectory: String?
    /// The time now, from the client's clock.
    public var now: Date
    /// The client's logger. Never log a credential.
    public var logger: Logger

    public init(send: @escaping @Sendable (HTTPRequest) async throws(ReaderError) -> HTTPResponse, storageDirectory: String?,
                now: Date, logger: Logger) {
        self.send = send
        self.storageDirectory = storageDirectory
        self.now = now
        self.logger = logger
    }
}
