import Foundation
import GRDB

/// What SQLite or the file system threw, classified once into a ``CacheFailure``: from typed
/// values (SQLite's result code, reader's own errors), with the error itself kept as
/// ``CacheFailure/underlyingError``.
extension CacheFailure {
    /// A cache file a newer reader has migrated: its migrations table names migrations this
    /// reader does not know, so its schema is not one this reader can read or write. Thrown where
    /// the migrations are checked, as a ``CacheFailure`` `corrupt` whose underlying error it is
    /// (``isNewerSchema``): the file is moved aside, never written into.
    public struct NewerSchema: Error, Sendable, Equatable {
        /// The migrations the file has that this reader does not know, sorted.
        public var unknownMigrations: [String]

        public init(unknownMigrations: [String]) {
            self.unknownMigrations = unknownMigrations
        }
    }

    /// The words before SQLite's own in the detail of a failure that is another process's lock.
    static let busyDetail = "another process holds the cache's write lock"

    /// Whether the failure is another process's lock on the file: SQLite said `SQLITE_BUSY` or
    /// `SQLITE_LOCKED` (GRDB's `DatabaseError.resultCode`). Never damage, and only writes wait for it.
    public var isBusy: Bool {
        guard let error = underlyingError as? DatabaseError else { return false }
        return error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
    }

    /// Whether the file was made by a newer reader (``NewerSchema``).
    public var isNewerSchema: Bool { underlyingError is NewerSchema }

    /// Classifies what SQLite or the file system said about the cache at `path`; a
    /// ``CacheFailure`` is kept as it is.
    init(classifying error: any Error, path: String) {
        if let failure = error as? CacheFailure {
            self = failure
            return
        }
        let detail = String(describing: error)
        let reason: Reason
        if let databaseError = error as? DatabaseError {
            switch databaseError.resultCode {
            case .SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_FORMAT: reason = .corrupt
            case .SQLITE_READONLY, .SQLITE_FULL, .SQLITE_PERM, .SQLITE_IOERR: reason = .unwritable
            case .SQLITE_CANTOPEN, .SQLITE_AUTH: reason = .unavailable
            // Busy is another process's lock: never damage, and only writes wait for it (``isBusy``).
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                self.init(.unwritable, path: path, detail: "\(Self.busyDetail): \(detail)", underlyingError: error)
                return
            // SQLite has no code of its own for a missing table or column, nor for one made twice
            // (a migration whose row in grdb_migrations was deleted): only its message tells them
            // from other SQLITE_ERRORs. Damage, which moving the file aside repairs.
            case .SQLITE_ERROR where Self.isSchemaDamage(databaseError.message ?? ""): reason = .corrupt
            default: reason = .unavailable
            }
        } else if let newer = error as? NewerSchema {
            self.init(newer, path: path)
            return
        } else {
            let nsError = error as NSError
            let unwritable = nsError.domain == NSCocoaErrorDomain
                && (nsError.code == NSFileWriteNoPermissionError || nsError.code == NSFileWriteVolumeReadOnlyError)
            reason = unwritable ? .unwritable : .unavailable
        }
        self.init(reason, path: path, detail: detail, underlyingError: error)
    }

    /// A newer reader's file at `path`, as a failure.
    init(_ newer: NewerSchema, path: String) {
        self.init(.corrupt, path: path, detail: Self.detail(of: newer), underlyingError: newer)
    }

    private static func detail(of newer: NewerSchema) -> String {
        "made by a newer reader: unknown migrations \(newer.unknownMigrations)"
    }

    private static func isSchemaDamage(_ message: String) -> Bool {
        ["no such table", "no such column", "already exists", "duplicate column"].contains { message.contains($0) }
    }
}
