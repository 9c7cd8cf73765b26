import Foundation

/// Which file a path names: its device and inode. A file deleted or replaced at the path while
/// reader has it open is no longer the one the path names, and what is written into it is lost.
struct FileIdentity: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64

    /// The file `path` names now (a link followed, as SQLite follows it); nil when it names none.
    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}
