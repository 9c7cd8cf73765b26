import Foundation

/// A credential as the client holds it: the version says which renewal it came from, so that a
/// refusal of a request that carried an older one does not discard a newer one.
struct HeldCredential: Sendable, Equatable {
    var credential: AuthenticationCredential
    var version: Int
}

extension ReaderClient {
    /// The folder beside the cache file where an authenticator may keep a credential between
    /// runs; nil without a cache.
    var credentialStorageDirectory: String? {
        configuration.cachePath.map { ($0 as NSString).deletingLastPathComponent }
    }

    /// What an authenticator may use: the transport, once, within `deadline`.
    func authenticationSession(deadline: ContinuousClock.Instant) -> AuthenticationSession {
        let transport = transportForUse()
        return AuthenticationSession(
            send: { (request) throws(ReaderError) in
                do throws(TransportFailure) { return try await transport.send(request, deadline: deadline) } catch { throw .transport(error) }
            },
            storageDirectory: credentialStorageDirectory, now: now(), logger: logger)
    }

    /// The credential for `service`'s requests: this run's, else a kept one while it is usable,
    /// else a new one from the authenticator (then kept). Concurrent loads share one request for it.
    func currentCredential(for service: ServiceName, _ authenticator: any Authenticator,
                           deadline: ContinuousClock.Instant) async throws(ReaderError) -> HeldCredential {
        if let held = credentials[service], held.credential.isUsable(at: now()) { return held }
        let session = authenticationSession(deadline: deadline)
        if let stored = authenticator.storedCredential(in: session), stored.isUsable(at: now()) {
            return hold(stored, for: service)
        }
        let fetch: Task<Result<AuthenticationCredential, ReaderError>, Never>
        if let pending = credentialFetches[service] {
            fetch = pending
        } else {
            fetch = Task {
                do throws(ReaderError) { return .success(try await authenticator.obtainCredential(in: session)) }
                catch { return .failure(error) }
            }
            credentialFetches[service] = fetch
        }
        let result = await fetch.value
        if credentialFetches[service] == fetch { credentialFetches[service] = nil }
        let credential = try result.get()
        if let held = credentials[service], held.credential == credential { return held }
        authenticator.store(credential, in: session)
        return hold(credential, for: service)
    }

    private func hold(_ credential: AuthenticationCredential, for service: ServiceName) -> HeldCredential {
        credentialVersions += 1
        secrets.insert(credential.value)
        let held = HeldCredential(credential: credential, version: credentialVersions)
        credentials[service] = held
        return held
    }

    /// The reset decision's action: `refused` is not used again, here or by the next run — unless
    /// a sibling request already replaced it, in which case the retry uses the newer one and
    /// nothing is renewed again.
    func discardCredential(_ refused: HeldCredential, of service: ServiceName, _ authenticator: any Authenticator) {
        guard let current = credentials[service], current.version == refused.version else { return }
        credentials[service] = nil
        authenticator.discard(refused.credential, in: authenticationSession(deadline: .now))
    }

    /// Whether a usable credential for `service` is held (in this run or kept), and until when;
    /// never the credential itself. Nil when the service has no authenticator.
    public func credentialStatus(of service: ServiceName) -> (held: Bool, expiresAt: Date?)? {
        guard let authenticator = configuration.services[service]?.authenticator else { return nil }
        let credential = credentials[service]?.credential ?? authenticator.storedCredential(in: authenticationSession(deadline: .now))
        guard let credential, credential.isUsable(at: now()) else { return (false, nil) }
        return (true, credential.expiresAt)
    }
}
