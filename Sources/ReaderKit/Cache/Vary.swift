import Foundation

/// `Vary` (RFC 9111 §4.1): a stored response answers only a request whose headers named in its
/// `Vary` match those of the request it answered; `Vary: *` matches none.
public enum Vary {
    /// The request header fields reader never compares: a credential is never written to the
    /// cache file, so `Vary: Authorization` compares whether one was sent, not its value.
    static let comparedByPresenceOnly = ["authorization"]

    /// The field names a `Vary` value lists, lowercased, sorted, each once; `*` stays `*`.
    static func names(_ vary: String?) -> [String] {
        guard let vary else { return [] }
        var names: [String] = []
        for name in HeaderList.members(vary).map({ $0.lowercased() }).sorted() where names.last != name { names.append(name) }
        return names
    }

    /// What the request's fields named by `vary` hold, one `name: value` line each (absent fields
    /// are empty), as stored with the response; nil when it has no `Vary`.
    public static func requestFingerprint(vary: String?, requestHeaders: HeaderFields) -> String? {
        fingerprint(of: names(vary), requestHeaders: requestHeaders)
    }

    /// ``requestFingerprint(vary:requestHeaders:)`` of the names already read from a `Vary`.
    private static func fingerprint(of names: [String], requestHeaders: HeaderFields) -> String? {
        guard !names.isEmpty else { return nil }
        return names.map { name in
            let value = HeaderList.combined(name, in: requestHeaders)
            if comparedByPresenceOnly.contains(name) { return "\(name): \(value == nil ? "" : "present")" }
            var normalised = ""
            for (index, member) in HeaderList.members(value ?? "").enumerated() { normalised += index == 0 ? member : "," + member }
            return "\(name): \(normalised)"
        }.reduce(into: "") { fingerprint, line in fingerprint += fingerprint.isEmpty ? line : "\n" + line }
    }

    /// A request's header fields as the `Vary` of its answer judges them: with an `Authorization`
    /// when `service`'s authenticator adds one to a request for `url`, which it does only as the
    /// request is sent, after these fields were made (its value is never kept: compared by presence).
    static func judgedHeaders(_ headers: HeaderFields, service: any Service, url: URL) -> HeaderFields {
        guard headers["Authorization"] == nil, let authenticator = service.authenticator, Origin(url) == authenticator.origin else {
            return headers
        }
        var judged = headers
        judged.add("Authorization", "present")
        return judged
    }

    /// Whether `entry` may answer a request with `requestHeaders` as far as its `Vary` goes.
    public static func matches(_ entry: CacheEntry, requestHeaders: HeaderFields) -> Bool {
        let names = names(entry.vary)
        if names.isEmpty { return true }
        if names.contains("*") { return false }
        return fingerprint(of: names, requestHeaders: requestHeaders) == entry.varyRequest
    }
}
