#if Studio
import ExpensesCore
import Foundation
import Hummingbird
import OpenSwiftData
import OpenSwiftDataSync
import ServiceLifecycle

/// `POST /sync`: the sync server for the expense tracker's devices (`expenses sync --server URL`),
/// on this app's own store, SQLite or PostgreSQL (several instances may share the database).
///
/// In account mode (``Accounts``) a device syncs as the user its token names
/// (``AccountsMiddleware`` checked it), and gets and changes only that user's data. Otherwise a
/// client must send `Authorization: Bearer TOKEN` with the token the server was started with
/// (`EXPENSES_SYNC_TOKEN`): one dataset, one user; without either the route answers 404, so
/// sync is off unless asked for. Bodies beyond ``SyncServer/maximumRequestBytes`` are
/// refused before they are read in full. Synced changes are saves like any other, so the page's
/// live updates show them. What devices push is held to the API's own input rules
/// (``ExpenseInput/syncValidators``).
struct SyncController {
    let service: ExpensesService
    let server: SyncServer?
    let token: String?
    /// Whether devices sync as their users (account mode).
    let accounts: Bool

    init(service: ExpensesService, token: String?, accounts: Bool = false) throws {
        self.service = service
        self.token = token.flatMap { $0.isEmpty ? nil : $0 }
        self.accounts = accounts
        var sharing = SyncSharingOptions()
        // An offer shows the ledger's name (at most 40 characters: the validators keep names so).
        sharing.offerTitle = { ($0 as? Ledger)?.name }
        self.server = self.token == nil && !accounts ? nil : try SyncServer(container: service.container, validators: ExpenseInput.syncValidators,
                                                                                       subscriptions: ExpenseSubscriptions.all, sharing: sharing)
    }

    func addRoutes(to router: Router<ExpensesRequestContext>) {
        router.post("sync", use: sync)
    }

    @Sendable func sync(_ request: Request, context: ExpensesRequestContext) async throws -> Response {
        guard let server else {
            throw APIError(.notFound, "Sync is off on this server; start it with EXPENSES_SYNC_TOKEN or EXPENSES_AUTH_SECRET set.")
        }
        let principal: SyncPrincipal?
        if accounts {
            guard let user = RequestUser.current else { throw APIError(.unauthorized, "A sync needs a user's token: Authorization: Bearer TOKEN.") }
            principal = SyncPrincipal(user: user)
        } else {
            try checkToken(request)
            principal = nil
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: SyncServer.maximumRequestBytes)
        } catch {
            throw APIError(.contentTooLarge, "A sync request has at most \(SyncServer.maximumRequestBytes) bytes.")
        }
        let data = Data(buffer: body)
        let reply: Data
        do {
            // Waiting for its turn without holding a thread, then on the container's own
            // threads, as every request's data work. A device waiting for changes (`expenses
            // sync --watch`) is held here; when the server begins to shut down, it is answered,
            // so the shutdown does not wait out its wait.
            reply = try await withGracefulShutdownHandler {
                if let principal { return try await server.serve(data, as: principal) }
                return try await server.serve(data)
            } onGracefulShutdown: {
                server.releaseWaitingDevices()
            }
        } catch let error as SyncError {
            // The library's own answer: 400, 409, 413, or 422 naming a refused record, which the
            // device sets aside.
            return Response(status: .init(code: error.httpStatus), headers: [.contentType: "application/json"],
                             body: ResponseBody(byteBuffer: ByteBuffer(bytes: error.httpBody)))
        }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply)))
    }

    /// Refuses a request without the server's one token (single-token mode).
    private func checkToken(_ request: Request) throws {
        let token = token ?? ""
        guard !token.isEmpty, BearerToken.matches(request, token) else {
            throw APIError(.unauthorized, "A sync needs the server's token: Authorization: Bearer TOKEN.")
        }
    }
}
#endif
