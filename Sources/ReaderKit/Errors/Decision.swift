/// What to do about a classified error: the ErrorHandler's answer.
public indirect enum Decision: Sendable, Equatable, CustomStringConvertible {
    /// Do not show the error as a failure: the command carries on, perhaps with a notice.
    case ignore(IgnoreReason)
    /// Show the error to the user; the command fails with the error's exit code.
    case alert
    /// Try the same request again after `delay`.
    case retry(after: Duration)
    /// Discard the named state first, then do what `then` says.
    case reset(ResetAction, then: Decision)

    /// Why an error is not shown as a failure.
    public enum IgnoreReason: String, Sendable, Equatable {
        /// A cached copy is served instead, with a notice giving its age and the error's code.
        case servedStale = "served_stale"
        /// The cache cannot be written; the command carries on without storing (one warning a run).
        case continueWithoutCache = "continue_without_cache"
        /// The damaged cache was replaced by a new one; the command carries on (one notice).
        case cacheReplaced = "cache_replaced"
        /// Background work: the failure is counted and reported in the summary, not one by one.
        case summarised
        /// A damaged cache entry was deleted; the load carries on as if there were no copy.
        case droppedDamagedEntry = "dropped_damaged_entry"
    }

    /// State a reset discards.
    public enum ResetAction: String, Sendable, Equatable {
        /// Delete the cached copy of this request: the resource is gone or no longer readable.
        case deleteCachedCopy = "delete_cached_copy"
        /// Move the cache file aside (never deleted) and start a new one.
        case replaceCacheFile = "replace_cache_file"
        /// Discard the bearer token (in memory and stored) and obtain a new one.
        case renewToken = "renew_token"
    }

    /// The decision's name as `--json` reports it: `ignore`, `alert`, `retry` or `reset`.
    public var name: String {
        switch self {
        case .ignore: "ignore"
        case .alert: "alert"
        case .retry: "retry"
        case .reset: "reset"
        }
    }

    /// Whether the command fails once this decision has been carried out.
    public var endsInAlert: Bool {
        switch self {
        case .alert: true
        case .ignore, .retry: false
        case .reset(_, let then): then.endsInAlert
        }
    }

    public var description: String {
        switch self {
        case .ignore(let reason): "ignore(\(reason.rawValue))"
        case .alert: "alert"
        case .retry(let delay): "retry(after: \(delay))"
        case .reset(let action, let then): "reset(\(action.rawValue), then: \(then))"
        }
    }
}
