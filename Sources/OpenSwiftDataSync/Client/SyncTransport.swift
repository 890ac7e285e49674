import Foundation

/// How a client reaches its server: one request body in, one reply body out.
/// ``HTTPSyncTransport`` posts to a URL; tests hand bodies to a ``SyncServer`` directly.
public protocol SyncTransport: Sendable {
    /// A description of the server for messages (its URL).
    var serverDescription: String { get }
    /// Sends a request body and returns the reply body; throws ``SyncError`` when the server
    /// cannot be reached or refuses.
    func send(_ body: Data) async throws -> Data
}
