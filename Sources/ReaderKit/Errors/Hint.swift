/// What can be done next about a failure, as a value: ReaderKit decides which hints hold
/// (``ReaderError/hints(in:)``), and each front end says them.
///
/// A hint is a sentence kept in parts (``wording``): the settings it names are names, so that a
/// front end shows its own for them (`reader` says `--offline` where ReaderKit says
/// `LoadOptions.CacheMode.offline`) and keeps the rest of the sentence. ``text`` is ReaderKit's
/// wording, for a program that uses the library. A front end that has a sentence of its own for
/// a hint (its help command, its configuration file) says that one instead. Hints are said in
/// order, joined by `; ` (``Swift/Array/text``).
public enum Hint: Sendable, Hashable {
    /// A hint that names nothing a front end would name its own way: said as it is.
    case plain(String)
    /// The arguments passed: the message names the one refused, and why.
    case checkArguments
    /// The configuration value the message names cannot be used.
    case fixConfiguration
    /// The resource is not readable with the credential sent (or without one).
    case notReadable
    /// The answer no longer has the shape the models read: the program (its models) needs updating.
    case updateTheModels
    /// Try again with more time (``ReaderClient/Configuration/timeout``).
    case allowMoreTime
    /// The service's base URL may be the wrong one.
    case checkServiceAddress
    /// A not-found that is not the service's own (no error body of its API: a web server's page):
    /// the base URL is more likely wrong than the name or id asked for.
    case checkServiceAddressNotFound
    /// The connection, and the service's base URL.
    case checkConnectionAndServiceAddress
    /// A redirect is followed only within its origin (or from http to https on the same host):
    /// the service's base URL may be the wrong one.
    case checkServiceAddressRedirected
    /// Try again in the offline cache mode, which reads what is cached.
    case tryAgainOffline
    /// The offline cache mode reads what is cached.
    case readCachedDataOffline
    /// Nothing is cached for the request yet: a load in the offline cache mode cannot show it either.
    case nothingCachedForOffline
    /// A copy is cached, and a load in the offline cache mode shows it.
    case offlineShowsCachedCopy
    /// The cached copy is older than ``FreshnessPolicy/maximumStale`` allows, offline too; a
    /// larger one shows it.
    case allowOlderCopy
    /// The page asked for is past the end of a list of `pages` pages holding `items` in all.
    case lastPage(pages: Int, items: Int)
    /// Try again when the service said, or allow a longer wait (``RetryPolicy/maximumDelay``).
    case tryAgainThenOrAllowLongerWait
    /// Try again when the service said, or give more time (``ReaderClient/Configuration/timeout``):
    /// its wait was longer than the time left.
    case tryAgainThenOrAllowMoreTime
    /// Try again when the service said: its wait was not taken for another reason (a status not
    /// retried, the retries spent).
    case tryAgainThen
    /// Try again after the rate limit resets, or allow a longer wait (``RetryPolicy/maximumDelay``).
    case tryAgainAfterResetOrAllowLongerWait
    /// Load the request once while connected, not in the offline cache mode.
    case loadOnceConnected
    /// Allow older data with a larger ``FreshnessPolicy/maximumStale``, or connect and try again.
    case allowOlderDataOrConnect
    /// The cache file cannot be used (as `reason` says): fix it, or use another file
    /// (``ReaderClient/Configuration/cachePath``).
    case useAnotherCacheFile(CacheFailure.Reason)
    /// Another process held the cache file's write lock too long (another reader of the same
    /// file, or a program in a long transaction): try again, or use another file
    /// (``ReaderClient/Configuration/cachePath``).
    case cacheBusy
    /// The client's credentials, for `service` when known: the id of a client without a secret
    /// (an OAuth public client), or the id and secret of one client.
    case checkCredentials(ServiceName?, withoutSecret: Bool)
    /// The error is the server's answer stored `ageSeconds` ago and given again, without a request,
    /// while it is fresh (``FreshnessPolicy/mayStoreFailure(_:)``): the refresh cache mode asks again.
    case storedAnswer(ageSeconds: Int)
    /// What a service says can be done about a failure it explained (``ServiceExplanation``):
    /// its `reason`, whether the request carried the service's credential, and its words.
    case service(ServiceName?, reason: String, withCredential: Bool, text: String)

    /// The names a hint's ``wording`` uses for ReaderKit's settings, as the API spells them.
    public enum Name {
        /// ``LoadOptions/CacheMode/offline``.
        public static let offline = "LoadOptions.CacheMode.offline"
        /// ``LoadOptions/CacheMode/refresh``.
        public static let refresh = "LoadOptions.CacheMode.refresh"
        /// ``FreshnessPolicy/maximumStale``.
        public static let maximumStale = "FreshnessPolicy.maximumStale"
        /// ``ReaderClient/Configuration/timeout``.
        public static let timeout = "Configuration.timeout"
        /// ``RetryPolicy/maximumDelay``.
        public static let maximumDelay = "RetryPolicy.maximumDelay"
        /// ``ReaderClient/Configuration/cachePath``.
        public static let cachePath = "Configuration.cachePath"
        /// The base URL of the service at hand (``Service/baseURL``): a front end names where it
        /// is set.
        public static let serviceAddress = "Service.baseURL"
        /// A page of a list, from 1.
        public static let page = "page"
    }

    /// The hint as a sentence whose settings are names (``Wording``), for a front end to name them.
    public var wording: Wording {
        typealias N = Name
        switch self {
        case .plain(let text): return Wording(text)
        case .checkArguments: return "check the arguments passed: the message names the one refused"
        case .fixConfiguration: return "fix the configuration value named above, or leave it out to use the default"
        case .notReadable: return "the resource is private or forbidden: it cannot be read with the credential sent, or without one"
        case .updateTheModels: return "the service's answers changed shape; update the models that read them, and report it if it persists"
        case .allowMoreTime: return "try again, or give more time with \(name: N.timeout)"
        case .checkServiceAddress: return "check the service address (\(name: N.serviceAddress))"
        case .checkServiceAddressNotFound:
            return "check the service address (\(name: N.serviceAddress)): the not-found is not the service's own, so the name or id may be right"
        case .checkConnectionAndServiceAddress: return "check your connection and the service address (\(name: N.serviceAddress)), and try again"
        case .checkServiceAddressRedirected:
            return "a redirect is followed only to the same scheme, host and port, or from http to https on the same host; check the service address (\(name: N.serviceAddress))"
        case .tryAgainOffline: return "try again with \(name: N.offline) to read cached data"
        case .readCachedDataOffline: return "\(name: N.offline) reads cached data"
        case .nothingCachedForOffline: return "nothing is cached for this request yet, so \(name: N.offline) cannot show it either"
        case .offlineShowsCachedCopy: return "\(name: N.offline) shows the cached copy"
        case .allowOlderCopy:
            return "the cached copy is older than \(name: N.maximumStale) allows (\(name: N.offline) refuses it too): a larger \(name: N.maximumStale) shows it"
        case .lastPage(let pages, let items):
            return pages == 1 ? "there is 1 page (\(items) in all): ask for \(name: N.page) 1"
                : "there are \(pages) pages (\(items) in all): the last is \(name: N.page) \(pages)"
        case .tryAgainThenOrAllowLongerWait: return "try again then, or allow a longer wait with \(name: N.maximumDelay)"
        case .tryAgainThenOrAllowMoreTime: return "try again then, or give more time with \(name: N.timeout)"
        case .tryAgainThen: return "try again then"
        case .tryAgainAfterResetOrAllowLongerWait: return "try again after the reset, or allow a longer wait with \(name: N.maximumDelay)"
        case .loadOnceConnected: return "load it once while connected, without \(name: N.offline)"
        case .allowOlderDataOrConnect: return "allow older data with a larger \(name: N.maximumStale), or connect and try again"
        case .useAnotherCacheFile(let reason):
            switch reason {
            case .unwritable:
                return "make the file and its folder writable for this user (or free disk space), or name another file with \(name: N.cachePath)"
            case .unavailable:
                return "the cache path must name a regular file this user can read (or a place where one can be made); name another file with \(name: N.cachePath)"
            default: return "name another file with \(name: N.cachePath)"
            }
        case .cacheBusy:
            return "another process was writing to the cache file (another reader of it, or a program holding its write lock); try again, or name another file with \(name: N.cachePath)"
        case .checkCredentials(_, let withoutSecret):
            return withoutSecret
                ? "check the client id: without a secret, it must be the id of a client registered to use none (an OAuth public client)"
                : "check the client id and secret: they must be the id and secret of one client"
        case .storedAnswer(let age):
            return "the server gave this answer \(RelativeAge.describe(seconds: age)) ago and it is kept for a while; \(name: N.refresh) asks again"
        case .service(_, _, _, let text): return Wording(text)
        }
    }

    /// The hint in ReaderKit's words, naming its settings as the API spells them.
    public var text: String { wording.description }
}

extension Hint {
    /// The server answered outside the protocol: nothing the user did, nothing the user can fix.
    public static let serviceAnsweredWrongly = Hint.plain("the service answered wrongly: it is the service's to fix; try again later, or tell the service")
}

extension Array where Element == Hint {
    /// The hints in ReaderKit's words, in order, joined by `; `.
    public var text: String { map(\.text).joined(separator: "; ") }
}
