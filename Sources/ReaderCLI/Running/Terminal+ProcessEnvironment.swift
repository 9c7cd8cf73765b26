import Foundation
import ReaderTerminal

// ReaderTerminal asks for the environment; the app's is the process's, read once
// (``ProcessEnvironment``). These give it, so that a command asks only for what it wants.

extension Terminal {
    /// ``Terminal/outputWidth(environment:)`` in the process's environment.
    static func outputWidth() -> Int? {
        outputWidth(environment: ProcessEnvironment.current)
    }

    /// ``Terminal/errorWidth(environment:)`` in the process's environment.
    static func errorWidth() -> Int? {
        errorWidth(environment: ProcessEnvironment.current)
    }

    /// ``Terminal/allowsColour(on:noColorFlag:environment:)`` in the process's environment.
    static func allowsColour(on descriptor: Int32, noColorFlag: @autoclosure () -> Bool) -> Bool {
        allowsColour(on: descriptor, noColorFlag: noColorFlag(), environment: ProcessEnvironment.current)
    }
}

extension Style {
    /// ``Style/forDescriptor(_:noColor:environment:)`` in the process's environment.
    static func forDescriptor(_ descriptor: Int32, noColor: @autoclosure () -> Bool) -> Style {
        forDescriptor(descriptor, noColor: noColor(), environment: ProcessEnvironment.current)
    }
}
