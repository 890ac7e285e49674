#if Studio
import Hummingbird
import OpenSwiftData

/// Answers an internal failure (a store error, a file path, an SQL message, a connection string)
/// with a generic 500 naming the request's id, and logs the failure with that id: the details are
/// for the server's operator, never for whoever sent the request.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = ExpensesRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            throw error
        } catch let error as SwiftDataError where error.code == .busy {
            // More requests wait for the store's threads than are queued: try again shortly.
            throw APIError(.serviceUnavailable, "The server is busy; try again shortly.")
        } catch let error as SwiftDataError where error.code == .storeUnavailable {
            // The database is between servers (a failover): nothing was saved; try again shortly.
            context.logger.warning("\(request.method) \(request.uri.path): \(error)")
            throw APIError(.serviceUnavailable, "The database is unavailable for a moment; nothing was saved. Try again shortly.")
        } catch {
            context.logger.error("\(request.method) \(request.uri.path) failed: \(error)")
            throw Self.generic(context)
        }
    }

    /// The answer to an internal failure of the request `context` serves.
    static func generic(_ context: Context) -> APIError {
        APIError(.internalServerError, "Something went wrong on the server; it was logged as request \(context.id).")
    }
}
#endif
