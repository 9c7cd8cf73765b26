import Foundation
import ReaderKit

/// `--all --json`'s output, put together as the pages arrive, so that no page is held: each
/// page's body is parsed once and its items serialised at once into an ``ItemSpool``, and the
/// pages' metadata is folded as they come. Nothing reaches stdout before every page is in
/// (``write(to:)``): the output stays all or nothing, and byte for byte what reader wrote when it
/// held every page's tree at once (PagedJSONTests keeps that code as the oracle):
/// `{"items":[…],"meta":{…}}` on one line, the meta combined over the pages, with their number.
/// Every list reader writes as JSON goes through it (``CommandRunner/write(_:options:jsonItems:render:)``).
final class PagedJSON {
    /// A page's items, and the members it adds to `meta` (the last page's win).
    typealias Items = (JSONValue) -> (items: [JSONValue], meta: [String: JSONValue])

    private let spool: ItemSpool
    private let items: Items
    private var metadata: LoadMetadata?
    private var extraMeta: [String: JSONValue] = [:]
    private var pages = 0
    /// The first body that has no JSON to write back (D1002). It is told once every page is in,
    /// as it always was: a page that fails to load, whichever, is told before it.
    private var unreadable: ReaderError?

    /// - Parameters:
    ///   - memoryLimit: how many bytes of items are kept in memory before they go to a temporary
    ///     file (``ItemSpool``).
    ///   - chunkSize: how many bytes are read back from the file and written at a time.
    init(memoryLimit: Int = ItemSpool.defaultMemoryLimit, chunkSize: Int = ItemSpool.defaultChunkSize, items: @escaping Items) {
        spool = ItemSpool(memoryLimit: memoryLimit, chunkSize: chunkSize)
        self.items = items
    }

    /// Whether the items went to the temporary file.
    var isSpilled: Bool { spool.isSpilled }

    /// Takes one page, in order: its items serialised, its body let go.
    /// - Throws: ``ReaderError/output(_:)`` (`O1002`) when the temporary file cannot be written.
    func add<Value>(_ page: Loaded<Value>) throws(ReaderError) {
        pages += 1
        metadata = LoadMetadata.combining([metadata, page.metadata].compactMap { $0 })
        guard unreadable == nil else { return }
        let raw: JSONValue
        do {
            raw = try Self.rawBody(of: page)
        } catch {
            unreadable = error
            return
        }
        let (pageItems, meta) = items(raw)
        extraMeta.merge(meta) { $1 }
        var bytes: [UInt8] = []
        for item in pageItems {
            if !bytes.isEmpty || !spool.isEmpty { bytes.append(UInt8(ascii: ",")) }
            bytes += item.serialized()
        }
        try spool.append(bytes)
    }

    /// A page's body as the JSON tree `--json` writes back, every number as it was sent.
    /// - Throws: ``ReaderError/decoding(_:)`` (`D1002`) for a body the models read but that has no
    ///   JSON to write back (a malformed number in a field they skip).
    static func rawBody<Value>(of page: Loaded<Value>) throws(ReaderError) -> JSONValue {
        do {
            return try JSONValue(parsing: page.body)
        } catch {
            throw .decoding(DecodingFailure(.corrupt, codingPath: "", detail: "for --json: \(error)", url: page.metadata.url))
        }
    }

    /// Writes the whole output through `write`, in chunks, once every page is in.
    /// - Throws: ``ReaderError/decoding(_:)`` (`D1002`) for a body the models read but that has no
    ///   JSON to write back, before anything is written; ``ReaderError/output(_:)``: what `write`
    ///   throws, or `O1002` when the temporary file cannot be read back.
    func write(to write: (Data) throws(ReaderError) -> Void) throws(ReaderError) {
        if let unreadable { throw unreadable }
        var meta = metadata.flatMap { try? JSONValue(encoding: $0) } ?? .null
        if case .object(var members) = meta {
            members.merge(extraMeta) { $1 }
            if pages > 1 { members["pages"] = .integer(Int64(pages)) }
            meta = .object(members)
        }
        // The same bytes as the whole tree serialised: its two keys in order, `items` then `meta`.
        let head = Array(#"{"items":["#.utf8)
        let tail = Array(#"],"meta":"#.utf8) + meta.serialized() + Array("}\n".utf8)
        try spool.drain(head: head, tail: tail) { (chunk) throws(ReaderError) in try write(Data(chunk)) }
    }
}

/// Bytes that may be too many to hold: kept in memory up to a limit, then in an unlinked
/// temporary file (C's `tmpfile()`, in the system's temporary folder: it has no name, and goes
/// when it is closed or the process ends, whatever way it ends).
final class ItemSpool {
    /// A few megabytes: a page or two of a large collection; every ordinary `--all` stays in memory.
    static let defaultMemoryLimit = 4 << 20
    /// How much is read back from the file at a time: a megabyte.
    static let defaultChunkSize = 1 << 20

    let memoryLimit: Int
    let chunkSize: Int
    private var buffer: [UInt8] = []
    private var file: UnsafeMutablePointer<FILE>?
    /// Whether nothing has been appended.
    private(set) var isEmpty = true
    /// Whether the bytes went to the temporary file.
    var isSpilled: Bool { file != nil }

    init(memoryLimit: Int = ItemSpool.defaultMemoryLimit, chunkSize: Int = ItemSpool.defaultChunkSize) {
        self.memoryLimit = max(0, memoryLimit)
        self.chunkSize = max(1, chunkSize)
    }

    deinit {
        if let file { fclose(file) }
    }

    /// Appends `bytes`: in memory while the whole stays within the limit, else to the file.
    /// - Throws: ``ReaderError/output(_:)`` (`O1002`) when the file cannot be made or written.
    func append(_ bytes: [UInt8]) throws(ReaderError) {
        guard !bytes.isEmpty else { return }
        isEmpty = false
        if file == nil, bytes.count <= memoryLimit - buffer.count {
            buffer += bytes
            return
        }
        if file == nil {
            errno = 0
            guard let opened = tmpfile() else { throw Self.failure() }
            file = opened
            try put(buffer)
            buffer = []
        }
        try put(bytes)
    }

    /// Hands `head`, the bytes appended, and `tail` to `write`: in one piece when they were kept in
    /// memory, else in chunks of at most `chunkSize` read back from the file.
    /// - Throws: what `write` throws; ``ReaderError/output(_:)`` (`O1002`) when the file cannot be
    ///   read back.
    func drain(head: [UInt8], tail: [UInt8], into write: ([UInt8]) throws(ReaderError) -> Void) throws(ReaderError) {
        guard let file else { return try write(head + buffer + tail) }
        errno = 0
        guard fflush(file) == 0, fseeko(file, 0, SEEK_SET) == 0 else { throw Self.failure() }
        try write(head)
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let read = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if read > 0 { try write(Array(chunk[..<read])) }
            if read < chunk.count {
                if ferror(file) != 0 { throw Self.failure() }
                break
            }
        }
        try write(tail)
    }

    private func put(_ bytes: [UInt8]) throws(ReaderError) {
        guard !bytes.isEmpty, let file else { return }
        errno = 0
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        if written < bytes.count { throw Self.failure() }
    }

    /// The failure of the last call on the file, with its `errno` (EIO when it left none).
    private static func failure() -> ReaderError {
        .output(OutputFailure(errorNumber: errno == 0 ? EIO : errno, destination: .temporaryFile))
    }
}
