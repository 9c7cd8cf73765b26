import Foundation
import Testing
@testable import ReaderKit

/// From the attack on the XML reader through the built binary (a hostile feed server).
@Suite struct FeedAttackTests {
    func failure(_ text: String) -> DecodingFailure? {
        do { _ = try AtomFeed(parsing: Data(text.utf8)); return nil } catch {
            guard case .decoding(let failure) = error else { return nil }
            return failure
        }
    }

    static let entry = #"<entry><id>t3_abc123</id><title>the title</title><updated>2026-07-03T19:46:18+00:00</updated>"#
        + #"<media:title>SPOOFED</media:title><media:content type="text">spoofed</media:content>"#
        + #"<content type="html">&lt;p&gt;real&lt;/p&gt;</content></entry>"#

    @Test func anEncodingOtherThanUTF8IsRefusedWhereverItsNameStands() {
        let spaced = "<?xml version=\"1.0\"" + String(repeating: " ", count: 300) + "encoding=\"UTF-7\"?><feed/>"
        #expect(failure(spaced)?.detail == "a feed in the encoding \"UTF-7\", not UTF-8")
        let lines = "<?xml version=\"1.0\"" + String(repeating: "\n", count: 260) + "encoding='utf-16'?><feed/>"
        #expect(failure(lines)?.detail == "a feed in the encoding \"utf-16\", not UTF-8")
        // White space of any kind around "=" is XML; UTF-8 in any case is read.
        #expect(failure("<?xml version=\"1.0\"\tencoding\t=\t\"UTF-8\"?><feed><title>t</title></feed>") == nil)
        #expect(failure("<?xml version='1.0' encoding='Utf8'?><feed><title>t</title></feed>") == nil)
    }

    @Test func anElementOfAnotherNamespaceNeverStandsForAnAtomOne() throws {
        let feed = try AtomFeed(parsing: Data(("<feed xmlns=\"http://www.w3.org/2005/Atom\" xmlns:media=\"m\"><title>t</title>" + Self.entry + "</feed>").utf8))
        #expect(feed.entries.count == 1)
        #expect(feed.entries.first?.title == "the title")
        #expect(feed.entries.first?.content == "<p>real</p>")
        #expect(feed.entries.first?.contentType == "html")
        // Atom's own prefix is Atom's; another prefix's feed is no Atom feed.
        let prefixed = try AtomFeed(parsing: Data("<atom:feed xmlns:atom=\"http://www.w3.org/2005/Atom\"><atom:title>p</atom:title></atom:feed>".utf8))
        #expect(prefixed.title == "p")
        #expect(failure("<evil:feed xmlns:evil=\"urn:x\"><evil:title>t</evil:title></evil:feed>")?.reason == .typeMismatch)
    }

    @Test func aCommentsHTMLIsReadToItsBoundOnly() throws {
        let huge = String(repeating: "&amp;amp;", count: 50_000)  // 250,000 characters of HTML once read: 50,000 "&amp;"
        let xml = "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>t</title>"
            + "<entry><id>t3_abc123</id><title>post</title><updated>2026-07-03T19:46:18+00:00</updated><content type=\"html\">\(huge)</content></entry>"
            + "<entry><id>t1_c1</id><title>c</title><updated>2026-07-03T19:46:18+00:00</updated><content type=\"html\">\(huge)</content></entry></feed>"
        let feed = try AtomFeed(parsing: Data(xml.utf8))
        #expect(feed.entries[1].content.count == 250_000, "the XML reader decoded the XML's own escapes")
        let page = try RedditFeed.commentPageJSON(feed, url: "https://www.reddit.com/comments/abc123/.rss")
        let text = "\(page)"
        // The comment's first 200,000 characters of HTML are read: "&amp;" is five, so 40,000 "&".
        let ampersands = text.utf8.filter { $0 == UInt8(ascii: "&") }.count
        #expect(ampersands == 40_000, "\(ampersands)")
    }
}
