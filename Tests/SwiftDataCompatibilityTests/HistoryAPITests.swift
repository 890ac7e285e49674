import Foundation
import Testing
#if canImport(SwiftData)
import SwiftData
#endif

/// History as sync libraries use it: deleting some transactions by a predicate (their own
/// inbound ones) leaves the tokens before them good.
@Suite struct HistoryAPITests {
    @Test func deletingSomeTransactionsByAPredicateKeepsOlderTokensGood() throws {
        let (container, _) = try TestContainer.make()
        let context = ModelContext(container)
        context.insert(Book(title: "A"))
        try context.save()
        let token = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token)
        context.author = "inbound"
        context.insert(Book(title: "B"))
        try context.save()
        context.author = nil
        context.insert(Book(title: "C"))
        try context.save()

        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.author == "inbound" }))
        let after = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > token }))
        #expect(after.count == 1)
        #expect(after.allSatisfy { $0.author == nil })
        // Deleting every transaction up to one the token needs does expire it.
        let newest = try #require(after.last?.token)
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= newest }))
        #expect(throws: SwiftDataError.historyTokenExpired) {
            try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > token }))
        }
    }
}
