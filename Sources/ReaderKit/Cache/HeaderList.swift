/// A field's lines read as one list (RFC 9110 §5.3).
enum HeaderList {
    /// Every line of `name` in `headers`, joined by `, `; nil when there is none.
    static func combined(_ name: String, in headers: HeaderFields) -> String? {
        var combined: String?
        for field in headers.fields where HeaderFields.sameName(field.name, name) {
            combined = combined.map { $0 + ", " + field.value } ?? field.value
        }
        return combined
    }

    /// The members of a list `value` (`Accept, Cookie`), each without the optional white space
    /// (spaces and tabs) around it, empty members left out. Written out over the bytes: a cached
    /// read compares its `Vary` on every hit, where the standard library's generic `split`,
    /// Foundation's trimming and a `Set` each cost the runtime a scan of every conformance.
    static func members(_ value: String) -> [String] {
        var members: [String] = []
        var utf8 = Substring(value).utf8
        while !utf8.isEmpty {
            let end = utf8.firstIndex(of: UInt8(ascii: ",")) ?? utf8.endIndex
            var member = utf8[utf8.startIndex..<end]
            while let first = member.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { member = member.dropFirst() }
            while let last = member.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { member = member.dropLast() }
            if !member.isEmpty { members.append(String(Substring(member))) }
            utf8 = end == utf8.endIndex ? utf8[end...] : utf8[utf8.index(after: end)...]
        }
        return members
    }
}
