import Foundation

/// Stored rows given to another owner (``ValueChangeSet/ownerMoves``).
extension SQLSaveWriter {
    /// Gives stored rows to their new owners (``ValueChangeSet/ownerMoves``); rows of tables
    /// that keep no owner have none to change. A unique value the new owner already holds
    /// fails the save, as an insert of it would.
    func writeOwnerMoves(store: SQLStore, connection: any SQLConnection) throws {
        for move in changes.ownerMoves where store.keepsOwner(move.layout) {
            _ = try store.run(.update(table: move.layout.tableName, assignments: [(SQLStore.ownerColumn, .bind(.text(move.owner)))],
                                      whereClause: .binary(.column(table: "", name: ModelLayout.primaryKeyColumn), .equal, .bind(.integer(move.key)))), on: connection)
        }
    }
}
