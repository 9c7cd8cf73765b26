import Foundation

extension ProxySettings {
    /// The hosts reached directly whatever the proxies: `NO_PROXY`, read as curl 7.86 and later
    /// read it.
    ///
    /// Entries are separated by commas (or spaces); each is one of:
    /// - `*` alone: every host;
    /// - a host name, with or without a leading dot (or `*.`): that name and every name under it
    ///   (`example.com` and `.example.com` both match `example.com` and `api.example.com`, never
    ///   `notexample.com`);
    /// - an IPv4 or IPv6 address (`127.0.0.1`, `::1`, `[::1]`): that address, written as the URL writes it;
    /// - a CIDR block (`10.0.0.0/8`, `fd00::/8`): every address in it;
    /// - any of those but `*` and a block, with `:port` (`[::1]:8080` for IPv6): only requests to
    ///   that port (an extension of Go's; curl ignores ports).
    ///
    /// Names are compared without regard to case and a trailing dot. A name is never resolved to
    /// match an address entry. Entries that are none of these are passed over.
    public struct Bypass: Sendable, Equatable {
        /// The entries as written, in order.
        public private(set) var entries: [String]
        /// The variable they came from (`no_proxy` or `NO_PROXY`); nil when made in code or unset.
        public var variable: String?

        private var rules: [(entry: String, rule: Rule)]

        /// No host bypasses the proxies.
        public init() {
            self.init("", variable: nil)
        }

        /// The entries of `list`, a `NO_PROXY` value.
        public init(_ list: String, variable: String? = "NO_PROXY") {
            let separators = CharacterSet(charactersIn: ", \t")
            // Bounded: an environment variable is untrusted, and each entry is matched per request.
            entries = Array(list.components(separatedBy: separators).filter { !$0.isEmpty }.prefix(1000))
            self.variable = entries.isEmpty ? nil : variable
            rules = entries.compactMap { entry in Rule(entry).map { (entry, $0) } }
        }

        /// Whether no entry can match.
        public var isEmpty: Bool { rules.isEmpty }

        /// The entries that are none of the forms above (`10.0.0.0/33`, `host:99999`), passed
        /// over, in order: for `reader config` to say so.
        public var ignoredEntries: [String] {
            entries.filter { Rule($0) == nil }
        }

        /// The entry that names `host` (a URL's host; brackets around an IPv6 address allowed) on
        /// `port`, or nil.
        public func entry(matchingHost host: String, port: Int) -> String? {
            var name = host.lowercased()
            if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
            while name.hasSuffix(".") { name.removeLast() }
            let address = IPAddress(name)
            return rules.first { $0.rule.matches(name: name, address: address, port: port) }?.entry
        }

        public static func == (lhs: Bypass, rhs: Bypass) -> Bool {
            lhs.entries == rhs.entries && lhs.variable == rhs.variable
        }

        /// One entry, read.
        enum Rule: Sendable {
            case everyHost
            case domain(String, port: Int?)
            case address(IPAddress, port: Int?)
            case block(IPAddress, prefixLength: Int)

            init?(_ entry: String) {
                var text = entry.lowercased()
                if text == "*" { self = .everyHost; return }
                if let slash = text.firstIndex(of: "/") {
                    guard let base = IPAddress(String(text[..<slash])), let length = Int(text[text.index(after: slash)...]),
                          (0...(base.bytes.count * 8)).contains(length) else { return nil }
                    self = .block(base, prefixLength: length)
                    return
                }
                if let address = IPAddress(text) { self = .address(address, port: nil); return }
                var port: Int?
                if text.hasPrefix("[") {
                    guard let close = text.firstIndex(of: "]"), let address = IPAddress(String(text[text.index(after: text.startIndex)..<close]))
                    else { return nil }
                    let after = text[text.index(after: close)...]
                    if !after.isEmpty {
                        guard after.hasPrefix(":"), let number = Int(after.dropFirst()), (1...65_535).contains(number) else { return nil }
                        port = number
                    }
                    self = .address(address, port: port)
                    return
                }
                if let colon = text.lastIndex(of: ":") {
                    guard let number = Int(text[text.index(after: colon)...]), (1...65_535).contains(number) else { return nil }
                    port = number
                    text = String(text[..<colon])
                }
                if let address = IPAddress(text) { self = .address(address, port: port); return }
                if text.hasPrefix("*.") { text.removeFirst(2) } else if text.hasPrefix(".") { text.removeFirst() }
                while text.hasSuffix(".") { text.removeLast() }
                guard !text.isEmpty, !text.contains("*") else { return nil }
                self = .domain(text, port: port)
            }

            func matches(name: String, address: IPAddress?, port: Int) -> Bool {
                switch self {
                case .everyHost: return true
                case .domain(let domain, let wanted):
                    guard wanted == nil || wanted == port else { return false }
                    return name == domain || name.hasSuffix("." + domain)
                case .address(let entry, let wanted):
                    guard wanted == nil || wanted == port else { return false }
                    return address == entry
                case .block(let base, let length):
                    guard let address else { return false }
                    return address.isIn(base, prefixLength: length)
                }
            }
        }
    }
}

/// An IPv4 or IPv6 address, as its bytes: for `NO_PROXY`'s addresses and blocks.
struct IPAddress: Sendable, Equatable {
    var bytes: [UInt8]

    init?(_ text: String) {
        guard !text.isEmpty, text.utf8.count <= 64 else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    var isVersion6: Bool { bytes.count == 16 }

    /// Whether the first `prefixLength` bits are `base`'s (and both are of one version).
    func isIn(_ base: IPAddress, prefixLength: Int) -> Bool {
        guard bytes.count == base.bytes.count, prefixLength >= 0, prefixLength <= bytes.count * 8 else { return false }
        let whole = prefixLength / 8
        guard bytes.prefix(whole) == base.bytes.prefix(whole) else { return false }
        let bits = prefixLength % 8
        guard bits > 0 else { return true }
        let mask = UInt8(0xFF) << (8 - bits)
        return bytes[whole] & mask == base.bytes[whole] & mask
    }
}
