import Foundation
import ReaderKit

/// What SWAPI's screens load, asked for exactly as the commands ask (`reader people` for a
/// collection's count, `reader people --all` for its table, `reader people 1` for a resource and
/// the names of its links), so that `reader sync swapi` fills the cache they read and
/// `--offline` browsing sends nothing. Each load takes the options the ``Browser`` gives it.
package struct SWAPIBrowsing: Sendable {
    /// The client; nil in a screen's tests, where no work is run.
    var client: ReaderClient?

    /// A resource type that has screens: every SWAPI resource the commands show.
    package typealias Resource = SWAPIResource & Presentable

    /// The resource type of each collection.
    package static func resourceType(of collection: SWAPICollection) -> any Resource.Type {
        switch collection {
        case .films: Film.self
        case .people: Person.self
        case .planets: Planet.self
        case .species: Species.self
        case .starships: Starship.self
        case .vehicles: Vehicle.self
        }
    }

    /// What `reader browse swapi…` shows.
    enum Target: Sendable, Equatable {
        /// `swapi`: the six collections.
        case collections
        /// `swapi/people`: a collection's table.
        case collection(SWAPICollection)
        /// `swapi/people/1`: one resource.
        case resource(SWAPICollection, id: Int)

        /// The target written without `swapi/` (nil or empty: the collections).
        /// - Throws: ``ReaderError/invalidArgument(_:)`` for a collection SWAPI does not have,
        ///   with the one meant when it is a slip away, or an id that is no id.
        init(_ text: String?) throws(ReaderError) {
            let parts = (text ?? "").split(separator: "/").map(String.init)
            guard let first = parts.first else {
                self = .collections
                return
            }
            let name = first.lowercased()
            guard parts.count <= 2, let collection = SWAPICollection(rawValue: name) else {
                let all = SWAPICollection.allCases.map(\.rawValue)
                let meant = Help.nearest(to: name, among: all).map { ": did you mean swapi/\($0)?" } ?? ""
                throw .invalidArgument("swapi has no collection \"\(TerminalText.sanitise(first, maxLength: 40))\"\(meant) (it has \(all.joined(separator: ", ")))")
            }
            guard parts.count == 2 else {
                self = .collection(collection)
                return
            }
            guard let id = Int(parts[1]), id >= 1, id <= 1_000_000 else {
                throw .invalidArgument("swapi/\(collection.rawValue)/ takes an id, a whole number from 1 to 1000000")
            }
            self = .resource(collection, id: id)
        }
    }

    /// The first screen for `target`.
    static func screen(for target: Target, browsing: SWAPIBrowsing) -> any BrowseScreen {
        switch target {
        case .collections: SWAPICollectionsScreen(swapi: browsing)
        case .collection(let collection): collectionScreen(collection, browsing: browsing)
        case .resource(let collection, let id): detailScreen(collection, id: id, browsing: browsing)
        }
    }

    /// The table of `collection`.
    static func collectionScreen(_ collection: SWAPICollection, browsing: SWAPIBrowsing) -> any BrowseScreen {
        func screen<R: Resource>(_ type: R.Type) -> any BrowseScreen { SWAPICollectionScreen<R>(swapi: browsing) }
        return screen(resourceType(of: collection))
    }

    /// The detail of resource `id` of `collection`.
    static func detailScreen(_ collection: SWAPICollection, id: Int, browsing: SWAPIBrowsing) -> any BrowseScreen {
        func screen<R: Resource>(_ type: R.Type) -> any BrowseScreen { SWAPIDetailScreen<R>(id: id, swapi: browsing) }
        return screen(resourceType(of: collection))
    }

    /// The detail of the resource a link names (`https://swapi.dev/api/planets/1/`), read for its
    /// collection and id only; nil for a link that is no SWAPI resource.
    static func detailScreen(forLink link: String, browsing: SWAPIBrowsing) -> (any BrowseScreen)? {
        guard let path = SWAPI.endpoint(forLink: link)?.path.split(separator: "/"), path.count == 2,
              let collection = SWAPICollection(rawValue: String(path[0])), let id = Int(path[1]) else { return nil }
        return detailScreen(collection, id: id, browsing: browsing)
    }

    /// A collection's first page, as `reader people` asks for it, answered as its count
    /// (`LoadResult<Int>`).
    func count(of collection: SWAPICollection) -> @Sendable (LoadOptions) async -> ScreenAnswer {
        func count<R: Resource>(_ type: R.Type) -> @Sendable (LoadOptions) async -> ScreenAnswer {
            let client = client
            return { options in
                guard let client else { return Self.noClient(Int.self) }
                let answer = await ScreenAnswer.of { () throws(LoadFailure) in try await client.loadList(R.self, options: options) }
                switch answer.payload as? LoadResult<SWAPIPage<R>> {
                case .loaded(let page, let metadata)?: return ScreenAnswer(LoadResult<Int>.loaded(page.count, metadata), report: answer.report)
                case .failed(let failure)?: return ScreenAnswer(LoadResult<Int>.failed(failure), report: answer.report)
                case nil: return answer
                }
            }
        }
        return count(Self.resourceType(of: collection))
    }

    /// Every page of a collection, as `reader people --all` asks for them, answered as one page
    /// holding every resource (`LoadResult<SWAPIPage<R>>`), its metadata that of all of them
    /// (stale when any page is).
    func allPages<R: Resource>(_ type: R.Type) -> @Sendable (LoadOptions) async -> ScreenAnswer {
        let client = client
        return { options in
            guard let client else { return Self.noClient(SWAPIPage<R>.self) }
            return await ScreenAnswer.of { () throws(LoadFailure) in
                let pages = try await client.loadAllPages(R.self, options: options)
                guard var whole = pages.first, let metadata = LoadMetadata.combining(pages.map(\.metadata)) else {
                    throw LoadFailure(error: .bug("no pages of \(R.collection.rawValue)"), decision: .alert)
                }
                whole.value.results = pages.flatMap(\.value.results)
                whole.value.next = nil
                whole.metadata = metadata
                // The error any page was served in place of: the combined code is the first one's.
                whole.servedInsteadOf = pages.lazy.compactMap(\.servedInsteadOf).first
                return whole
            }
        }
    }

    /// One resource, as `reader people 1` asks for it (`LoadResult<R>`).
    func resource<R: Resource>(_ type: R.Type, id: Int) -> @Sendable (LoadOptions) async -> ScreenAnswer {
        let client = client
        return { options in
            await ScreenAnswer.load(through: client, options: options) { () throws(ReaderError) in try SWAPI.resource(R.self, id: id) }
        }
    }

    /// The names of linked resources, as `reader people 1` loads them (concurrently, through the
    /// cache, as background work: a link that cannot be named is left out), answered as
    /// ``LinkedNames`` with no report: a name that fails is shown as its link, never as a banner.
    func names(of links: [String]) -> @Sendable (LoadOptions) async -> ScreenAnswer {
        let client = client
        return { options in
            guard let client else { return ScreenAnswer(LinkedNames()) }
            return ScreenAnswer(await client.names(of: links, options: options))
        }
    }

    private static func noClient<Value: Sendable>(_ type: Value.Type) -> ScreenAnswer {
        ScreenAnswer(LoadResult<Value>.failed(BrowseFailure(.bug("no client"))))
    }
}

extension SWAPIPlugin {
    /// `reader browse swapi`: the six collections with their counts; `swapi/people`: that
    /// collection's table; `swapi/people/1`: that resource. Each loads what the commands load
    /// (``SWAPIBrowsing``), so that `reader sync swapi` fills the cache browsing reads.
    var browse: BrowseCapability? {
        BrowseCapability(
            targets: "swapi, swapi/COLLECTION (swapi/people), swapi/COLLECTION/ID", goTo: "swapi", examples: ["swapi", "swapi/people"]
        ) { (target, _) throws(ReaderError) -> BrowseProgram in
            let target = try SWAPIBrowsing.Target(target)
            return BrowseProgram { context in SWAPIBrowsing.screen(for: target, browsing: SWAPIBrowsing(client: context.client)) }
        }
    }
}
