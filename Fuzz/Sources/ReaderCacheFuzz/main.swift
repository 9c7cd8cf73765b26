import ReaderFuzzing

// libFuzzer calls this with each input: the values of a cache row (and the token file), written
// into a real cache file and read back through everything that reads them.
@_cdecl("LLVMFuzzerTestOneInput")
public func readerCacheFuzzTestOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = Array(UnsafeRawBufferPointer(start: start, count: count))
    WholePathFuzzing.waiting { await CacheRowFuzzing.run(input) }
    return 0
}
