import ReaderKit
import Testing

/// An exit code is a number where it is shown, as a shell shows `$?`; its name stays reachable.
@Suite struct ExitCodeTests {
    @Test func anExitCodePrintsAsItsNumber() {
        #expect("\(ExitCode.noHost)" == "68")
        #expect(String(describing: ReaderError.invalidArgument("x").exitCode) == "64")
        #expect(ExitCode.allCases.map(\.description)
                == ["0", "64", "65", "66", "68", "69", "70", "73", "74", "75", "76", "77", "78"])
    }

    @Test func anExitCodeKeepsItsSymbolicName() {
        #expect(ExitCode.noHost.name == "noHost")
        #expect(ExitCode.allCases.map(\.name)
                == ["success", "usage", "dataError", "notFound", "noHost", "unavailable", "software", "cannotCreate",
                    "ioError", "temporaryFailure", "protocolError", "noPermission", "configuration"])
    }
}
