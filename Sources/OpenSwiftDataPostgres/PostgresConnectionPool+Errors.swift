#if PostgreSQL
import Foundation
import OpenSwiftData
import PostgresNIO

/// What the pool's failures mean and how they are told: which errors end a session, which
/// transactions may run again, and messages that never show the password.
extension PostgresConnectionPool {
    /// No server of the URL could be used: what each answered.
    struct NoServer: Error, CustomStringConvertible {
        let failures: [String]
        /// Whether only a server that accepts writes would do.
        let forWrites: Bool
        var description: String {
            let each = failures.joined(separator: "; ")
            guard forWrites else { return "no server answered (\(each))" }
            return "no server accepts writes now (\(each)). Nothing was written; this can be retried once one does (a standby being promoted)"
        }
    }

    /// Whether a statement that failed with `state` failed only for what ran beside it — a
    /// serialization failure (40001) or a deadlock (40P01) — so that its transaction, which the
    /// server rolled back, may run again.
    static func isTransient(_ state: String?) -> Bool {
        state == "40001" || state == "40P01"
    }

    /// Whether `error` leaves the connection unusable.
    static func endsSession(_ error: any Error) -> Bool {
        guard let info = (error as? PSQLError)?.serverInfo else { return true }
        let severity = info[.severity] ?? info[.localizedSeverity] ?? ""
        let state = info[.sqlState] ?? ""
        return severity == "FATAL" || severity == "PANIC" || state.hasPrefix("57P") || state.hasPrefix("08")
    }

    /// An error that says what failed, with the server's own message when it sent one, and never
    /// the password.
    static func describe(_ error: any Error, doing action: String, at place: String) -> SwiftDataError {
        if let error = error as? SwiftDataError { return error }
        if let error = error as? NoServer, error.forWrites {
            return SwiftDataError(.storeUnavailable, "could not \(action) PostgreSQL at \(place): \(error)")
        }
        let connecting = action == "connect to"
        var code: SwiftDataError.Code = connecting ? .loadIssueModelContainer : .storeIO
        let what: String
        if let error = error as? PSQLError {
            if let info = error.serverInfo, let message = info[.message] {
                if info[.sqlState] == "23505" { code = .constraintViolation }
                // numeric_value_out_of_range: an integer sum that does not fit 64 bits.
                if info[.sqlState] == "22003" { code = .valueOutOfRange }
                // serialization_failure, deadlock_detected: the server rolled the transaction
                // back, so it can run again (a save does, a few times, before it throws this).
                let again = Self.isTransient(info[.sqlState])
                if again { code = .busy }
                // The server's DETAIL can quote stored values ("Key (email)=(…) already exists"):
                // logged at debug level, kept out of an error an app may show.
                if let detail = info[.detail] { Self.logger.debug("PostgreSQL at \(place): \(detail)") }
                let state = info[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
                what = "the server said “\(message)”\(state)"
                    + (again ? ". PostgreSQL rolled the transaction back, so nothing of it was written; it can be run again" : "")
            } else {
                let underlying = error.underlying.map { ": \($0)" } ?? ""
                switch error.code {
                case .serverClosedConnection: what = "the server closed the connection (restarted or stopped?)\(underlying)"
                case .clientClosedConnection: what = "the connection was closed\(underlying)"
                case .connectionError: what = "the connection failed\(underlying)"
                case .sslUnsupported: what = "the server does not offer TLS, which the URL's sslmode asks for"
                case .authMechanismRequiresPassword: what = "the server asks for a password, and the URL has none"
                case .unsupportedAuthMechanism: what = "the server asks for an authentication method postgres-nio does not support"
                default: what = "\(error.code)\(underlying)"
                }
            }
        } else {
            what = "\(error)"
        }
        return SwiftDataError(code, "could not \(action) PostgreSQL at \(place): \(what)")
    }
}
#endif
