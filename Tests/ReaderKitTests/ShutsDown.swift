import ReaderKit
import TestSupport

// What the tests shut down through `withShutdown(of:_:)`: both hold an HTTP client, which traps
// when dropped still running.
extension ReaderClient: ShutsDown {}
extension AsyncHTTPTransport: ShutsDown {}
