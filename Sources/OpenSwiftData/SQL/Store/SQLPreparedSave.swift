/// A SQL store's part of a save: the write transaction, open on its connection until
/// ``commit()`` or ``rollback()`` (or until the handle is dropped, which rolls back).
final class SQLPreparedSave: PreparedSave {
    let result: StoreSaveResult
    private let store: SQLStore
    /// The transaction's connection; `nil` once it ended.
    private var connection: (any SQLConnection)?

    init(store: SQLStore, connection: any SQLConnection, result: StoreSaveResult) {
        self.store = store
        self.connection = connection
        self.result = result
    }

    func commit() throws {
        guard let connection else { return }
        self.connection = nil
        try store.commit(connection)
    }

    func rollback() {
        guard let connection else { return }
        self.connection = nil
        store.rollback(connection)
    }

    // A save that threw between preparing and committing must not keep the write lock.
    deinit { rollback() }
}
