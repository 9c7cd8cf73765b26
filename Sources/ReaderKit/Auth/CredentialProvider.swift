import Foundation
import Logging

/// The credentials of the services that have an ``Authenticator``: one fetch shared by the
/// concurrent loads that need it, kept between runs where the authenticator keeps them, and
/// versioned, so that a refusal of a request that carried an older credential than the current
/// one (a sibling request renewed it meanwhile) does not discard the newer one.
///
/// A refusal that renewing cannot mend — the token endpoint refusing the app's own credentials,
/// or a service refusing a credential already renewed in this run — ends renewal for the rest of
/// the run: every later request for that service fails at once with the same error, and the token
/// endpoint is asked once a run, not once a request.
///
/// It also holds every secret the client has seen — the authenticators' own, and each credential
/// obtained — so that a failure's text is shown without them (``ReaderError/redacting(_:)``).
actor CredentialProvider {
    /// A credential as the client holds it: the version says which renewal it came from.
    struct Held: Sendable, Equatable {
        var credential: AuthenticationCredential
        var version: Int
    }

    private let services: ServiceConfiguration
    /// The folder beside the cache file where an authenticator may keep a credential between
    /// runs; nil without a cache.
    private let storageDirectory: String?
    private let transport: TransportHolder
    private let logger: Logger
    private let now: @Sendable () -> Date
    /// Every secret this client has held: the authenticators' secrets in the forms a server may
    /// echo them, and each credential.
    private(set) var secrets: Set<String>
    /// The credential each authenticated service's requests carry now, with its version.
    private var credentials: [ServiceName: Held] = [:]
    /// The credential requests in flight, one per service, shared by the loads that need it.
    private var fetches: [ServiceName: Task<Result<AuthenticationCredential, ReaderError>, Never>] = [:]
    /// The last version given to a credential: each credential held gets the next.
    private var versions = 0
    /// The refusal that ended renewal for a service in this run, thrown again for each later request.
    private var refusals: [ServiceName: ReaderError] = [:]

    /// - Parameter otherSecrets: secrets held elsewhere that a failure's text must not show either:
    ///   the proxies' passwords (``ProxySettings/secrets``).
    init(services: ServiceConfiguration, cachePath: String?, transport: TransportHolder, logger: Logger,
         now: @escaping @Sendable () -> Date, otherSecrets: Set<String> = []) {
        self.services = services
        self.storageDirectory = cachePath.map { ($0 as NSString).deletingLastPathComponent }
        self.transport = transport
        self.logger = logger
        self.now = now
        self.secrets = services.secrets.union(otherSecrets)
    }

    /// What an authenticator may use: the transport, once, within `deadline`. The transport is
    /// made only if the authenticator sends something.
    private func session(deadline: ContinuousClock.Instant) -> AuthenticationSession {
        let transport = self.transport
        return AuthenticationSession(
            send: { (request) throws(ReaderError) in
                let sender = await transport.transportForUse()
                do throws(TransportFailure) { return try await sender.send(request, deadline: deadline) } catch { throw .transport(error) }
            },
            storageDirectory: storageDirectory, now: now(), logger: logger)
    }

    /// The credential for `service`'s requests: this run's, else a kept one while it is usable,
    /// else a new one from the authenticator (then kept). Concurrent loads share one request for it.
    /// - Throws: the refusal that ended renewal for `service` in this run, at once (``hasEndedRenewal(for:)``);
    ///   the authenticator's error, a refusal of the app's credentials being remembered as one.
    func current(for service: ServiceName, _ authenticator: any Authenticator,
                 deadline: ContinuousClock.Instant) async throws(ReaderError) -> Held {
        if let refusal = refusals[service] { throw refusal }
        if let held = credentials[service], held.credential.isUsable(at: now()) { return held }
        let session = session(deadline: deadline)
        if let stored = authenticator.storedCredential(in: session), stored.isUsable(at: now()) {
            return hold(stored, for: service)
        }
        let fetch: Task<Result<AuthenticationCredential, ReaderError>, Never>
        if let pending = fetches[service] {
            fetch = pending
        } else {
            fetch = Task {
                do throws(ReaderError) { return .success(try await authenticator.obtainCredential(in: session)) }
                catch { return .failure(error) }
            }
            fetches[service] = fetch
        }
        let result = await fetch.value
        if fetches[service] == fetch { fetches[service] = nil }
        let credential: AuthenticationCredential
        switch result {
        case .success(let obtained):
            credential = obtained
        case .failure(let error):
            // The app's credentials refused: asking again in this run would be refused again.
            if case .authentication = error { refusals[service] = error }
            throw error
        }
        if let held = credentials[service], held.credential == credential { return held }
        authenticator.store(credential, in: session)
        return hold(credential, for: service)
    }

    private func hold(_ credential: AuthenticationCredential, for service: ServiceName) -> Held {
        versions += 1
        secrets.insert(credential.value)
        let held = Held(credential: credential, version: versions)
        credentials[service] = held
        return held
    }

    /// The reset decision's action: `refused` is not used again, here or by the next run — unless
    /// a sibling request already replaced it, in which case the retry uses the newer one and
    /// nothing is renewed again.
    func discard(_ refused: Held, of service: ServiceName, _ authenticator: any Authenticator) {
        guard let current = credentials[service], current.version == refused.version else { return }
        credentials[service] = nil
        authenticator.discard(refused.credential, in: session(deadline: .now))
    }

    /// A refusal of `refused`, a credential obtained after an earlier one was refused in this run:
    /// the service refuses the app, not a credential, so `refused` is discarded and renewal ends
    /// for the rest of the run, every later request failing at once with `error`.
    func endRenewal(after error: ReaderError, refusing refused: Held, of service: ServiceName, _ authenticator: any Authenticator) {
        discard(refused, of: service, authenticator)
        refusals[service] = error
    }

    /// Whether renewal has ended for `service` in this run (``endRenewal(after:refusing:of:_:)``, or
    /// the token endpoint refusing the app's credentials): its requests fail without renewing.
    func hasEndedRenewal(for service: ServiceName) -> Bool {
        refusals[service] != nil
    }

    /// Whether a usable credential for `service` is held (in this run or kept), and until when;
    /// never the credential itself. Nil when the service has no authenticator.
    func status(of service: ServiceName) -> (held: Bool, expiresAt: Date?)? {
        guard let authenticator = services[service]?.authenticator else { return nil }
        let credential = credentials[service]?.credential ?? authenticator.storedCredential(in: session(deadline: .now))
        guard let credential, credential.isUsable(at: now()) else { return (false, nil) }
        return (true, credential.expiresAt)
    }
}
