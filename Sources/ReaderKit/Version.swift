/// The version of ReaderKit, which `reader --version` prints.
///
/// Not in the DocC documentation: Swift's symbol graph leaves out a type named after its module
/// and `Version`.
public enum ReaderKitVersion {
    /// The version, such as `0.1.0`.
    public static let string = "0.1.0"
}
