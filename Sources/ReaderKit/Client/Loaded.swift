import Foundation

/// A decoded value with the bytes it came from and where they came from.
public struct Loaded<Value: Sendable>: Sendable {
    public var value: Value
    /// The raw JSON body, as the API sent it.
    public var body: Data
    public var metadata: LoadMetadata
    /// The error a stale cached copy was served in place of, if one was (its code is
    /// `metadata.errorCode`).
    public var servedInsteadOf: ReaderError?
}
