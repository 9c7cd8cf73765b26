import Foundation
@testable import ReaderCLI
import ReaderKit
import Testing

/// What `reader sync ARGUMENTS` plans, read from the registry's services, before any request.
@Suite struct SyncPlanTests {
    /// Each service planned with its arguments (`reddit swift rust`), or the refusal's message.
    enum Planned: Equatable {
        case success([String])
        case failure(String)

        func get() -> [String]? {
            if case .success(let targets) = self { return targets }
            return nil
        }
    }

    func plan(_ arguments: [String]) -> Planned {
        do throws(ReaderError) {
            return .success(try Reader.Sync.plan(arguments).targets.map { "\($0.name) \($0.arguments.joined(separator: " "))" })
        } catch {
            return .failure(error.message)
        }
    }

    @Test func eachServiceTakesItsOwnArgumentsInTheRegistrysOrder() {
        #expect(plan(["reddit", "swift", "swapi"]) == .success(["swapi ", "reddit swift"]))
        #expect(plan(["SWAPI"]) == .success(["swapi "]))
        // A name twice, in any case, is read once.
        #expect(plan(["reddit", "python", "Python", "reddit", "rust"]) == .success(["reddit python rust"]))
    }

    @Test func aServiceWithoutItsArgumentsOrAnUnknownWordIsRefused() {
        #expect(plan(["reddit"]) == .failure("reddit needs at least one subreddit name, such as 'reddit swift'"))
        #expect(plan(["reddit", "swapi"]) == .failure("reddit needs at least one subreddit name, such as 'reddit swift'"))
        #expect(plan(["swapy"]) == .failure("\"swapy\" is not something to sync (did you mean swapi?): say swapi, or reddit followed by subreddit names"))
        #expect(plan([]) == .failure("say what to sync: swapi, reddit SUBREDDIT…, or both"))
    }

    @Test func atMostFiftySubredditsAreSyncedAtOnce() {
        let fifty = (1...50).map { "s\($0)" }
        #expect(plan(["reddit"] + fifty).get()?.first?.split(separator: " ").count == 51)
        #expect(plan(["reddit"] + fifty + ["one_more"])
            == .failure("reddit syncs at most 50 subreddits at once, as the config file's subreddits"))
    }
}
