import ReaderKit

/// A service's first screen for a target, made once the client exists.
public struct BrowseProgram: Sendable {
    let firstScreen: @Sendable (BrowseContext) -> any BrowseScreen

    /// - Parameter firstScreen: makes the first screen with the client `reader browse` made
    ///   (``BrowseContext``): called once, when the terminal is borrowed.
    public init(firstScreen: @escaping @Sendable (BrowseContext) -> any BrowseScreen) {
        self.firstScreen = firstScreen
    }
}
