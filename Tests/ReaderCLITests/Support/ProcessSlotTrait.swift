import Testing
import TestSupport

/// Each test of the suite runs holding one of ``ProcessSlots``: its processes run back to back,
/// and no more tests start processes at once than there are cores.
struct ProcessSlotTrait: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        // A slot for each test case, none for the suite as a whole.
        testCase == nil ? nil : self
    }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        try await ProcessSlots.shared.withSlot(function)
    }
}

extension Trait where Self == ProcessSlotTrait {
    /// Each test holds a process slot from its start to its end.
    static var processSlot: Self { ProcessSlotTrait() }
}
