/// Turns the bytes a terminal sends into keys: UTF-8 characters, control keys, and the CSI
/// (`ESC [ … final`) and SS3 (`ESC O x`) sequences of arrows, Home/End, PgUp/PgDn, Delete and
/// F-keys, as xterm, VTE, the Linux console and tmux send them.
///
/// A read may end in the middle of a sequence or a character: what is incomplete is kept for the
/// next ``decode(_:)``, and a lone Esc is told from the start of a sequence only by time, when the
/// caller's timeout calls ``flush()``. So any split of a stream into reads decodes as the whole
/// stream does. Any bytes at all decode (to ``Key/unknown(_:)`` when they make no key); a sequence
/// that never ends is cut at ``longestSequence`` bytes, so nothing grows without bound.
public struct KeyDecoder: Sendable {
    /// The longest escape sequence waited for; longer is given up as ``Key/unknown(_:)``.
    public static let longestSequence = 32

    private var pending: [UInt8] = []

    public init() {}

    /// Whether bytes are kept waiting for more: the caller should call ``flush()`` if none come
    /// soon (about 50 ms: a sequence's bytes arrive together; a person's keys do not).
    public var isWaiting: Bool { !pending.isEmpty }

    /// The keys `bytes` complete, with what was kept from before; an incomplete end is kept.
    public mutating func decode(_ bytes: some Sequence<UInt8>) -> [Key] {
        pending.append(contentsOf: bytes)
        return drain(atEnd: false)
    }

    /// The keys of what was kept, decided now that no more bytes came in time: a lone Esc is
    /// ``Key/escape``, an unfinished sequence or character ``Key/unknown(_:)``.
    public mutating func flush() -> [Key] {
        drain(atEnd: true)
    }

    private mutating func drain(atEnd: Bool) -> [Key] {
        var keys: [Key] = []
        var start = 0
        while start < pending.count {
            guard let (key, length) = Self.key(in: pending[start...], atEnd: atEnd) else { break }
            keys.append(key)
            start += length
        }
        pending.removeFirst(start)
        return keys
    }

    /// The key at the start of `bytes` (never empty) and how many bytes it took, or nil when
    /// more bytes are needed to tell (never when `atEnd`).
    private static func key(in bytes: ArraySlice<UInt8>, atEnd: Bool) -> (Key, Int)? {
        let first = bytes[bytes.startIndex]
        switch first {
        case 0x1B: return escape(in: bytes, atEnd: atEnd)
        case 0x0D: return (.enter, 1)
        case 0x09: return (.tab, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x00: return (.control(" "), 1)
        case 0x01...0x1A: return (.control(Character(Unicode.Scalar(first + 0x60))), 1)
        case 0x1C...0x1F: return (.unknown([first]), 1)
        case 0x20...0x7E: return (.character(Character(Unicode.Scalar(first))), 1)
        default: return utf8(in: bytes, atEnd: atEnd)
        }
    }

    /// What starts with Esc: a CSI or SS3 sequence, Alt with a character, or Esc itself.
    private static func escape(in bytes: ArraySlice<UInt8>, atEnd: Bool) -> (Key, Int)? {
        let start = bytes.startIndex
        guard bytes.count > 1 else { return atEnd ? (.escape, 1) : nil }
        let second = bytes[start + 1]
        switch second {
        case UInt8(ascii: "["):
            return controlSequence(in: bytes, atEnd: atEnd)
        case UInt8(ascii: "O"):
            guard bytes.count > 2 else { return atEnd ? (.alt("O"), 2) : nil }
            let third = bytes[start + 2]
            guard (0x20...0x7E).contains(third) else { return (.alt("O"), 2) }
            return (singleShift(third) ?? .unknown(Array(bytes.prefix(3))), 3)
        case 0x20...0x7E:
            return (.alt(Character(Unicode.Scalar(second))), 2)
        default:
            // Esc, then a key of its own (another Esc, a control, a character beyond ASCII).
            return (.escape, 1)
        }
    }

    /// `ESC [`, parameter and intermediate bytes, then a final byte (ECMA-48 5.4).
    private static func controlSequence(in bytes: ArraySlice<UInt8>, atEnd: Bool) -> (Key, Int)? {
        var index = bytes.startIndex + 2
        while index < bytes.endIndex {
            let byte = bytes[index]
            let length = index - bytes.startIndex + 1
            switch byte {
            case 0x40...0x7E:
                let sequence = Array(bytes[bytes.startIndex..<bytes.index(after: index)])
                return (controlSequenceKey(parameters: sequence.dropFirst(2).dropLast(), final: byte) ?? .unknown(sequence), length)
            case 0x20...0x3F:
                guard length < longestSequence else { return (.unknown(Array(bytes.prefix(length))), length) }
                index += 1
            default:
                // Broken off by a byte no sequence holds: what came before is one unknown key.
                guard length > 3 else { return (.alt("["), 2) }
                return (.unknown(Array(bytes.prefix(length - 1))), length - 1)
            }
        }
        guard atEnd else { return nil }
        return bytes.count == 2 ? (.alt("["), 2) : (.unknown(Array(bytes)), bytes.count)
    }

    private static func controlSequenceKey(parameters: ArraySlice<UInt8>, final: UInt8) -> Key? {
        // Private sequences (`ESC [ ?`, `<`, `>`, `=`) are answers and mouse reports, never keys.
        guard parameters.allSatisfy({ (0x30...0x3B).contains($0) }) else { return nil }
        // Modifiers (`ESC [ 1 ; 5 A`, Ctrl-Up) are read as the key without them.
        let fields = parameters.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)
        let number = fields.first.flatMap { field in field.count <= 3 ? Int(String(decoding: field, as: UTF8.self)) : nil }
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "Z"): return .backTab
        case UInt8(ascii: "P")...UInt8(ascii: "S"): return .function(Int(final - UInt8(ascii: "P")) + 1)
        case UInt8(ascii: "~"):
            switch number {
            case 1, 7: return .home
            case 2: return .insert
            case 3: return .delete
            case 4, 8: return .end
            case 5: return .pageUp
            case 6: return .pageDown
            case .some(let code) where (11...15).contains(code): return .function(code - 10)
            case .some(let code) where (17...21).contains(code): return .function(code - 11)
            case .some(let code) where (23...24).contains(code): return .function(code - 12)
            default: return nil
            }
        default: return nil
        }
    }

    /// `ESC O x`: the arrows and Home/End in application cursor mode, and F1–F4.
    private static func singleShift(_ final: UInt8) -> Key? {
        switch final {
        case UInt8(ascii: "A"): .up
        case UInt8(ascii: "B"): .down
        case UInt8(ascii: "C"): .right
        case UInt8(ascii: "D"): .left
        case UInt8(ascii: "H"): .home
        case UInt8(ascii: "F"): .end
        case UInt8(ascii: "P")...UInt8(ascii: "S"): .function(Int(final - UInt8(ascii: "P")) + 1)
        default: nil
        }
    }

    /// One UTF-8 character from a lead byte of 0x80 or more.
    private static func utf8(in bytes: ArraySlice<UInt8>, atEnd: Bool) -> (Key, Int)? {
        let start = bytes.startIndex
        let length: Int
        switch bytes[start] {
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return (.unknown([bytes[start]]), 1)
        }
        for offset in 1..<length {
            guard start + offset < bytes.endIndex else {
                return atEnd ? (.unknown(Array(bytes)), bytes.count) : nil
            }
            guard (0x80...0xBF).contains(bytes[start + offset]) else {
                return (.unknown(Array(bytes.prefix(offset))), offset)
            }
        }
        let encoded = Array(bytes.prefix(length))
        // Overlong forms and surrogates fail here; C1 controls are no characters to show.
        let text = String(decoding: encoded, as: UTF8.self)
        guard Array(text.utf8) == encoded, let scalar = text.unicodeScalars.first, !(0x80...0x9F).contains(scalar.value) else {
            return (.unknown(encoded), length)
        }
        return (.character(Character(scalar)), length)
    }
}
