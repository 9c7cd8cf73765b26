import Testing
import TestSupport

extension Trait where Self == ConditionTrait {
    /// A test that replays the real recordings (``Fixtures``): it runs when they are here, and is
    /// skipped, by name, when they are not (a bare clone); with `READER_REQUIRE_RECORDINGS=1`, as
    /// `.ci/run` sets, their absence fails it, saying where they come from.
    static var replaysRecordings: Self {
        .enabled("replays the real recordings (../shared/fixtures or READER_FIXTURES), which are not here") {
            try Fixtures.mayReplay()
        }
    }
}
