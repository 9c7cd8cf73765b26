import Foundation

/// Something the user should know that is not a failure: stale data served, the cache reset.
public struct Notice: Sendable, Equatable, Hashable {
    public enum Kind: String, Sendable {
        /// Cached data was served instead of an error.
        case staleData = "stale_data"
        /// The cache was replaced or cannot be written.
        case cache
        /// A request waited for the API's rate limit to reset.
        case rateLimit = "rate_limit"
        /// A request is waiting for its service to become reachable (`--wait`).
        case waiting
        /// Not everything asked for was read: a collection larger than reader reads (R1005).
        case partial
        /// The service's block page turned the load to its other route (``Service/detour(around:)``),
        /// which lacks something the first has.
        case detour
    }

    public var kind: Kind
    /// The code of the error behind the notice.
    public var code: ErrorCode
    /// One line for people, already safe for a terminal, with the settings it names kept as
    /// names, for a front end that names them its own way.
    public var wording: Wording
    /// One line for people, already safe for a terminal, in ReaderKit's words.
    public var message: String { wording.description }
    /// What the notice is about, when its line says more than that (the age of a copy): notices
    /// of one kind, code and cause are one notice, shown once with a count. Nil: its line is its cause.
    public var cause: String?
    /// Which of the notices of one cause is shown: the highest ranked (the oldest copy served);
    /// of equal ones, the first.
    public var rank = 0

    public init(kind: Kind, code: ErrorCode, message: String) {
        self.init(kind: kind, code: code, wording: Wording(message))
    }

    /// A notice whose line names settings (``Wording``).
    public init(kind: Kind, code: ErrorCode, wording: Wording) {
        self.kind = kind
        self.code = code
        self.wording = wording
    }
}

/// Collects notices for one run so that the same one is shown once, with a count when it recurs:
/// when ten requests fail the same way, one line says so.
public actor NoticeBoard {
    /// What makes two notices one: their kind, code and cause (their line, when they name none).
    private struct Key: Hashable {
        var kind: Notice.Kind
        var code: ErrorCode
        var cause: String

        init(_ notice: Notice) {
            kind = notice.kind
            code = notice.code
            cause = notice.cause ?? notice.message
        }
    }

    private var order: [Key] = []
    private var shown: [Key: Notice] = [:]
    private var counts: [Key: Int] = [:]
    private var listener: (@Sendable (Notice) -> Void)?

    public init() {}

    /// Calls `listener` with each notice the first time it is posted, as it happens: for notices
    /// that matter while the work is still going, such as waiting for a service.
    public func listen(_ listener: @escaping @Sendable (Notice) -> Void) {
        self.listener = listener
    }

    /// Records `notice`; returns true the first time it is seen this run.
    @discardableResult
    public func post(_ notice: Notice) -> Bool {
        let key = Key(notice)
        counts[key, default: 0] += 1
        guard counts[key] == 1 else {
            if let current = shown[key], notice.rank > current.rank { shown[key] = notice }
            return false
        }
        order.append(key)
        shown[key] = notice
        listener?(notice)
        return true
    }

    /// The notices in the order first seen, each with how many times it was posted; empties the board.
    public func drain() -> [(notice: Notice, count: Int)] {
        defer { order = []; shown = [:]; counts = [:] }
        return order.compactMap { key in shown[key].map { ($0, counts[key] ?? 1) } }
    }
}
