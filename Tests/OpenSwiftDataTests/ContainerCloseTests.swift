import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// `ModelContainer.close()`: a file store's connections closed (its WAL folded into the file, the
/// `-wal` and `-shm` files gone), every later fetch or save an error naming the closed store, and
/// the data there for the next container.
@Suite struct ContainerCloseTests {
    @Test func closingAFileStoreLeavesOnlyTheFile() throws {
        let url = TestStore.temporaryURL()
        defer { TestStore.removeFiles(at: url) }
        let container = try ModelContainer(for: Expense.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        context.insert(Expense(amount: 12.5, note: "lunch"))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Expense>()) == 1)
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal"))

        container.close()
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: url.path + "-shm"))
        container.close()  // again: nothing more happens

        let reopened = ModelContext(try ModelContainer(for: Expense.self, configurations: ModelConfiguration(url: url)))
        #expect(try reopened.fetch(FetchDescriptor<Expense>()).map(\.note) == ["lunch"])
    }

    @Test(arguments: [StoreKind.file, .memory] + (StoreKind.allCases.contains(.postgres) ? [StoreKind.postgres] : []))
    func aClosedContainerRefusesFetchesAndSaves(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self])
        let context = store.context()
        context.insert(Expense(amount: 1))
        try context.save()
        store.container.close()

        #expect { try context.fetchCount(FetchDescriptor<Expense>()) } throws: { error in
            (error as? SwiftDataError) == .storeIO && "\(error)".contains("closed")
        }
        context.insert(Expense(amount: 2))
        #expect(throws: SwiftDataError.self) { try context.save() }
        #expect(context.hasChanges)  // nothing was saved, nothing lost from the context
    }
}
