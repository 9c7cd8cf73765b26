import Foundation
import TestSupport

extension TmuxTerminal {
    /// Starts `reader ARGUMENTS` with `reader`'s environment (and `TERM`, `screen` unless given)
    /// in a window of `columns` × `rows`, in `reader`'s folder.
    /// - Parameter jobControl: as ``TmuxTerminal/start(_:folder:environment:owner:columns:rows:arguments:term:jobControl:)``.
    static func start(_ reader: ReaderProcess, columns: Int, rows: Int, arguments: [String], term: String = "screen",
                      jobControl: Bool = false) async throws -> TmuxTerminal {
        try await start(ReaderProcess.executable, folder: reader.folder, environment: reader.environment, owner: reader,
                        columns: columns, rows: rows, arguments: arguments, term: term, jobControl: jobControl)
    }
}
