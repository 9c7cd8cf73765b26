import ArgumentParser
import Foundation
import ReaderKit

/// The Star Wars API in `reader`: its six collections' commands, its address, and its sync.
struct SWAPIPlugin: ServicePlugin {
    var name: ServiceName { SWAPIService.name }

    var settings: [ServiceSetting] {
        [
            ServiceSetting(key: "swapi.url", variable: SWAPIService.baseURLVariable,
                           summary: "The SWAPI base URL (default \(SWAPIService.defaultBaseURL.absoluteString)).",
                           kind: .url(default: SWAPIService.defaultBaseURL)),
            ServiceSetting(key: "sync.swapi", summary: "Whether 'reader sync' without arguments syncs SWAPI.", kind: .flag(default: false)),
        ]
    }

    func service(from settings: ServiceSettings) throws(ReaderError) -> any Service {
        SWAPIService(baseURL: settings.url("swapi.url"))
    }

    var summary: String { "the Star Wars API" }

    var examples: [String] { ["reader people --search skywalker", "reader films 1", "reader sync swapi && reader planets --all --offline"] }

    var configExample: String? {
        """
        [swapi]
        url = "\(SWAPIService.defaultBaseURL.absoluteString)"
        """
    }

    var commands: [any ParsableCommand.Type] {
        [Reader.Films.self, Reader.People.self, Reader.Planets.self, Reader.Species.self, Reader.Starships.self, Reader.Vehicles.self]
    }

    var sync: SyncCapability? {
        SyncCapability(usage: "swapi", description: "swapi", summary: "all of SWAPI",
                       explanation: "'swapi' reads every page and every resource of the six collections; afterwards every SWAPI command works with --offline.",
                       configuredHelp: "SWAPI when [sync] swapi = true", example: "swapi",
                       configured: { $0.flag("sync.swapi") ? [] : nil }, configExample: "[sync] swapi = true",
                       run: { client, _, options, progress in await client.syncSWAPI(options: options, progress: progress) })
    }
}
