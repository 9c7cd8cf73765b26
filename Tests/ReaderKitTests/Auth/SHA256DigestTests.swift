import Testing
@testable import ReaderKit

/// ReaderKit's SHA-256 gives FIPS 180-4's digests (its examples, and a message of two blocks).
@Suite struct SHA256DigestTests {
    static func hex(_ text: String) -> String {
        SHA256Digest.hash(Array(text.utf8)).map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    @Test func theStandardsExamples() {
        #expect(Self.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Self.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Self.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(Self.hex(String(repeating: "a", count: 1000))
                == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }
}
