#if Studio
import ExpensesCore
import ExpensesWebApp
import Foundation
import OpenSwiftData
import Testing

/// Two servers started at once on one new store each find it empty and seed it: it ends with one
/// set of samples, whichever saved first.
@Suite struct SeedingTests {
    @Test(arguments: WebStore.available)
    func twoProcessesThatFoundTheStoreEmptySeedItOnce(_ store: WebStore) throws {
        let (configuration, _) = try TestApp.newStore(store)
        let first = ExpenseViewModel(context: ModelContext(try ExpensesStore.container(configuration)))
        let second = ExpenseViewModel(context: ModelContext(try ExpensesStore.container(configuration)))
        // Both looked before either saved, as two processes starting together do.
        first.setupInitialData(categories: [], expenses: [])
        second.setupInitialData(categories: [], expenses: [])
        #expect(first.errorMessage == nil)
        #expect(second.errorMessage == nil)
        let fresh = ExpenseViewModel(context: ModelContext(try ExpensesStore.container(configuration)))
        #expect(try fresh.expenses().count == 6)
        #expect(try fresh.total().count == 6)
        #expect(try fresh.categoryTotals().count == 5)
    }

    @Test(arguments: WebStore.available)
    func twoServicesStartingTogetherSeedOnce(_ store: WebStore) async throws {
        let (configuration, _) = try TestApp.newStore(store)
        let containers = try (0..<2).map { _ in try ExpensesStore.container(configuration) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for container in containers {
                group.addTask { _ = try ExpensesService(container: container, threadCount: 1) }
            }
            try await group.waitForAll()
        }
        let fresh = ExpenseViewModel(context: ModelContext(try ExpensesStore.container(configuration)))
        #expect(try fresh.expenses().count == 6)
    }
}
#endif
