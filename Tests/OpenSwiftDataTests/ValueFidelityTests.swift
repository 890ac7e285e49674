import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// Strings are stored exactly as given: quotes, SQL, unicode, NUL characters (not on PostgreSQL,
/// whose text cannot hold NUL: see `PostgresStoreTests`). Values are always bound, never spliced
/// into SQL.
@Suite struct ValueFidelityTests {
    static let awkward = [
        "O'Brien",
        "\"double\" and 'single' quotes",
        "Robert'); DROP TABLE \"Expense\";--",
        "SELECT * FROM Category WHERE 1=1",
        "ข้าวผัด กุ้ง",
        "Phở bò tái",
        "👩‍👩‍👧‍👦 family emoji",
        "e\u{301} (decomposed) vs \u{e9} (precomposed)",
        "tab\tnewline\ncarriage\r",
        "nul\u{0}inside",
        "",
        "   ",
        "%_ LIKE wildcards \\",
    ]

    @Test(arguments: StoreKind.allCases)
    func awkwardStringsRoundTrip(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self])
        let context = store.context()
        let awkward = kind.isPostgres ? Self.awkward.filter { !$0.contains("\u{0}") } : Self.awkward
        for (offset, note) in awkward.enumerated() {
            context.insert(Expense(amount: Double(offset), note: note, category: Category(name: note)))
        }
        try context.save()

        let fresh = store.context()
        let loaded = try fresh.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)]))
        #expect(loaded.map(\.note) == awkward)
        #expect(loaded.map { $0.category?.name } == awkward)
        // Each one is found by an equality predicate, so the stored bytes are the given ones.
        for note in awkward {
            let matches = try fresh.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.note == note }))
            #expect(matches.count == 1, "\(note.debugDescription)")
        }
    }
}
