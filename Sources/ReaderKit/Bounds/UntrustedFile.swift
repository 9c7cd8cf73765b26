import Foundation

/// A file outside reader's control (the cache file, the config file), opened for reading and
/// looked at before anything in it is trusted: what it is, who owns it, who else may read it,
/// how large it is, and read only up to a cap.
///
/// A symbolic link is followed, as a user may keep either file elsewhere and link it: what the
/// link names is what is checked. The file is opened non-blocking, so that a FIFO put at the path
/// cannot make reader wait for a writer, and what is checked (``status``) is read from the
/// descriptor opened (fstat(2)), so that the file checked is the file read. The descriptor is
/// closed when the value goes.
package struct UntrustedFile: ~Copyable {
    /// What a path names, from stat(2): kind, size, owner and permissions.
    package struct Status: Sendable, Equatable {
        /// What kind of file it is.
        package enum Kind: Sendable, Equatable {
            case regularFile, folder, characterDevice, blockDevice, fifo, socket, symbolicLink, other

            /// The kind in words, for a message: "a folder", "a FIFO (named pipe)".
            package var description: String {
                switch self {
                case .regularFile: "a regular file"
                case .folder: "a folder"
                case .characterDevice: "a character device"
                case .blockDevice: "a block device"
                case .fifo: "a FIFO (named pipe)"
                case .socket: "a socket"
                case .symbolicLink: "a symbolic link"
                case .other: "not a file"
                }
            }
        }

        package var kind: Kind
        /// Its size in bytes, as the file system says now (a file may grow after).
        package var size: Int
        /// Its permission bits (`0o600`).
        package var permissions: mode_t
        /// Whether this process's user owns it.
        package var isOwnedByThisUser: Bool

        /// Whether only its owner, this user, may read or write it (`0600`, `0400`).
        package var isPrivate: Bool { isOwnedByThisUser && permissions & 0o077 == 0 }

        init(_ status: stat) {
            switch status.st_mode & S_IFMT {
            case S_IFREG: kind = .regularFile
            case S_IFDIR: kind = .folder
            case S_IFCHR: kind = .characterDevice
            case S_IFBLK: kind = .blockDevice
            case S_IFIFO: kind = .fifo
            case S_IFSOCK: kind = .socket
            case S_IFLNK: kind = .symbolicLink
            default: kind = .other
            }
            size = max(0, Int(status.st_size))
            permissions = status.st_mode & 0o7777
            isOwnedByThisUser = status.st_uid == geteuid()
        }
    }

    /// What the system said when a file could not be looked at, opened or read: its error number.
    package struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
        /// `errno`, such as `ENOENT` or `EACCES`.
        package var number: Int32

        package init(number: Int32) { self.number = number }

        /// Whether nothing is at the path (`ENOENT`, or a part of it is not a folder: `ENOTDIR`).
        package var isMissing: Bool { number == ENOENT || number == ENOTDIR }

        /// The system's words for it (`strerror(3)`).
        package var description: String { String(cString: strerror(number)) }
    }

    /// What the file opened is, as it was when opened.
    package let status: Status
    private let descriptor: Int32

    private init(descriptor: Int32, status: Status) {
        self.descriptor = descriptor
        self.status = status
    }

    deinit { Foundation.close(descriptor) }

    /// Opens the file at `path` for reading, following a symbolic link, without waiting on a FIFO.
    /// - Throws: ``SystemError`` when it cannot be opened or looked at (``SystemError/isMissing``
    ///   when there is nothing there).
    package static func open(_ path: String) throws(SystemError) -> UntrustedFile {
        let descriptor = Foundation.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw SystemError(number: errno) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let number = errno
            Foundation.close(descriptor)
            throw SystemError(number: number)
        }
        return UntrustedFile(descriptor: descriptor, status: Status(status))
    }

    /// What `path` names now, without opening it: a symbolic link followed (stat(2)) unless
    /// `followingLinks` is false (lstat(2), which describes the link itself).
    /// - Throws: ``SystemError`` when nothing is there or it cannot be looked at.
    package static func status(of path: String, followingLinks: Bool = true) throws(SystemError) -> Status {
        var status = stat()
        guard (followingLinks ? stat(path, &status) : lstat(path, &status)) == 0 else { throw SystemError(number: errno) }
        return Status(status)
    }

    /// The whole file, when it holds at most `limit` bytes; nil when it holds more (it may have
    /// grown since it was opened). Never more than `limit` + 16 KB is held in memory.
    /// - Throws: ``SystemError`` when reading fails.
    package func readAll(atMost limit: Int) throws(SystemError) -> [UInt8]? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while bytes.count <= limit {
            let count = buffer.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw SystemError(number: errno) }
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        return bytes.count <= limit ? bytes : nil
    }

    /// Exactly `count` bytes from `offset`; nil when the file is shorter or cannot be read there.
    package func read(count: Int, at offset: Int) -> [UInt8]? {
        guard count >= 0, offset >= 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
        return read == count ? bytes : nil
    }
}
