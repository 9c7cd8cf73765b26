import ArgumentParser
import Foundation
import ReaderKit

extension SWAPIPlugin {
    /// Each collection's page and each resource, as the six commands show them.
    var answers: [ServiceAnswer] {
        SWAPICollection.allCases.map { Self.pageAnswer(SWAPIBrowsing.resourceType(of: $0), name: $0.rawValue) }
            + SWAPICollection.allCases.map { Self.resourceAnswer(SWAPIBrowsing.resourceType(of: $0), name: $0.rawValue + "/1") }
            + [ServiceAnswer("name", as: SWAPINamedResource.self) { resource, _ in _ = TerminalText.sanitise(resource.displayName, maxLength: 80) }]
    }

    static func pageAnswer<Resource: SWAPIResource & Presentable>(_ type: Resource.Type, name: String) -> ServiceAnswer {
        ServiceAnswer(name, as: SWAPIPage<Resource>.self) { page, showing in
            _ = Resource.table(page.results).render(width: showing.width)
            _ = SWAPI.pageCount(of: page)
            _ = SWAPIList<Resource>.footer(page, page: 1)
            _ = SWAPIList<Resource>.footer(page, page: 10_000)
            _ = page.next.flatMap(SWAPI.endpoint(forLink:))
            _ = page.previous.flatMap(SWAPI.endpoint(forLink:))
            for resource in page.results { showLinks(of: resource) }
        }
    }

    static func resourceAnswer<Resource: SWAPIResource & Presentable>(_ type: Resource.Type, name: String) -> ServiceAnswer {
        ServiceAnswer(name, as: Resource.self) { resource, showing in
            let links = resource.links.flatMap(\.1)
            let names = Dictionary(links.prefix(3).map { ($0, "Name of \($0)") }, uniquingKeysWith: { first, _ in first })
            _ = resource.detailLines(names: names, width: showing.width, style: .plain)
            showLinks(of: resource)
        }
    }

    static func showLinks(of resource: some SWAPIResource) {
        _ = TerminalText.sanitise(resource.displayName, maxLength: 80)
        _ = resource.id
        _ = SWAPI.endpoint(forLink: resource.url)
    }
}

/// A SWAPI command for any resource type, to reach the footer the six commands share.
private struct SWAPIList<Resource: SWAPIResource & Presentable>: SWAPICommand {
    static var configuration: CommandConfiguration { CommandConfiguration(commandName: "list") }
    @OptionGroup var query: SWAPIQuery
    @OptionGroup var options: GlobalOptions
}
