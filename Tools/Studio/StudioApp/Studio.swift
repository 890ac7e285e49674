#if Studio
import Foundation
import Hummingbird
import Logging

/// The data studio's web application over one store: every page behind the access token, bound
/// to loopback unless told otherwise.
///
/// ```swift
/// let store = StudioStore(try StoreBrowser.open(file: url, allowsEdits: false, inflate: RawInflate.inflate))
/// let token = AccessToken.random()
/// try await Studio.application(store: store, token: token, port: 4040).runService()
/// ```
package enum Studio {
    /// `onServerRunning` is told the port once the server listens (the one chosen, for port 0).
    package static func application(
        store: StudioStore, token: AccessToken, host: String = "127.0.0.1", port: Int, logger: Logger? = nil,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        Application(
            router: router(store: store, token: token),
            configuration: .init(address: .hostname(host, port: port), serverName: "openswiftdata-studio"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
            // The log goes to standard error: standard output's first line is the URL to open.
            logger: logger ?? Logger(label: "studio", factory: { StreamLogHandler.standardError(label: $0) }))
    }

    package static func router(store: StudioStore, token: AccessToken) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: AccessTokenMiddleware(token: token))
        StudioRoutes(store: store).add(to: router)
        router.get("events", use: LiveChanges(store: store).events)
        return router
    }
}
#endif
