import ArgumentParser
import Foundation
import ReaderKit

/// This process's settings from the config file and the environment, read once: every command
/// and every part of one (the client, the deadline, the colours) sees the same.
enum ProcessSettings {
    static let fromFileAndEnvironment: Result<ReaderSettings, ReaderError> = Result { () throws(ReaderError) in
        try ReaderSettings.load(environment: ProcessEnvironment.current)
    }
}
