/// One store's part of a save, written and not yet committed (``RowStore/prepareSave(_:schema:)``).
/// A save across several stores prepares every one before it commits any, so that a failure while
/// writing leaves them all as they were.
///
/// The handle is the transaction: whoever holds it commits or rolls it back, on any thread;
/// nothing about it is kept anywhere else. Dropped while open, it rolls back.
protocol PreparedSave: AnyObject {
    /// What the store reports back: keys given to new rows, rows batch operations touched.
    var result: StoreSaveResult { get }
    /// Commits what was written (rolled back if the commit fails). Once.
    func commit() throws
    /// Discards what was written. Does nothing after ``commit()``.
    func rollback()
}

/// The part of a store that saved in one step (a custom `DataStore`, ``RowStore/isTransactional``
/// `false`): there is nothing left to commit or to discard.
final class CompletedSave: PreparedSave {
    let result: StoreSaveResult

    init(_ result: StoreSaveResult) {
        self.result = result
    }

    func commit() throws {}
    func rollback() {}
}
