@_spi(Fuzzing) import ReaderKit

// libFuzzer calls this with each input; it owns `main` (the target is built with
// `-parse-as-library`). Every byte, status and content type goes through ReaderKit's pipeline.
@_cdecl("LLVMFuzzerTestOneInput")
public func readerFuzzTestOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    AnswerFuzzing.run(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
