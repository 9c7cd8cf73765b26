import ReaderKit
import ReaderTerminal

/// What `reader browse` shows of a service: its first screen for a target. The screens are the
/// service's (beside its commands); the terminal, the client, the stack and the bottom line are
/// `reader`'s (``Browser``).
public struct BrowseCapability: Sendable {
    /// Whether the service takes targets without its name before them (`python`, `r/python`,
    /// and no target at all, for Reddit); a target `NAME` or `NAME/REST` goes to the service so
    /// named whatever this says.
    public var takesUnnamedTargets: Bool
    /// Checks `target` (nil: none given; without the service's name) against `settings`, and
    /// returns the first screen for it: called before the terminal is borrowed, so that a
    /// wrong target is an error on the main screen, and again for a target typed after `s`.
    /// - Throws: ``ReaderError/invalidArgument(_:)`` for a target the service cannot show.
    public var prepare: @Sendable (_ target: String?, _ settings: ServiceSettings) throws(ReaderError) -> BrowseProgram

    public init(takesUnnamedTargets: Bool,
                prepare: @escaping @Sendable (_ target: String?, _ settings: ServiceSettings) throws(ReaderError) -> BrowseProgram) {
        self.takesUnnamedTargets = takesUnnamedTargets
        self.prepare = prepare
    }
}
