import Foundation

extension SyncError {
    /// The HTTP status a server's host answers this error with, which ``HTTPSyncTransport``
    /// reads back as the same error: 400 for ``malformed(_:)``, 409 for
    /// ``schemaMismatch(local:remote:)`` and ``userChanged(synced:now:)``, 422 for ``refused(_:)``, 413 for ``tooLarge(_:)``,
    /// 429 for ``busy(_:)``, 410 for ``resetRequired(reason:serverLost:)``, 401 for
    /// ``unauthorized(_:)``, 500 otherwise.
    ///
    /// ```swift
    /// } catch let error as SyncError {
    ///     return Response(status: .init(code: error.httpStatus), body: .init(byteBuffer: ByteBuffer(bytes: error.httpBody)))
    /// }
    /// ```
    public var httpStatus: Int {
        switch self {
        case .malformed: 400
        case .schemaMismatch, .userChanged: 409
        case .refused: 422
        case .tooLarge: 413
        case .busy: 429
        case .resetRequired: 410
        case .unauthorized: 401
        case .unsupportedStore, .server, .cannotShare: 500
        }
    }

    /// The JSON body to answer with: `{"error": "…"}`, and for ``refused(_:)`` the refusal
    /// (`"refused": {"entity": …, "id": …, "reason": …, "serverRecord": …}`), so that the client
    /// can go back to the server's version of the object (or set a new one aside).
    public var httpBody: Data {
        var body = SyncErrorBody(error: description, refused: { if case .refused(let refusal) = self { refusal } else { nil } }())
        if case .resetRequired(let reason, let serverLost) = self {
            body.reset = reason
            body.serverLost = serverLost
        }
        if case .userChanged(let synced, let now) = self { body.userChanged = [synced, now] }
        return (try? JSONEncoder().encode(body)) ?? Data("{}".utf8)
    }
}

/// The JSON of a refused sync request (``SyncError/httpBody``).
struct SyncErrorBody: Codable {
    var error: String
    var refused: SyncRefusal?
    /// Why the client must start again, and whether the server lost changes
    /// (``SyncError/resetRequired(reason:serverLost:)``).
    var reset: String?
    var serverLost: Bool?
    /// The user the device synced as and the one the server serves, for ``SyncError/userChanged(synced:now:)``.
    var userChanged: [String]?
}
