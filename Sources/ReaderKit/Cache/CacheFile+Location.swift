import Foundation

/// Where the cache file lives, and the file system around it: the folder and file made private
/// before SQLite makes them, a path that names no regular file refused, links resolved as SQLite
/// resolves them, the settling lock on the folder, and a damaged file moved aside. What the file
/// is (kind, owner, mode, size) is read through ``UntrustedFile``, as the config file's is.
extension CacheFile {
    /// Runs `body` holding an exclusive lock (flock(2)) on the cache's folder: one process at a
    /// time settles the file or moves it aside. The lock goes with the process, however it ends.
    /// - Throws: ``CacheFailure`` `unavailable` when the folder cannot be locked within
    ///   ``settleWait`` (another process holds it that long); what `body` throws.
    static func withSettlingLock<T>(_ path: String, _ body: () throws -> T) throws -> T {
        let folder = (realPath(path) as NSString).deletingLastPathComponent
        let descriptor = Foundation.open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CacheFailure(.unavailable, path: path, detail: "cannot open the cache's folder: \(String(cString: strerror(errno)))")
        }
        defer { Foundation.close(descriptor) }
        var waited: TimeInterval = 0
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, waited < settleWait else {
                throw CacheFailure(.unavailable, path: path, detail: "another process is setting up the cache file")
            }
            usleep(10_000)
            waited += 0.01
        }
        return try body()
    }

    /// The size of the file at `path`, or nil when there is none (a plain stat(2): FileManager's
    /// attributes also look up the owner's name, which reads /etc/passwd).
    static func fileSize(_ path: String) -> Int? {
        (try? UntrustedFile.status(of: path))?.size
    }

    /// Makes the folder (0700) and the file (0600) before SQLite does, so that SQLite's own
    /// files (-wal, -shm), which copy the database's mode, are private too.
    static func prepareLocation(_ path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        if !FileManager.default.fileExists(atPath: path) {
            // O_NONBLOCK: opening a FIFO made at the path meanwhile fails rather than waits.
            let descriptor = Foundation.open(path, O_CREAT | O_WRONLY | O_NONBLOCK | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                throw CacheFailure(errno == EACCES || errno == EROFS ? .unwritable : .unavailable, path: path,
                                   detail: "cannot create the file: \(String(cString: strerror(errno)))")
            }
            Foundation.close(descriptor)
        }
    }

    /// Refuses a path that names something other than a regular file (a device such as
    /// `/dev/null`, a FIFO, a folder, a socket), before SQLite opens it: SQLite would read a device
    /// as an empty database and make its `-journal` beside it, and opening a FIFO would wait for
    /// a writer forever. `stat(2)` follows a symbolic link: a link to a regular file is accepted.
    /// A path that does not exist yet passes; it is made as a file.
    static func refuseIfNotRegularFile(_ path: String) throws(CacheFailure) {
        let status: UntrustedFile.Status
        do { status = try UntrustedFile.status(of: path) } catch {
            if error.number == ENOENT { return }
            throw CacheFailure(.unavailable, path: path, detail: "cannot look at the file: \(error)", underlyingError: error)
        }
        guard status.kind != .regularFile else { return }
        throw CacheFailure(.unavailable, path: path, detail: "the cache path is \(status.kind.description), not a regular file")
    }

    /// Takes group and other permissions off the database and its -wal, -shm and -journal files,
    /// so that a file made elsewhere (say 0644, reached through a symbolic link) does not lend its
    /// mode to the responses reader stores, nor to the sidecar files SQLite makes with the
    /// database's mode. SQLite puts the sidecars beside the link's target, so they are found
    /// there. Only this user's files are changed; owner bits are kept (a file made read-only
    /// stays read-only). Runs once the file is known to be reader's or empty, never on another
    /// program's database.
    static func keepPrivate(_ path: String) {
        let target = realPath(path)
        for suffix in ["", "-wal", "-shm", "-journal"] {
            guard let status = try? UntrustedFile.status(of: target + suffix, followingLinks: false),
                  status.kind == .regularFile, status.isOwnedByThisUser, !status.isPrivate else { continue }
            _ = chmod(target + suffix, status.permissions & 0o700)
        }
    }

    /// `path` with its symbolic links resolved, as SQLite resolves it to place the -wal and -shm
    /// files; `path` itself when it cannot be resolved.
    static func realPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Moves a damaged cache aside, with its -wal and -shm files, as `PATH.corrupt-TIMESTAMP`,
    /// mode 0600 (it holds the user's data): never deleted, so what it held can still be
    /// recovered by hand. Under the settling lock, so that two processes that found one file
    /// damaged do not move aside the new file the first one started.
    /// - Parameter identity: the file found damaged; when the path names another file now (one
    ///   another process started meanwhile), nothing is moved.
    /// - Returns: the path the file was moved to; nil when it was no longer the damaged file.
    static func moveAside(path: String, now: Date, ifStill identity: FileIdentity? = nil) throws(CacheFailure) -> String? {
        do {
            return try withSettlingLock(path) { () throws -> String? in
                if let identity, FileIdentity(path: path) != identity { return nil }
                let stamp = OutsideNumbers.wholeSeconds(now.timeIntervalSince1970)  // a clock injected by a library user may say anything
                var destination = "\(path).corrupt-\(stamp)"
                var suffix = 1
                while FileManager.default.fileExists(atPath: destination) {
                    destination = "\(path).corrupt-\(stamp)-\(suffix)"
                    suffix += 1
                }
                try FileManager.default.moveItem(atPath: path, toPath: destination)
                _ = chmod(destination, 0o600)
                for sidecar in ["-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: path + sidecar) {
                    try? FileManager.default.moveItem(atPath: path + sidecar, toPath: destination + sidecar)
                    _ = chmod(destination + sidecar, 0o600)
                }
                return destination
            }
        } catch let error as CacheFailure {
            throw error
        } catch {
            throw CacheFailure(.unavailable, path: path, detail: "cannot move the damaged file aside: \(error)")
        }
    }
}
