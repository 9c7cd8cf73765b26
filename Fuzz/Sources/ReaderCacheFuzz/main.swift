import ReaderFuzzing

// libFuzzer calls this with each input: the values of a cache row (and the token file), written
// into a real cache file and read back through everything that reads them.
@_cdecl("LLVMFuzzerTestOneInput")
public func readerCacheFuzzTestOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    CacheRowFuzzing.run(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
