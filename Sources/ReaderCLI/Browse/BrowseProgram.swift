import ReaderKit

/// A service's first screen for a target, made once the client exists.
public struct BrowseProgram: Sendable {
    let firstScreen: @Sendable (BrowseContext) -> any BrowseScreen

    init(firstScreen: @escaping @Sendable (BrowseContext) -> any BrowseScreen) {
        self.firstScreen = firstScreen
    }
}
