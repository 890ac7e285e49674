#if Studio
import ExpensesCore
import OpenSwiftData

/// A failure inside the app whose details go to the log only; ``ErrorMiddleware`` answers it
/// with a generic 500 and the request's id.
struct InternalFailure: Error, CustomStringConvertible {
    let description: String
}

extension InternalFailure {
    /// What a view model's failed save answers: 403 where it changed a ledger shared with the
    /// user to read only (the store refused it); the store's own error where it says to try again
    /// (``ErrorMiddleware`` answers 503: no server accepts writes for a moment, or the store is
    /// busy); a logged 500 otherwise.
    static func saving(_ viewModel: ExpenseViewModel, _ fallback: String) -> any Error {
        if viewModel.lastSaveWasReadOnly {
            return APIError(.forbidden, "That is in a ledger shared with you to read only; nothing was changed.")
        }
        if let error = viewModel.lastSaveError as? SwiftDataError, error.code == .storeUnavailable || error.code == .busy {
            return error
        }
        return InternalFailure(description: viewModel.errorMessage ?? fallback)
    }
}
#endif
