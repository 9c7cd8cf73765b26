import ReaderFuzzing

// libFuzzer calls this with each input; it owns `main` (the target is built with
// `-parse-as-library`). Every byte, status and content type goes through the whole path: the
// pipeline, the decision, the cache and every renderer.
@_cdecl("LLVMFuzzerTestOneInput")
public func readerFuzzTestOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = Array(UnsafeRawBufferPointer(start: start, count: count))
    WholePathFuzzing.waiting { await WholePathFuzzing.run(input) }
    return 0
}
