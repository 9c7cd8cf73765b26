import ArgumentParser
import Foundation
import NIOConcurrencyHelpers
import ReaderKit

/// The services `reader` offers, in the order it lists them. A built-in service is a folder
/// under `Services/` and one line in ``builtIn``.
public struct ServiceRegistry: Sendable {
    /// SWAPI and Reddit.
    public static let builtIn = ServiceRegistry([
        SWAPIPlugin(),
        RedditPlugin(),
    ])

    /// The services this process offers: ``builtIn`` unless the program that embeds `reader`
    /// chose others (``ReaderCommandLine/prepareProcess(services:)``) before anything was parsed.
    /// Fixed from its first reading on: the commands, their help and their words all see one registry.
    public static var current: ServiceRegistry {
        processRegistry.withLockedValue { state in
            state.read = true
            return state.registry
        }
    }

    private static let processRegistry = NIOLockedValueBox((registry: builtIn, read: false))

    /// Makes `registry` the process's: only before ``current`` was first read.
    static func choose(_ registry: ServiceRegistry) {
        processRegistry.withLockedValue { state in
            precondition(!state.read, "the services are chosen before anything reads them (ReaderCommandLine.prepareProcess)")
            state.registry = registry
        }
    }

    public let plugins: [any ServicePlugin]

    /// The registry of `plugins`, in that order; a later service of an earlier one's name is left out.
    public init(_ plugins: [any ServicePlugin]) {
        // An array, not a Set: a few names, and no Set of them instantiated at every start.
        var kept: [any ServicePlugin] = []
        for plugin in plugins where !kept.contains(where: { $0.name == plugin.name }) { kept.append(plugin) }
        self.plugins = kept
    }

    /// This registry and `plugin` after it.
    public func adding(_ plugin: any ServicePlugin) -> ServiceRegistry {
        ServiceRegistry(plugins + [plugin])
    }

    /// The service named `name`.
    public subscript(name: ServiceName) -> (any ServicePlugin)? {
        plugins.first { $0.name == name }
    }

    /// The service whose command `command` is, if any (`films` is SWAPI's; `sync` is no one's).
    func service(of command: any ParsableCommand.Type) -> ServiceName? {
        plugins.first { plugin in plugin.commands.contains { ObjectIdentifier($0) == ObjectIdentifier(command) } }?.name
    }

    /// The services' names, in order.
    public var names: [ServiceName] { plugins.map(\.name) }

    /// Every setting of every service, in order.
    var settings: [ServiceSetting] { plugins.flatMap(\.settings) }

    /// Every command of every service, in order.
    var commands: [any ParsableCommand.Type] { plugins.flatMap(\.commands) }

    /// Every service at its default settings: what the cache commands know of them is their names.
    package var servicesAtTheirDefaults: ServiceConfiguration {
        let defaults = ReaderSettings.builtIn(of: self)
        return ServiceConfiguration(plugins.compactMap { try? $0.service(from: defaults.of($0.name)) })
    }

    /// The environment variables that say where the services are.
    var addressVariables: [String] {
        settings.compactMap { setting in
            guard case .url = setting.kind else { return nil }
            return setting.variable
        }
    }
}
