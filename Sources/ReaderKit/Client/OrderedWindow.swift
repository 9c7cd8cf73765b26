/// The sliding window of loads whose results are handed over in order
/// (``ReaderClient/forEachPage(_:search:options:progress:_:)``): which load may start now, and
/// which result is handed over next. At most `width` loads are started and not yet handed over,
/// so load `k + width` starts only once load `k` has been handed over: loads in flight and
/// results waiting for their turn are never more than `width` together, however many loads
/// there are and in whatever order they finish.
///
/// A value with no I/O, so that the rule is tested on its own, in any order of finishing.
struct OrderedWindow<Result> {
    /// How many loads there are, numbered from 0.
    let count: Int
    /// The most loads started and not yet handed over, at least 1.
    let width: Int
    /// How many loads have been started (they are started in order).
    private(set) var started = 0
    /// How many results have been handed over (in order).
    private(set) var handedOver = 0
    private var finished: [Int: Result] = [:]

    init(count: Int, width: Int) {
        self.count = max(0, count)
        self.width = max(1, width)
    }

    /// The next load to start, if the window has room for it now; it counts as started.
    mutating func nextToStart() -> Int? {
        guard started < count, started - handedOver < width else { return nil }
        started += 1
        return started - 1
    }

    /// Takes the result of load `index`, which finished.
    mutating func finish(_ index: Int, with result: Result) {
        finished[index] = result
    }

    /// The result to hand over next, when the load it belongs to has finished: it leaves the
    /// window, which makes room for one more start.
    mutating func nextToHandOver() -> Result? {
        guard let result = finished.removeValue(forKey: handedOver) else { return nil }
        handedOver += 1
        return result
    }

    /// How many results wait for their turn: finished, not yet handed over.
    var waiting: Int { finished.count }
}
