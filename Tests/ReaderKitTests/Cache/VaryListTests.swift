import Testing
@testable import ReaderKit

/// `Vary`'s list and header names read over the bytes (RFC 9110 §5.1, §5.6.1): what a cached
/// read compares on every hit.
@Suite struct VaryListTests {
    @Test func aListsMembersLoseTheirOptionalWhiteSpaceAndEmptyMembers() {
        #expect(HeaderList.members("Accept, Cookie") == ["Accept", "Cookie"])
        #expect(HeaderList.members(" \tAccept ,, \t,Accept-Encoding\t") == ["Accept", "Accept-Encoding"])
        #expect(HeaderList.members("") == [])
        #expect(HeaderList.members(" , ") == [])
        #expect(HeaderList.members("*") == ["*"])
        #expect(HeaderList.members("a\u{00A0}b, é") == ["a\u{00A0}b", "é"])
    }

    @Test func varyNamesAreLowercasedSortedAndEachOnce() {
        #expect(Vary.names("Cookie, Accept, accept ,COOKIE") == ["accept", "cookie"])
        #expect(Vary.names(nil) == [])
        #expect(Vary.names(" ") == [])
    }

    @Test func theFingerprintListsEachNamedFieldWithItsMembersNormalised() {
        let headers: HeaderFields = ["accept": "application/json ,  text/plain", "X-Other": "1", "ACCEPT": "*/*"]
        #expect(Vary.requestFingerprint(vary: "Accept, Cookie", requestHeaders: headers)
            == "accept: application/json,text/plain,*/*\ncookie: ")
        #expect(Vary.requestFingerprint(vary: "Authorization", requestHeaders: ["Authorization": "Bearer secret"]) == "authorization: present")
        #expect(Vary.requestFingerprint(vary: " , ", requestHeaders: headers) == nil)
    }

    @Test func headerNamesCompareWithoutCaseOnlyForASCIILetters() {
        #expect(HeaderFields.sameName("Content-Type", "content-TYPE"))
        #expect(HeaderFields.sameName("", ""))
        #expect(!HeaderFields.sameName("Vary", "Var"))
        #expect(!HeaderFields.sameName("Var", "Vary"))
        // '@' and '`' differ only in the bit that makes a letter lowercase; they are not letters.
        #expect(!HeaderFields.sameName("a@b", "a`b"))
        #expect(!HeaderFields.sameName("x-é", "x-É"))
        let headers: HeaderFields = ["ETag": "\"1\"", "etag": "\"2\""]
        #expect(headers["ETAG"] == "\"1\"")
        #expect(HeaderList.combined("Etag", in: headers) == "\"1\", \"2\"")
        #expect(HeaderList.combined("Age", in: headers) == nil)
    }
}
