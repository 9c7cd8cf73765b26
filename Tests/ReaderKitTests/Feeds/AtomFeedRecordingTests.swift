import Foundation
import Testing
@testable import ReaderKit
import TestSupport

/// Every recorded feed reads with the entries it read with when libxml2 (FoundationXML's
/// XMLParser) read it: the values below, and a SHA-256 over every field of every entry, were taken
/// from that reader's result before ReaderKit's own XML reader replaced it.
@Suite struct AtomFeedRecordingTests {
    struct Pin {
        var id, title, author, link: String
        /// `updated`, in seconds since 1970.
        var updated: Int
        /// The content's length in UTF-8 bytes.
        var contentLength: Int
    }

    struct Pinned: CustomTestStringConvertible {
        var file, title: String
        var entries: Int
        var first, last: Pin?
        /// SHA-256 of ``AtomFeedRecordingTests/canonical(_:)``.
        var digest: String
        var testDescription: String { file }
    }

    static let pinned: [Pinned] = [
        Pinned(file: "comments_r_gravelcycling_1qcwxml_www_2026.xml", title: "New bike day : gravelcycling", entries: 34,
               first: Pin(id: "t3_1qcwxml", title: "New bike day", author: "/u/aspiring-housewife-", link: "https://www.reddit.com/r/gravelcycling/comments/1qcwxml/new_bike_day/", updated: 1768419176, contentLength: 862),
               last: Pin(id: "t1_nzlz9ju", title: "/u/aspiring-housewife- on New bike day", author: "/u/aspiring-housewife-", link: "https://www.reddit.com/r/gravelcycling/comments/1qcwxml/new_bike_day/nzlz9ju/", updated: 1768424599, contentLength: 135),
               digest: "d94612799c75ce56ad5558363c2078dc8826ec418199dc14ad3001ec209d0396"),
        Pinned(file: "comments_r_xbox_izrg6u_oldreddit_2020.xml", title: "External Drive on Xbox Series : xbox", entries: 195,
               first: Pin(id: "t3_izrg6u", title: "External Drive on Xbox Series", author: "/u/Beateride", link: "https://old.reddit.com/r/xbox/comments/izrg6u/external_drive_on_xbox_series/", updated: 1601066061, contentLength: 592),
               last: Pin(id: "t1_g6pdup6", title: "/u/Beateride on External Drive on Xbox Series", author: "/u/Beateride", link: "https://old.reddit.com/r/xbox/comments/izrg6u/external_drive_on_xbox_series/g6pdup6/", updated: 1601143713, contentLength: 76),
               digest: "abb41b31ef984f3d14c97987ee57e09693035696f1578281bf63f322c910848f"),
        Pinned(file: "error_notfound_comments_r_announcements_5e19z2_www_2026.xml", title: "announcements: page not found", entries: 0,
               first: nil,
               last: nil,
               digest: "8be88957be27782e3b9f06521f383add5a07984ee6dbc8b4c2b6b040f53d15b4"),
        Pinned(file: "listing_hot_r_worldnews_www_2026.xml", title: "World News", entries: 25,
               first: Pin(id: "t3_1vccs2e", title: "/r/WorldNews Live Thread: Russian Invasion of Ukraine Day 1619, Part 1 (Thread #1766)", author: "/u/WorldNewsMods", link: "https://www.reddit.com/r/worldnews/comments/1vccs2e/rworldnews_live_thread_russian_invasion_of/", updated: 1785556964, contentLength: 321),
               last: Pin(id: "t3_1vch1dh", title: "Charter flights to bring about 150 greyhounds to Australia as NZ racing ban begins", author: "/u/clamorous_owle", link: "https://www.reddit.com/r/worldnews/comments/1vch1dh/charter_flights_to_bring_about_150_greyhounds_to/", updated: 1785570587, contentLength: 902),
               digest: "53667ddadae5dcfb4981d3416451dc800f11ce2e74f2e65c618a5f3a9ee86ffc"),
        Pinned(file: "listing_r_BuyItForLife_oldreddit_2019.xml", title: "Buy it for life: Durable, Quality, Practical", entries: 26,
               first: Pin(id: "t3_c82aqw", title: "Simple Questions or Requests thread - July 02, 2019", author: "/u/AutoModerator", link: "https://old.reddit.com/r/BuyItForLife/comments/c82aqw/simple_questions_or_requests_thread_july_02_2019/", updated: 1562026705, contentLength: 719),
               last: Pin(id: "t3_c9yp2q", title: "Sturdy pouch", author: "/u/BudapestBaker", link: "https://old.reddit.com/r/BuyItForLife/comments/c9yp2q/sturdy_pouch/", updated: 1562447317, contentLength: 548),
               digest: "1dcb431b6cce471c9b8415a2fcfd2f75fcaacaf6536acfdec95f2265ab9723d8"),
        Pinned(file: "listing_r_all_oldreddit_2021.xml", title: "all subreddits", entries: 25,
               first: Pin(id: "t3_ngl4ts", title: "“We stayed because If we left, they wouldn’t have nobody”", author: "/u/Greenthund3r", link: "https://old.reddit.com/r/nextfuckinglevel/comments/ngl4ts/we_stayed_because_if_we_left_they_wouldnt_have/", updated: 1621468633, contentLength: 868),
               last: Pin(id: "t3_nggtxw", title: "US Capitol Police express 'profound disappointment' with Kevin McCarthy and Mitch McConnell's refusal to support January 6 commission", author: "/u/LiterallyCantEvenUgh", link: "https://old.reddit.com/r/politics/comments/nggtxw/us_capitol_police_express_profound_disappointment/", updated: 1621457732, contentLength: 1141),
               digest: "503098ac4493e948f873969307bf054d2a1bf9be5f5a11cf721059477cdeddb5"),
        Pinned(file: "listing_r_crisps_oldreddit_2022.xml", title: "Mmm, crisps.", entries: 26,
               first: Pin(id: "t3_gxdfrr", title: "The rules have been updated. We have one rule: Be nice", author: "/u/spicytacocat", link: "https://old.reddit.com/r/crisps/comments/gxdfrr/the_rules_have_been_updated_we_have_one_rule_be/", updated: 1591392292, contentLength: 789),
               last: Pin(id: "t3_nnpqsp", title: "A video taste testing the new Walkers 'Footy Favourites' Crisps", author: "/u/Illustrious-Text-373", link: "https://old.reddit.com/r/crisps/comments/nnpqsp/a_video_taste_testing_the_new_walkers_footy/", updated: 1622301971, contentLength: 319),
               digest: "d3b5745731cb07f675fcefe347c1c272cc1e925c26b1522dead6f94205c07df7"),
        Pinned(file: "listing_top_week_r_LocalLLaMA_2026.xml", title: "top scoring links : LocalLLaMA", entries: 25,
               first: Pin(id: "t3_1up9x38", title: "So... anyone copped one of these?", author: "/u/entsnack", link: "https://www.reddit.com/r/LocalLLaMA/comments/1up9x38/so_anyone_copped_one_of_these/", updated: 1783371308, contentLength: 865),
               last: Pin(id: "t3_1usy9ie", title: "Tencent-HY3 is the real deal on 128GB!", author: "/u/returnity", link: "https://www.reddit.com/r/LocalLLaMA/comments/1usy9ie/tencenthy3_is_the_real_deal_on_128gb/", updated: 1783713189, contentLength: 6231),
               digest: "c206b72b656955af8952b1f7e72c281f3c09f0d641b125eb750dbf237b23339d"),
        Pinned(file: "search_multi_portable_charger_2026.xml", title: "multi: search results - portable charger", entries: 10,
               first: Pin(id: "t3_1rp0bma", title: "Dropped my chargecore portable charger on the ground and it’s bulging. Is it leaking anything?", author: "/u/spiritofmyrtle", link: "https://www.reddit.com/r/batteries/comments/1rp0bma/dropped_my_chargecore_portable_charger_on_the/", updated: 1773063210, contentLength: 882),
               last: Pin(id: "t3_1sq57j4", title: "Battery Charger Question - Slow charge doesn't last on portable car jumper", author: "/u/Ed-luvr", link: "https://www.reddit.com/r/batteries/comments/1sq57j4/battery_charger_question_slow_charge_doesnt_last/", updated: 1776632957, contentLength: 1243),
               digest: "e7a9679120508d25144e44e54bc2cff391b28e82f202cc6a445d2efbd64aad4a"),
    ]

    /// Every field of the feed and of each entry, in order, with separators no field holds.
    static func canonical(_ feed: AtomFeed) -> [UInt8] {
        var text = feed.title + "\u{1F}" + feed.id
        for entry in feed.entries {
            let fields: [String] = [entry.id, entry.title, entry.author ?? "\u{0}", entry.categories.joined(separator: "\u{1D}"), entry.content,
                                    entry.contentType, entry.link ?? "\u{0}", entry.updated.map { "\($0.timeIntervalSince1970)" } ?? "\u{0}",
                                    entry.published.map { "\($0.timeIntervalSince1970)" } ?? "\u{0}"]
            text += "\u{1E}" + fields.joined(separator: "\u{1F}")
        }
        return Array(text.utf8)
    }

    func check(_ entry: AtomFeed.Entry?, against pin: Pin?) {
        guard let pin else { #expect(entry == nil); return }
        #expect(entry?.id == pin.id)
        #expect(entry?.title == pin.title)
        #expect(entry?.author == pin.author)
        #expect(entry?.link == pin.link)
        #expect(entry?.updated == Date(timeIntervalSince1970: TimeInterval(pin.updated)))
        #expect(entry?.content.utf8.count == pin.contentLength)
    }

    @Test(.replaysRecordings, arguments: pinned)
    func aRecordedFeedReadsAsItDidWithLibxml2(pinned: Pinned) throws {
        let feed = try AtomFeed(parsing: Data(Fixtures.bytes("reddit-atom/\(pinned.file)")))
        #expect(feed.title == pinned.title)
        #expect(feed.entries.count == pinned.entries)
        check(feed.entries.first, against: pinned.first)
        check(feed.entries.last, against: pinned.last)
        let digest = SHA256Digest.hash(Self.canonical(feed)).map { String($0 >> 4, radix: 16) + String($0 & 0xF, radix: 16) }.joined()
        #expect(digest == pinned.digest)
    }

    /// No recording is left out of the table above.
    @Test(.replaysRecordings) func everyRecordedFeedIsPinned() {
        #expect(Fixtures.names(in: "reddit-atom", withExtension: "xml") == Self.pinned.map { "reddit-atom/\($0.file)" })
    }
}
